"""File sources read splits handed out by their enumerator in the JobMaster: byte ranges of
JSON-lines files (``source.file``), row groups of Parquet files (``source.parquet``).

Every line (row) of the input must reach the two-phase-commit sink exactly once, whichever
subtask asked for which split: through subtasks killed at random points (a kill in a job of forward
edges restarts only the killed subtask's region, so the enumerator must take back the splits
that subtask got since the checkpoint), through a savepoint and a rescale with splits still
unassigned, and on Spark with slot processes killed.
"""
from __future__ import annotations

import json
import os
import random
import signal
import time
import threading
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.cluster.local import LocalCluster
from engine.runtime.operators.connectors.file_splits import FileSplitEnumerator
from tests.engine.cluster.test_local_exactly_once import KillPlan
from tests.support import assert_exactly_once

FILES, LINES = 4, 2500
SPLIT_BYTES = 3000  # about 30 splits per JSON-lines file, 9 per Parquet file (three row groups each)
ROW_GROUP_ROWS = 100
SOURCES = ["source.file", "source.parquet"]


def write_input(directory: Path, files: int = FILES, lines: int = LINES, kind: str = "source.file",
                row_group_rows: int = ROW_GROUP_ROWS) -> Counter:
    directory.mkdir(parents=True, exist_ok=True)
    expected: Counter = Counter()
    for f in range(files):
        records = [{"f": f, "i": i, "pad": "x" * (i % 17)} for i in range(lines)]
        if kind == "source.parquet":
            pq.write_table(pa.Table.from_pylist(records), directory / f"part-{f}.parquet",
                           row_group_size=row_group_rows)
        else:
            (directory / f"part-{f}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        expected.update(json.dumps(r, sort_keys=True) for r in records)
    return expected


def definition(input_dir: Path, output_dir: Path, parallelism: int, partitioning: str = "forward",
               attempts: int = 0, kind: str = "source.file", pause_s: float | None = None,
               drift_ms: int | None = None) -> dict:
    """``pause_s``: a Python node before the sink passes each record on after that pause, so the
    sources still have splits to ask for while the test acts, however idle the machine is.
    ``drift_ms``: the source subtasks' watermarks aligned with that drift, and the JSON-lines
    files cut in splits of an eighth of it in event time (``cut_short``)."""
    spec = {
        "format": 1, "name": "file-splits", "parallelism": parallelism, "max_parallelism": 128,
        "checkpointing": {"interval_ms": 40, "timeout_ms": 20000, "retained": 2},
        "restart": {"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 5} if attempts
        else {"strategy": "none"},
        "nodes": [{"id": "src", "type": kind,
                   "params": {"path": str(input_dir), "split_bytes": SPLIT_BYTES}},
                  # event time in the source's chain: the enumerator hands splits out by their first
                  # records' (the files run side by side in it), through restores and given-back splits
                  {"id": "time", "type": "transform.watermark",
                   "params": {"timestamp": 'x["i"]', "alignment_max_drift_ms": drift_ms or 0}},
                  {"id": "sink", "type": "sink.file", "params": {"path": str(output_dir)}}],
        "edges": [{"id": "t", "from": "src", "to": "time"},
                  {"id": "e", "from": "time", "to": "sink", "partitioning": partitioning}],
    }
    if pause_s is not None:
        code = f"import time\n\ndef process(records):\n    time.sleep({pause_s} * len(records))\n    return records\n"
        spec["nodes"].insert(2, {"id": "pace", "type": "transform.python", "params": {"code": code}})
        spec["edges"][1:] = [{"id": "e", "from": "time", "to": "pace", "partitioning": partitioning},
                             {"id": "e2", "from": "pace", "to": "sink"}]
    return spec


def cut_short(monkeypatch) -> list[int]:
    """Splits cut shorter in event time at any size (``bounded_in_time``); the list gets how many
    splits each cut made."""
    monkeypatch.setattr("engine.runtime.operators.connectors.file_splits.MIN_SPAN_SPLIT_BYTES", 256)
    cuts: list[int] = []
    bounded_in_time = FileSplitEnumerator.bounded_in_time

    def noting(self, splits, first_times):
        cut = bounded_in_time(self, splits, first_times)
        if cut != splits:
            cuts.append(len(cut))
        return cut

    monkeypatch.setattr(FileSplitEnumerator, "bounded_in_time", noting)
    return cuts


def committed(output_dir: Path) -> Counter:
    lines: Counter = Counter()
    for part in output_dir.glob("part-*.jsonl"):
        lines.update(json.dumps(json.loads(line), sort_keys=True) for line in part.read_text().splitlines())
    return lines


@pytest.mark.parametrize("kind", SOURCES)
def test_both_subtasks_read_splits_and_every_line_arrives_once(tmp_path, kind):
    expected = write_input(tmp_path / "in", kind=kind)
    taken: list[int] = []
    paths: list[str] = []
    handle_event = FileSplitEnumerator.handle_event

    def noting(self, subtask, event):
        answer = handle_event(self, subtask, event)
        if answer["kind"] == "splits":
            taken.append(subtask)
            paths.append(answer["splits"][0]["path"])
        return answer

    cluster = LocalCluster(config={"batch_size": 32})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FileSplitEnumerator, "handle_event", noting)
        result = cluster.run(definition(tmp_path / "in", tmp_path / "out", 2, kind=kind), timeout=60,
                             checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert_exactly_once(committed(tmp_path / "out"), expected)
    assert len(taken) >= FILES * 8  # the files were cut (about 30 and 9 splits each), not dealt whole
    assert set(taken) == {0, 1}  # the first split goes to each subtask's first request
    # by event time (``x["i"]``, the same range in every file): the files side by side, not one after the other
    assert len(set(paths[:FILES])) == FILES, paths[:FILES]


KILL_POINTS = [
    ("source_poll", "src", None),
    ("snapshot", "src", None),
    ("async_upload", "src", None),
    ("before_ack", "src", None),
    ("process", "sink", None),
    ("async_upload", "sink", None),
    ("before_commit", "sink", None),
    ("after_commit", "sink", None),
]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("partitioning", ["forward", "rebalance"])
@pytest.mark.parametrize("kind", SOURCES)
def test_every_line_is_committed_once_despite_kills(tmp_path, monkeypatch, partitioning, kind):
    """``forward``: two regions, a kill restarts one (the enumerator takes back that subtask's
    splits since the checkpoint); ``rebalance``: one region, every kill restarts the job."""
    monkeypatch.setattr("tests.engine.cluster.test_local_exactly_once.KILL_POINTS", KILL_POINTS)
    cuts = cut_short(monkeypatch)
    expected = write_input(tmp_path / "in", lines=8000, kind=kind)
    seed = random.randrange(2**32)
    plan = KillPlan(seed)
    cluster = LocalCluster(config={"batch_size": 8})
    kills, run = 12, 0
    restarts = 0
    while restarts < kills and run < 40:  # a run ends after a kill or two: then run another
        plan.limit = len(plan.kills) + kills - restarts
        plan.rearm()
        output = tmp_path / f"out-{run}"
        # aligned; JSON lines of ~30 bytes, one ms each: ~1.5 KB splits instead of 3,000 bytes
        spec = definition(tmp_path / "in", output, 2, partitioning, attempts=kills + 5, kind=kind, drift_ms=400)
        spec["checkpointing"]["interval_ms"] = 20
        result = cluster.run(spec, kill_hook=plan, timeout=120, checkpoint_dir=str(tmp_path / f"chk-{run}"))
        context = f"seed {seed}, run {run}, kills {plan.kills}"
        assert result.status == "FINISHED", f"{context}: {result.failure}"
        assert_exactly_once(committed(output), expected, context)
        restarts += result.restarts
        run += 1
    assert restarts >= kills, f"seed {seed}: only {restarts} restarts"
    assert bool(cuts) == (kind == "source.file")  # row groups are not cut


@pytest.mark.parametrize("kind", SOURCES)
def test_a_savepoint_with_splits_unassigned_restores_at_another_parallelism(tmp_path, kind):
    expected = write_input(tmp_path / "in", kind=kind)
    definition_2 = definition(tmp_path / "in", tmp_path / "out", 2, "rebalance", kind=kind, pause_s=0.001)
    handle = LocalCluster(config={"batch_size": 4}).submit(definition_2, checkpoint_dir=str(tmp_path / "c1"))
    # stopped with it: a checkpoint completing between a savepoint and a cancel commits rows its restore reads again
    savepoint = handle.stop_with_savepoint(drain=False).result(timeout=30)
    handle.wait(30)
    from engine.checkpoint.storage import load_metadata

    state = load_metadata(savepoint)["coordinators"]["src"]
    assert state["files"], "the savepoint was taken with splits still unassigned"
    definition_3 = definition(tmp_path / "in", tmp_path / "out", 3, "rebalance", kind=kind, pause_s=0.0)
    result = LocalCluster(config={"batch_size": 64}).run(definition_3, restore=savepoint, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert_exactly_once(committed(tmp_path / "out"), expected)


def test_a_path_that_matches_nothing_fails_the_job_naming_the_node(tmp_path):
    result = LocalCluster().run(definition(tmp_path / "nothing-here", tmp_path / "out", 2), timeout=30,
                                checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "node 'src' (source.file): no file matches" in result.failure
    assert "Traceback" not in result.failure


def test_csv_splits_cut_after_the_header_still_know_the_columns(tmp_path):
    rows = [f"{i},{'y' * (i % 13)}" for i in range(3000)]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "t.csv").write_text("n,text\n" + "\n".join(rows) + "\n")
    spec = definition(tmp_path / "in", tmp_path / "out", 2)
    spec["nodes"][0]["params"]["format"] = "csv"
    spec["nodes"][0]["params"]["split_bytes"] = 1000
    spec["nodes"][1]["params"]["timestamp"] = 'int(x["n"])'
    result = LocalCluster(config={"batch_size": 50}).run(spec, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    got = committed(tmp_path / "out")
    assert got == Counter(json.dumps({"n": str(i), "text": "y" * (i % 13)}, sort_keys=True) for i in range(3000))


def test_records_out_of_order_within_the_bound_are_not_late_however_their_splits_first_records_jitter(tmp_path):
    """A split's first record is one sample of its event time: handed out by it alone, one subtask
    read a split before the one ahead of it in its file, its watermark passed the earlier split's
    records, and those of a window that had fired were dropped as late (records lost)."""
    rng = random.Random(11)
    (tmp_path / "in").mkdir()
    events = [{"i": i, "ts": 3 * i + rng.randrange(900), "pad": "z" * (i % 23)} for i in range(6000)]
    (tmp_path / "in" / "events.jsonl").write_text("".join(json.dumps(event) + "\n" for event in events))
    spec = definition(tmp_path / "in", tmp_path / "out", 1)
    spec["nodes"][0]["params"]["split_bytes"] = 4096
    spec["nodes"][1]["params"].update(timestamp='x["ts"]', max_out_of_orderness_ms=1000)
    spec["nodes"].insert(2, {"id": "per_second", "type": "window.tumbling",
                             "params": {"size_ms": 1000, "function": "count"}})
    spec["edges"][1:] = [{"id": "w", "from": "time", "to": "per_second", "partitioning": "hash", "key": "0"},
                         {"id": "e", "from": "per_second", "to": "sink"}]
    result = LocalCluster(config={"batch_size": 32}).run(spec, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    counted = {json.loads(line)[1]: json.loads(line)[2] for line in committed(tmp_path / "out")}
    expected = Counter(event["ts"] - event["ts"] % 1000 + 1000 for event in events)
    assert counted == dict(expected)


def device_files(directory: Path, kind: str, devices: int = 3, lines: int = 3000) -> Counter:
    """A file per device, each over the whole time range (``ts`` 5 ms apart): by name one after the
    other, in event time side by side. Returns the records per 1 s window end."""
    directory.mkdir(parents=True, exist_ok=True)
    per_window: Counter = Counter()
    for device in range(devices):
        records = [{"ts": 5 * i + device, "device": device, "pad": "d" * (i % 19)} for i in range(lines)]
        if kind == "source.parquet":
            pq.write_table(pa.Table.from_pylist(records), directory / f"device-{device}.parquet", row_group_size=500)
        elif kind == "csv":
            (directory / f"device-{device}.csv").write_text(
                "ts,device,pad\n" + "".join(f"{r['ts']},{r['device']},{r['pad']}\n" for r in records))
        else:
            (directory / f"device-{device}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        per_window.update(record["ts"] - record["ts"] % 1000 + 1000 for record in records)
    return per_window


def counting_per_second(input_dir: Path, output_dir: Path, parallelism: int, kind: str, split_bytes: int) -> dict:
    """Each source subtask times its records (1 s bound) and one window counts them per second.
    ``kind`` "csv": ``source.file`` over CSV files (values are strings: the time is ``int`` of one)."""
    spec = definition(input_dir, output_dir, parallelism, kind="source.file" if kind == "csv" else kind)
    spec["nodes"][0]["params"]["split_bytes"] = split_bytes
    if kind == "csv":
        spec["nodes"][0]["params"]["format"] = "csv"
    timestamp = 'int(x["ts"])' if kind == "csv" else 'x["ts"]'
    spec["nodes"][1]["params"].update(timestamp=timestamp, max_out_of_orderness_ms=1000)
    spec["nodes"].insert(2, {"id": "per_second", "type": "window.tumbling",
                             "params": {"size_ms": 1000, "function": "count"}})
    spec["edges"][1:] = [{"id": "w", "from": "time", "to": "per_second", "partitioning": "hash", "key": "0"},
                         {"id": "e", "from": "per_second", "to": "sink"}]
    return spec


def counted_per_window(output_dir: Path) -> dict:
    return {json.loads(line)[1]: json.loads(line)[2] for line in committed(output_dir)}


@pytest.mark.parametrize("split_bytes", [4 << 20, 8 << 10])
@pytest.mark.parametrize("parallelism", [1, 2])
@pytest.mark.parametrize("kind", SOURCES + ["csv"])
def test_files_side_by_side_in_event_time_lose_no_record_as_late(tmp_path, kind, parallelism, split_bytes):
    """A subtask that read one device's file (or split) up to time T had its watermark near T when it
    began the next device's, from time 0: its records were late, two thirds of them at p=1 with a
    split per file. The watermark now keeps its highest event time per split and stays behind the
    first event time of every split still to be read (``SplitReadingSource.event_time_floor``)."""
    expected = device_files(tmp_path / "in", kind)
    spec = counting_per_second(tmp_path / "in", tmp_path / "out", parallelism, kind, split_bytes)
    result = LocalCluster(config={"batch_size": 64}).run(spec, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert counted_per_window(tmp_path / "out") == dict(expected)


@pytest.mark.spark
@pytest.mark.timeout(300)
def test_files_side_by_side_in_event_time_lose_no_record_as_late_on_spark(spark_session, tmp_path):
    from engine.api import Spark, job_master_for
    from engine.spec import normalise_definition

    expected = device_files(tmp_path / "in", "source.parquet")
    spec = counting_per_second(tmp_path / "in", tmp_path / "out", 2, "source.parquet", 4 << 20)
    job_master = job_master_for(normalise_definition(spec), Spark(session=spark_session, config={"batch_size": 64}),
                                checkpoint_dir=str(tmp_path / "chk"))
    outcome = job_master.run()
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert counted_per_window(tmp_path / "out") == dict(expected)


@pytest.mark.spark
@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", SOURCES)
def test_slot_kills_on_spark_leave_every_line_committed_once(spark_session, tmp_path, kind, monkeypatch):
    """Forward edges: each slot is its own region (barrier stage); a SIGKILLed slot's region
    restarts alone while the other goes on asking for splits (aligned, the JSON-lines files in
    splits of ~1,000 lines, a second of their event time, instead of 64 KiB)."""
    from engine.api import Spark, job_master_for
    from engine.spec import normalise_definition

    cuts = cut_short(monkeypatch)  # the JobMaster runs in this process
    expected = write_input(tmp_path / "in", files=4, lines=100_000, kind=kind, row_group_rows=2000)
    spec = definition(tmp_path / "in", tmp_path / "out", 2, attempts=10, kind=kind, drift_ms=8_000)
    spec["checkpointing"]["interval_ms"] = 100
    spec["nodes"][0]["params"]["split_bytes"] = 64 * 1024
    rng = random.Random(int(os.environ.get("KILL_SEED", "20261126")))
    completed = threading.Event()
    kills = []

    def on_event(event):
        if event["type"] == "checkpoint" and event["event"] == "completed":
            completed.set()

    job_master = job_master_for(normalise_definition(spec), Spark(session=spark_session, config={"batch_size": 16}),
                                checkpoint_dir=str(tmp_path / "chk"), on_event=on_event)
    done = threading.Event()

    def kill_twice():
        while len(kills) < 2 and not done.is_set():
            if not completed.wait(0.5):
                continue
            completed.clear()
            done.wait(rng.uniform(0, 0.2))
            pids = [slot.pid for slot in job_master.deployer.registered_slots()]  # one slot in each of two regions
            if len(pids) == 2 and not done.is_set():
                os.kill(rng.choice(pids), signal.SIGKILL)
                kills.append(1)
                done.wait(1.0)  # let the restart happen before the next one

    killer = threading.Thread(target=kill_twice)
    killer.start()
    try:
        outcome = job_master.run()
    finally:
        done.set()
        killer.join()
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert kills, "the job ended before a slot could be killed"
    assert_exactly_once(committed(tmp_path / "out"), expected)
    assert bool(cuts) == (kind == "source.file")


def paced_until_begun(spec: dict, begun: Path) -> dict:
    """``spec`` with a Python node after the watermark that makes the file ``begun`` once 500 records passed
    it and paces them (0.5 ms each), so that a stop lands inside the first file however idle the machine."""
    pace = (f"import time\nseen = 0\n\ndef process(records):\n    global seen\n    seen += len(records)\n"
            f"    if seen >= 500:\n        open({str(begun)!r}, 'a').close()\n"
            f"    time.sleep(0.0005 * len(records))\n    return records\n")
    spec["nodes"].insert(2, {"id": "pace", "type": "transform.python", "params": {"code": pace}})
    spec["edges"][1] = {"id": "p", "from": "time", "to": "pace"}
    spec["edges"].insert(2, {"id": "w", "from": "pace", "to": "per_second", "partitioning": "hash", "key": "0"})
    return spec


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + 120
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert path.exists(), "the job never got past its first records"


@pytest.mark.parametrize("kind", SOURCES + ["csv"])
def test_a_restore_holding_a_split_not_begun_loses_no_record_as_late(tmp_path, kind):
    """At p=1 the subtask reads the first device's file and holds the next one's, asked ahead and not
    begun, whose first records are the earliest of it. Stopped with a savepoint in the first file and
    restored, it read that file on with neither the held split's first time nor the floor of the third
    (neither is in a checkpoint): its watermark passed both, and their records were late. A restored
    reader now asks the enumerator for both before it reads (``SplitReadingSource._ask_first_times``)."""
    expected = device_files(tmp_path / "in", kind)
    spec = paced_until_begun(counting_per_second(tmp_path / "in", tmp_path / "out", 1, kind, 4 << 20),
                             tmp_path / "begun")
    handle = LocalCluster(config={"batch_size": 64}).submit(spec, checkpoint_dir=str(tmp_path / "c1"))
    wait_for(tmp_path / "begun")
    savepoint = handle.stop_with_savepoint(drain=False).result(timeout=60)
    handle.wait(30)
    spec["nodes"][2]["params"]["code"] = "def process(records):\n    return records\n"
    result = LocalCluster(config={"batch_size": 64}).run(spec, restore=savepoint, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert counted_per_window(tmp_path / "out") == dict(expected)


@pytest.mark.spark
@pytest.mark.timeout(300)
def test_a_restore_holding_a_split_not_begun_loses_no_record_as_late_on_spark(spark_session, tmp_path):
    from engine.api import Spark, job_master_for
    from engine.spec import normalise_definition

    expected = device_files(tmp_path / "in", "source.file")
    spec = paced_until_begun(counting_per_second(tmp_path / "in", tmp_path / "out", 1, "source.file", 4 << 20),
                             tmp_path / "begun")
    first = job_master_for(normalise_definition(spec), Spark(session=spark_session, config={"batch_size": 64}),
                           checkpoint_dir=str(tmp_path / "c1"))
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", first.run()))
    thread.start()
    wait_for(tmp_path / "begun")
    savepoint = first.stop_with_savepoint(drain=False).result(timeout=60)
    thread.join(60)
    assert outcome["value"].status == "FINISHED", outcome["value"].failure_cause
    spec["nodes"][2]["params"]["code"] = "def process(records):\n    return records\n"
    restored = job_master_for(normalise_definition(spec), Spark(session=spark_session, config={"batch_size": 64}),
                              checkpoint_dir=str(tmp_path / "c2"), restore=savepoint)
    result = restored.run()
    assert result.status == "FINISHED", result.failure_cause
    assert counted_per_window(tmp_path / "out") == dict(expected)
