"""Byte-range splits of files: each line read exactly once, and the enumerator's bookkeeping."""
from __future__ import annotations

import io
import random
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.operators.connectors.file_source import split_reader
from engine.runtime.operators.connectors.file_splits import (
    FileSplitEnumerator,
    SplitAssignmentTracker,
    cut_into_splits,
    files_of_splits,
    splits_of_files,
)


def read_split(data: bytes, split: dict, count: int, restart_after: int | None) -> tuple[bytes, object]:
    """Every block of ``split``; after ``restart_after`` reads the reader is rebuilt from the split's
    offset, as a restore does. Returns the bytes read and the last reader."""
    handle = io.BytesIO(data)
    reader = split_reader(handle, split, min_block_bytes=16)  # lines longer than a block too
    read, reads = [], 0
    while True:
        block, split["offset"] = reader.read(count)
        if not block:
            return b"".join(read), reader
        read.append(block)
        reads += 1
        if reads == restart_after:
            reader = split_reader(io.BytesIO(data), split, min_block_bytes=16)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.text(alphabet="ab\r", max_size=60), max_size=30), trailing_break=st.booleans(),
       cuts=st.lists(st.integers(0, 2000), max_size=8), count=st.integers(1, 5),
       restart_after=st.none() | st.integers(1, 3), go_on=st.booleans())
def test_splits_cut_anywhere_hand_out_every_line_once(lines, trailing_break, cuts, count, restart_after, go_on):
    """Cut points fall anywhere (inside lines, on line breaks, on empty lines); a restored split
    starts from its offset; ``go_on`` keeps the reader for the next split, as the source does."""
    data = "\n".join(lines).encode() + (b"\n" if trailing_break and lines else b"")
    bounds = sorted({0, len(data), *(cut for cut in cuts if cut < len(data))})
    splits = [{"start": start, "end": end, "offset": start} for start, end in zip(bounds, bounds[1:])]
    read, reader = [], None
    for position, split in enumerate(splits):
        if go_on and reader is not None and split["start"] == splits[position - 1]["end"]:
            split["offset"], reader.end = reader.offset, split["end"]
            handle_data, reader = _continue(reader, count)
            read.append(handle_data)
            continue
        got, reader = read_split(data, split, count, restart_after)
        read.append(got)
    assert b"".join(read) == data


def _continue(reader, count: int):
    blocks = []
    while True:
        block, _ = reader.read(count)
        if not block:
            return b"".join(blocks), reader
        blocks.append(block)


def test_a_split_starting_on_a_line_start_keeps_that_line():
    data = b"one\ntwo\nthree\n"
    assert read_split(data, {"start": 4, "end": 9, "offset": 4}, 10, None)[0] == b"two\nthree\n"
    assert read_split(data, {"start": 5, "end": 9, "offset": 5}, 10, None)[0] == b"three\n"
    assert read_split(data, {"start": 0, "end": 4, "offset": 0}, 10, None)[0] == b"one\n"
    assert read_split(data, {"start": 0, "end": 5, "offset": 0}, 10, None)[0] == b"one\ntwo\n"


@settings(deadline=None)  # a time limit per example is a timing assert: on a loaded machine it fails alone
@given(sizes=st.lists(st.integers(0, 10_000), max_size=5), split_bytes=st.integers(1, 3000))
def test_cut_splits_cover_each_file_in_pieces_no_longer_than_asked(sizes, split_bytes):
    splits = cut_into_splits([(f"f{i}", size) for i, size in enumerate(sizes)], split_bytes)
    for i, size in enumerate(sizes):
        mine = [s for s in splits if s["path"] == f"f{i}"]
        assert [(s["start"], s["end"]) for s in mine] == list(zip([0] + [s["end"] for s in mine[:-1]],
                                                                  [s["end"] for s in mine]))
        assert (mine[-1]["end"] if mine else 0) == size
        assert all(0 < s["end"] - s["start"] <= split_bytes for s in mine)


@pytest.fixture
def files(tmp_path):
    for name, lines in (("a.jsonl", 100), ("b.jsonl", 300)):
        (tmp_path / name).write_text("".join(json.dumps({"n": i}) + "\n" for i in range(lines)))
    return tmp_path


def node(path, split_bytes=1000):
    return {"id": "src", "type": "source.file", "params": {"path": str(path), "split_bytes": split_bytes}}


def take(enumerator, subtask):
    answer = enumerator.handle_event(subtask, {"kind": "request"})
    return answer["splits"][0] if answer["kind"] == "splits" else answer


def test_splits_go_out_earliest_first_whoever_asks(files):
    """By path, then offset: each subtask reads forward through the input."""
    enumerator = FileSplitEnumerator(node(files), None, False)
    taken = []
    for turn in range(1000):
        split = take(enumerator, turn % 3)
        if split == {"kind": "no_more"}:
            break
        taken.append(split)
    assert taken == sorted(taken, key=lambda s: (s["path"], s["start"]))
    sizes = {str(path): path.stat().st_size for path in files.iterdir()}
    for path, size in sizes.items():  # every byte of every file, once
        ranges = [(s["start"], s["end"]) for s in taken if s["path"] == path]
        assert ranges[0][0] == 0 and ranges[-1][1] == size
        assert all(end == start for (_, end), (start, _) in zip(ranges, ranges[1:]))
    assert take(enumerator, 0) == {"kind": "no_more"}


def test_a_path_that_matches_nothing_is_an_error_naming_it(tmp_path):
    answer = FileSplitEnumerator(node(tmp_path / "missing"), None, False).handle_event(0, {"kind": "request"})
    assert answer["kind"] == "error" and "no file matches" in answer["message"] and "missing" in answer["message"]


def test_splits_taken_after_the_restored_checkpoint_go_back_to_their_subtask(files):
    enumerator = FileSplitEnumerator(node(files, split_bytes=500), None, False)
    before = [take(enumerator, 0), take(enumerator, 1)]
    state = enumerator.snapshot(7)
    after = [take(enumerator, 0), take(enumerator, 1), take(enumerator, 1)]
    unassigned = splits_of_files(state["files"])
    assert not {(s["path"], s["start"]) for s in before} & {(s["path"], s["start"]) for s in unassigned}
    enumerator.subtasks_reset({1}, 7)
    # subtask 1 gets its two splits since checkpoint 7 again, in order, before anything new
    assert [take(enumerator, 1), take(enumerator, 1)] == after[1:]
    following = take(enumerator, 0)
    assert following not in after and following["start"] > 0
    enumerator.subtasks_reset({0}, None)  # from nothing: everything subtask 0 ever got
    assert [take(enumerator, 0) for _ in range(3)] == [before[0], after[0], following]


def test_a_restore_starts_from_the_snapshot_and_a_snapshot_before_any_request_lists_afresh(files):
    enumerator = FileSplitEnumerator(node(files), None, False)
    assert enumerator.snapshot(1) == {"splits": None}
    take(enumerator, 0)
    state = json.loads(json.dumps(enumerator.snapshot(2)))  # as the metadata file holds it
    in_order = sorted(splits_of_files(state["files"]), key=lambda s: (s["path"], s["start"]))
    assert len(in_order) > 1
    # and the form before the compact one: a list of split dicts
    for restored_state in (state, {"splits": in_order}):
        restored = FileSplitEnumerator(node(files), restored_state, True)
        assert [take(restored, 0) for _ in in_order] == in_order
        assert take(restored, 0) == {"kind": "no_more"}
    afresh = FileSplitEnumerator(node(files), {"splits": None}, True)
    assert take(afresh, 0)["start"] == 0
    # a checkpoint of whole-file splits (before enumerators): its readers hold every file
    assert take(FileSplitEnumerator(node(files), None, True), 0) == {"kind": "no_more"}


@settings(max_examples=200, deadline=None)
@given(bounds=st.lists(st.tuples(st.sampled_from(["a", "b/c", "d"]), st.integers(0, 10**12), st.integers(0, 10**12)),
                       max_size=12))
def test_the_compact_form_of_splits_gives_them_back(bounds):
    splits = sorted(({"path": path, "start": start, "end": end} for path, start, end in bounds),
                    key=lambda s: (s["path"], s["start"]))
    compact = json.loads(json.dumps(files_of_splits(splits)))
    assert splits_of_files(compact) == splits
    assert len({path for path, _ in compact}) == len(compact)  # each path once


def test_the_tracker_forgets_what_a_completed_checkpoint_covers():
    tracker = SplitAssignmentTracker()
    tracker.assigned(0, {"s": 1})
    tracker.snapshot(1)
    tracker.assigned(0, {"s": 2})
    tracker.snapshot(2)
    tracker.assigned(0, {"s": 3})
    tracker.checkpoint_complete(2)
    tracker.checkpoint_complete(1)  # completing after a newer one: nothing more to forget
    assert tracker.take_back({0}, 2) == {0: [{"s": 3}]}
    tracker.assigned(1, {"s": 4})
    assert tracker.take_back({0}, None) == {} and tracker.take_back({1}, 2) == {1: [{"s": 4}]}


def test_a_tiny_split_size_over_a_big_input_is_raised_to_keep_the_split_count_bounded(files, monkeypatch):
    monkeypatch.setattr("engine.runtime.operators.connectors.file_splits.MAX_SPLITS", 10)
    enumerator = FileSplitEnumerator(node(files, split_bytes=1), None, False)
    taken = []
    while (split := take(enumerator, 0)) != {"kind": "no_more"}:
        taken.append(split)
    assert 2 <= len(taken) <= 10 + 2  # each file rounds its share up to whole pieces


def test_a_subtask_reading_every_other_split_of_a_file_opens_it_once_and_reads_each_line_once(tmp_path):
    """With several subtasks on neighbouring splits, a subtask's next split is rarely the one after
    its last: it seeks in the open file instead of opening it again (``FileSource._split_done``)."""
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.file_source import FileSource
    from engine.runtime.operators.source import END_OF_INPUT

    path = tmp_path / "lines.jsonl"
    path.write_text("".join(f"{n}\n" for n in range(500)))
    node = {"id": "lines", "type": "source.file", "params": {"path": str(path), "format": "jsonl"}}
    source = FileSource(node, OperatorContext(task=("lines", 0), node_id="lines", parallelism=1, max_parallelism=8,
                                              config={}))
    opened = []
    original = source.files.open
    source.files.open = lambda name: opened.append(name) or original(name)
    splits = cut_into_splits([(str(path), path.stat().st_size)], 97)
    mine = splits[::2]  # what one of two subtasks would read
    source.splits = [FileSource.assigned_split(split) for split in mine]
    read = []
    try:
        while (batch := source.poll_next()) is not END_OF_INPUT:
            read.extend(batch)
    finally:
        source.close()
    line_starts = [0] + [i + 1 for i, byte in enumerate(path.read_bytes()) if byte == ord("\n")][:-1]
    # a split's lines are those whose first byte lies in its range
    assert read == [n for split in mine for n, start in enumerate(line_starts) if split["start"] <= start < split["end"]]
    assert opened == [str(path)]


# -- splits by the event time of their first record --------------------------------------------------------------

def per_device_files(directory, devices=3, lines=200):
    """A file per device, each over the whole time range (``ts`` = 10 × line + device): by name the
    files run one after the other, in event time they run side by side."""
    directory.mkdir(exist_ok=True)
    for device in range(devices):
        (directory / f"device-{device}.jsonl").write_text(
            "".join(json.dumps({"ts": 10 * i + device, "pad": "y" * (i % 13)}) + "\n" for i in range(lines)))
    return directory


def first_time(split: dict) -> int:
    """The event time of the split's first line, as its reader reads it."""
    with open(split["path"], "rb") as handle:
        reader = split_reader(handle, dict(split, offset=split["start"]))
        block, _ = reader.read(1)
    return json.loads(block)["ts"]


def drain(enumerator, subtasks=(0, 1)) -> list[dict]:
    taken = []
    for turn in range(10_000):
        split = take(enumerator, subtasks[turn % len(subtasks)])
        if split == {"kind": "no_more"}:
            return taken
        taken.append(split)
    raise AssertionError("the enumerator never ran out")


def timed(path, **params):
    """An enumerator of ``path`` in 700-byte splits, told the event time is ``x["ts"]``."""
    source = node(path, split_bytes=700)
    source["params"].update(params)
    enumerator = FileSplitEnumerator(source, None, False)
    enumerator.order_by_event_time('x["ts"]')
    return enumerator


def test_splits_go_out_by_the_event_time_of_their_first_record_across_files(tmp_path):
    enumerator = timed(per_device_files(tmp_path / "in"))
    taken = drain(enumerator)
    times = [first_time(split) for split in taken]
    assert times == sorted(times)
    assert len({split["path"] for split in taken[:4]}) == 3  # the files side by side, not one after the other
    by_file = sorted(taken, key=lambda s: (s["path"], s["start"]))
    assert by_file != taken
    sizes = {str(path): path.stat().st_size for path in (tmp_path / "in").iterdir()}
    for path, size in sizes.items():  # every byte of every file, once
        ranges = [(s["start"], s["end"]) for s in by_file if s["path"] == path]
        assert ranges[0][0] == 0 and ranges[-1][1] == size
        assert all(end == start for (_, end), (start, _) in zip(ranges, ranges[1:]))


def test_files_named_against_their_time_go_out_in_time(tmp_path):
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"ts": 5000 + i}) + "\n" for i in range(100)))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps({"ts": i}) + "\n" for i in range(100)))
    taken = drain(timed(tmp_path))
    assert [split["path"] for split in taken] == sorted(split["path"] for split in taken)[::-1]


@pytest.mark.parametrize("spoil", ["no expression", "a split without a timed line", "not lines", "too many splits",
                                   "an expression that fails", "no time left"])
def test_without_first_times_for_every_split_the_order_is_the_files(tmp_path, spoil, monkeypatch):
    directory = per_device_files(tmp_path / "in")
    params = {}
    if spoil == "a split without a timed line":
        with (directory / "device-1.jsonl").open("a") as out:
            out.write("".join(json.dumps({"no_ts": i, "pad": "z" * 40}) + "\n" for i in range(40)))
    elif spoil == "not lines":
        params = {"format": "xml"}
    elif spoil == "too many splits":
        monkeypatch.setattr("engine.runtime.operators.connectors.file_splits.PROBE_MAX_SPLITS", 5)
    elif spoil == "no time left":
        monkeypatch.setattr("engine.runtime.operators.connectors.file_splits.PROBE_BUDGET_S", -1.0)
    enumerator = timed(directory, **params)
    if spoil == "no expression":
        enumerator.timestamp = None
    elif spoil == "an expression that fails":
        enumerator.order_by_event_time('x["ts"] // 0')
    taken = drain(enumerator)
    assert taken == sorted(taken, key=lambda s: (s["path"], s["start"]))


def test_csv_splits_go_out_by_their_first_rows_time_the_header_not_taken_for_one(tmp_path):
    """A CSV split's first row is keyed by its file's header, as its reader keys it; the header row of a
    file's first split is not its first record (``int("ts")`` fails: a split without a time, file order)."""
    directory = tmp_path / "in"
    directory.mkdir()
    for device in range(3):
        rows = "".join(f"{10 * i + device},{'y' * (i % 13)}\n" for i in range(200))
        (directory / f"device-{device}.csv").write_text("ts,pad\n" + rows)
    source = node(directory, split_bytes=700)
    source["params"]["format"] = "csv"
    enumerator = FileSplitEnumerator(source, None, False)
    enumerator.order_by_event_time('int(x["ts"])')
    taken = drain(enumerator)
    firsts = []
    for split in taken:
        with open(split["path"], "rb") as handle:
            handle.seek(max(split["start"] - 1, 0))
            handle.readline()  # the header, or the rest of the line the split before reads
            firsts.append(int(handle.readline().split(b",")[0]))
    assert firsts == sorted(firsts)
    assert len({split["path"] for split in taken[:3]}) == 3


def test_a_blank_or_broken_first_line_is_skipped_for_the_next(tmp_path):
    from engine.runtime.operators.connectors.file_splits import first_line_time

    data = b'{"ts": 1}\n\n{"ts": oops\n{"ts": true}\n{"ts": "7"}\n{"ts": 9}\n'
    handle = io.BytesIO(data)
    def of(record):
        return record["ts"]

    assert first_line_time(handle, 0, len(data), of) == 1
    assert first_line_time(handle, 1, len(data), of) == 7  # a bool is no time; "7" is as int() reads it
    assert first_line_time(handle, data.index(b'{"ts": 9'), len(data), of) == 9
    assert first_line_time(handle, 1, data.index(b'{"ts": t'), of) is None  # nothing timed inside the split


def test_a_restored_enumerator_hands_out_the_same_remaining_splits_in_the_same_order(tmp_path):
    """The first times are not in the snapshot: a restore reads them again from the same files."""
    directory = per_device_files(tmp_path / "in")
    enumerator = timed(directory)
    before = [take(enumerator, 0), take(enumerator, 1), take(enumerator, 0)]
    state = json.loads(json.dumps(enumerator.snapshot(3)))  # as the metadata file holds it
    rest = drain(enumerator)
    restored = FileSplitEnumerator(node(directory, split_bytes=700), state, True)
    restored.order_by_event_time('x["ts"]')
    assert drain(restored, subtasks=(1,)) == rest
    assert not {(s["path"], s["start"]) for s in before} & {(s["path"], s["start"]) for s in rest}


def test_splits_given_back_return_to_their_subtask_in_event_time(tmp_path):
    enumerator = timed(per_device_files(tmp_path / "in"))
    take(enumerator, 0)
    enumerator.snapshot(1)
    after = [take(enumerator, 1) for _ in range(4)]
    enumerator.subtasks_reset({1}, 1)
    assert [take(enumerator, 1) for _ in range(4)] == after
    assert [first_time(split) for split in after] == sorted(first_time(split) for split in after)


def test_parquet_splits_go_out_by_their_first_row_groups_statistics(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.runtime.operators.connectors.parquet import ParquetSplitEnumerator

    for device in range(3):
        rows = [{"ts": 10 * i + device, "pad": "p" * (i % 7)} for i in range(600)]
        pq.write_table(pa.Table.from_pylist(rows), tmp_path / f"device-{device}.parquet", row_group_size=100)
    parquet_node = {"id": "src", "type": "source.parquet", "params": {"path": str(tmp_path), "split_bytes": 1}}

    def drained(timestamp):
        enumerator = ParquetSplitEnumerator(parquet_node, None, False)
        if timestamp is not None:
            enumerator.order_by_event_time(timestamp)
        return drain(enumerator)

    taken = drained('x["ts"]')
    firsts = [pq.ParquetFile(s["path"]).read_row_group(s["start"]).column("ts")[0].as_py() for s in taken]
    assert firsts == sorted(firsts) and len({s["path"] for s in taken[:3]}) == 3
    in_file_order = sorted(taken, key=lambda s: (s["path"], s["start"]))
    assert drained('x["ts"] + 1') == in_file_order == drained(None)  # not a column: no statistics to go by
    assert drained('x["pad"]') == in_file_order  # not integers


# -- splits no longer in event time than a share of the alignment's drift ------------------------------------------

def time_ordered_file(directory, lines=4000, spacing_ms=10):
    directory.mkdir(exist_ok=True)
    path = directory / "events.jsonl"
    path.write_text("".join(json.dumps({"ts": spacing_ms * i, "pad": "q" * (i % 11)}) + "\n" for i in range(lines)))
    return path


def spans(taken: list[dict]) -> list[int]:
    firsts = [first_time(split) for split in sorted(taken, key=lambda s: s["start"])]
    return [later - earlier for earlier, later in zip(firsts, firsts[1:])]


def test_a_time_ordered_file_is_cut_into_splits_of_about_the_span_asked(tmp_path, monkeypatch):
    monkeypatch.setattr("engine.runtime.operators.connectors.file_splits.MIN_SPAN_SPLIT_BYTES", 256)
    path = time_ordered_file(tmp_path / "in")  # ~30 bytes and 10 ms a line: 32 KiB splits span ~11 s
    enumerator = FileSplitEnumerator(node(path, split_bytes=32 << 10), None, False)
    enumerator.order_by_event_time('x["ts"]', max_span_ms=1_000)
    taken = drain(enumerator)
    assert 30 <= len(taken) <= 50  # ~40 s of event time in ~1 s pieces
    assert max(spans(taken)) <= 1_200 and [first_time(s) for s in taken] == sorted(first_time(s) for s in taken)
    ranges = sorted((s["start"], s["end"]) for s in taken)  # every byte once
    assert ranges[0][0] == 0 and ranges[-1][1] == path.stat().st_size
    assert all(end == start for (_, end), (start, _) in zip(ranges, ranges[1:]))


@pytest.mark.parametrize("case", ["floor", "cap", "short enough", "no growth", "no span asked"])
def test_splits_are_cut_no_smaller_than_the_floor_nor_more_than_probed(tmp_path, monkeypatch, case):
    module = "engine.runtime.operators.connectors.file_splits"
    monkeypatch.setattr(f"{module}.MIN_SPAN_SPLIT_BYTES", 4096 if case == "floor" else 256)
    if case == "cap":
        monkeypatch.setattr(f"{module}.PROBE_MAX_SPLITS", 10)
    path = time_ordered_file(tmp_path / "in", spacing_ms=0 if case == "no growth" else 10)
    enumerator = FileSplitEnumerator(node(path, split_bytes=32 << 10), None, False)
    enumerator.order_by_event_time('x["ts"]', max_span_ms={"short enough": 60_000, "no span asked": None}.get(case, 1))
    sizes = [s["end"] - s["start"] for s in drain(enumerator)]
    if case == "floor":
        assert min(sizes) >= 0.9 * 4096 and len(sizes) > 4  # equal pieces; the last a little shorter
    elif case == "cap":
        assert 4 < len(sizes) <= 10
    else:  # as cut by bytes
        assert len(sizes) == -(-path.stat().st_size // (32 << 10))


def test_a_restored_enumerator_hands_out_its_snapshots_splits_as_they_were_cut(tmp_path, monkeypatch):
    monkeypatch.setattr("engine.runtime.operators.connectors.file_splits.MIN_SPAN_SPLIT_BYTES", 256)
    path = time_ordered_file(tmp_path / "in")
    enumerator = FileSplitEnumerator(node(path, split_bytes=32 << 10), None, False)
    enumerator.order_by_event_time('x["ts"]', max_span_ms=1_000)
    before = [take(enumerator, 0), take(enumerator, 1)]
    state = json.loads(json.dumps(enumerator.snapshot(5)))
    rest = drain(enumerator)
    restored = FileSplitEnumerator(node(path, split_bytes=32 << 10), state, True)
    restored.order_by_event_time('x["ts"]', max_span_ms=100)  # a different span: restored splits are not cut again
    assert drain(restored) == rest and len(before + rest) > 20


def jittered_file(path, lines=3000, jitter_ms=900, seed=3):
    """Events ~3 ms apart, each up to ``jitter_ms`` late or early (within a 1 s watermark bound): a
    split's first record is often later in event time than the next split's."""
    rng = random.Random(seed)
    path.write_text("".join(json.dumps({"ts": 3 * i + rng.randrange(jitter_ms), "pad": "j" * (i % 9)}) + "\n"
                            for i in range(lines)))
    return path


def test_a_files_own_splits_go_out_in_its_order_though_their_first_records_jitter(tmp_path):
    (tmp_path / "in").mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        jittered_file(tmp_path / "in" / name, seed=len(name) + ord(name[0]))
    enumerator = timed(tmp_path / "in")
    taken = drain(enumerator)
    firsts = [first_time(split) for split in sorted(taken, key=lambda s: (s["path"], s["start"]))]
    assert firsts != sorted(firsts)  # the first records alone would reorder a file's splits
    for path in {split["path"] for split in taken}:
        starts = [split["start"] for split in taken if split["path"] == path]
        assert starts == sorted(starts)
    # and the two files, side by side in event time, still go out side by side
    switches = sum(earlier["path"] != later["path"] for earlier, later in zip(taken, taken[1:]))
    assert switches >= len(taken) // 4


def test_each_answer_carries_its_splits_first_time_and_the_least_of_the_splits_left(tmp_path):
    enumerator = timed(per_device_files(tmp_path / "in"))
    answers = []
    while (answer := enumerator.handle_event(0, {"kind": "request"}))["kind"] == "splits":
        answers.append(answer)
    assert [answer["first_times"] for answer in answers] == [[first_time(answer["splits"][0])] for answer in answers]
    for index, answer in enumerate(answers[:-1]):  # what the reader's watermark must stay behind
        assert answer["floor"] == min(first_time(later["splits"][0]) for later in answers[index + 1:])
    assert answers[-1]["floor"] is None  # nothing left to take
    untimed = FileSplitEnumerator(node(tmp_path / "in", split_bytes=700), None, False)
    assert untimed.handle_event(0, {"kind": "request"}) | {"splits": None} == {
        "kind": "splits", "splits": None, "first_times": [None], "floor": None}


def test_a_restored_reader_is_told_the_first_times_of_the_splits_it_holds_and_the_floor(tmp_path):
    """Neither a split's first time nor the floor is in a checkpoint: a reader restored holding splits asks
    for them before it reads (``SplitReadingSource._ask_first_times``)."""
    directory = per_device_files(tmp_path / "in")
    taken = drain(timed(directory))
    held, left = taken[:2], taken[2:]
    restored = FileSplitEnumerator(node(directory, split_bytes=700), {"splits": left}, True)
    restored.order_by_event_time('x["ts"]')
    answer = restored.handle_event(1, {"kind": "first_times", "splits": [dict(split, offset=9) for split in held]})
    assert answer == {"kind": "first_times", "splits": held, "first_times": [first_time(split) for split in held],
                      "floor": min(first_time(split) for split in left)}
    assert restored.handle_event(1, {"kind": "request"})["splits"] == [min(left, key=first_time)]  # nothing taken


@pytest.mark.parametrize("held", [[{"path": "/elsewhere/x.jsonl", "start": 0, "end": 10}],
                                  [{"path": "in/device-0.jsonl", "start": -1, "end": 10}], [{"path": "x"}], "x"])
def test_first_times_asked_of_a_split_not_of_this_source_are_refused_naming_it(tmp_path, held):
    directory = per_device_files(tmp_path / "in")
    held = [dict(split, path=str(tmp_path / split["path"])) if split.get("path", "").startswith("in/") else split
            for split in held] if isinstance(held, list) else held
    answer = timed(directory).handle_event(0, {"kind": "first_times", "splits": held})
    assert answer["kind"] == "error"
    assert "is not a split of this source's files" in answer["message"]
