"""Projection pushdown: a JSON source decodes only the fields its job reads, and the job computes
what it computed from whole records (``engine.runtime.projection``)."""
from __future__ import annotations

import glob
import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.plan import build_job_graph
from engine.runtime.io.line_blocks import Projection, decode_json_lines
from engine.runtime.operators import OperatorContext
from engine.runtime.operators.connectors.file_source import FileSource
from engine.runtime.operators.windows.window_partials import WindowPartials
from engine.runtime.projection import projected_fields
from engine.spec.expressions.fields import fields_read
from tests.engine.connectors.support import KillPlan

NAMES = ["a", "b", "ts", "user", "a b", "é", ""]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=3), inner,
                                                                max_size=4),
    max_leaves=8)
records = st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=4), json_values, max_size=8)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(records | json_values, max_size=15),
       fields=st.sets(st.sampled_from([name for name in NAMES if name.isascii()]), max_size=4),
       spaced=st.booleans(), blank=st.booleans())
def test_a_projected_decode_is_the_whole_decode_cut_to_the_fields(values, fields, spaced, blank):
    separators = (", ", ": ") if spaced else (",", ":")
    lines = [json.dumps(value, separators=separators, ensure_ascii=spaced) for value in values]
    if blank and lines:
        lines.insert(len(lines) // 2, "  ")
    block = "".join(line + "\n" for line in lines).encode()
    whole = decode_json_lines(block)
    projected = decode_json_lines(block, Projection(fields))
    assert projected == [{name: value[name] for name in fields if name in value} if isinstance(value, dict) else value
                         for value in whole]


def test_keys_written_with_escapes_are_found_and_names_beyond_ascii_are_not_projected(tmp_path):
    block = b'{"\\u0061": 1, "a\\"b": 2, "a\\/b": 3, "c": 4}\n'
    assert decode_json_lines(block, Projection({"a", 'a"b', "a/b"})) == [{"a": 1, 'a"b': 2, "a/b": 3}]
    with pytest.raises(ValueError):
        Projection({"é"})
    definition = events_job(tmp_path, tmp_path)
    definition["nodes"][1]["params"]["predicate"] = 'x["é"] != "scroll"'
    assert source_fields(definition) is None


def test_duplicate_keys_keep_the_last_value_as_a_whole_decode_does():
    block = b'{"a": 1, "a": 2, "b": 3}\n'
    assert decode_json_lines(block, Projection({"a"})) == [{"a": 2}] and decode_json_lines(block)[0]["a"] == 2


@pytest.mark.parametrize("source, fields", [
    ('x["kind"] != "scroll"', {"kind"}),
    ('x.user', {"user"}),
    ('{"u": x["user"], "n": x["amount"] * 2, "t": f"{x[\'ts\']}"}', {"user", "amount", "ts"}),
    ('x["a"]["b"]', {"a"}),
    ('1', set()),
    ('x', None), ('x[0]', None), ('x.get("a")', None), ('{**x, "b": 1}', None), ('len(x)', None),
    ('x[x["k"]]', None), ('x.count', None), ('not valid (', None),
])
def test_the_fields_an_expression_reads(source, fields):
    assert fields_read(source) == (None if fields is None else frozenset(fields))


def events_job(input_dir, output_dir, *, tail=None, window_extra=None, parallelism=1, interval_ms=1000,
               attempts=0, split_bytes=None) -> dict:
    """JSON events -> filter(kind) -> event time(ts) -> hash(user) -> 10 s tumbling sum(amount) -> file sink."""
    nodes = [
        {"id": "events", "type": "source.file", "params": {"path": str(input_dir), "format": "jsonl",
                                                           **({"split_bytes": split_bytes} if split_bytes else {})}},
        {"id": "no_scrolls", "type": "transform.filter", "params": {"predicate": 'x["kind"] != "scroll"'}},
        {"id": "event_time", "type": "transform.watermark",
         "params": {"timestamp": 'x["ts"]', "max_out_of_orderness_ms": 1000}},
        {"id": "per_user", "type": "window.tumbling",
         "params": {"size_ms": 10_000, "function": "sum", "value": 'x["amount"]', **(window_extra or {})}},
        {"id": "out", "type": "sink.file", "params": {"path": str(output_dir)}},
    ]
    edges = [
        {"id": "e1", "from": "events", "to": "no_scrolls"},
        {"id": "e2", "from": "no_scrolls", "to": "event_time"},
        {"id": "e3", "from": "event_time", "to": "per_user", "partitioning": "hash", "key": 'x["user"]'},
        {"id": "e4", "from": "per_user", "to": "out"},
    ]
    if tail is not None:
        nodes.append(tail["node"])
        edges.append(tail["edge"])
    return {"format": 1, "name": "projection", "mode": "streaming", "parallelism": parallelism, "max_parallelism": 128,
            "checkpointing": {"interval_ms": interval_ms, "mode": "exactly_once", "timeout_ms": 30000, "retained": 2},
            "restart": {"strategy": "fixed_delay" if attempts else "none", "attempts": attempts, "delay_ms": 5},
            "nodes": nodes, "edges": edges}


def source_fields(definition: dict):
    graph = build_job_graph(definition)
    return projected_fields(graph, graph.vertex("events"))


def test_the_events_job_reads_four_fields_of_its_records(tmp_path):
    assert source_fields(events_job(tmp_path, tmp_path)) == {"kind", "ts", "user", "amount"}


@pytest.mark.parametrize("change", [
    "sink_after_filter", "late_port", "python_node", "whole_record_map", "deduplicate", "csv", "count_window",
])
def test_whole_records_where_something_may_need_them(tmp_path, change):
    definition = events_job(tmp_path, tmp_path)
    nodes = {node["id"]: node for node in definition["nodes"]}
    if change == "sink_after_filter":
        definition["nodes"].append({"id": "raw", "type": "sink.file", "params": {"path": str(tmp_path / "raw")}})
        definition["edges"].append({"id": "e5", "from": "no_scrolls", "to": "raw"})
    elif change == "late_port":
        definition["nodes"].append({"id": "late", "type": "sink.file", "params": {"path": str(tmp_path / "late")}})
        definition["edges"].append({"id": "e5", "from": "per_user", "from_port": "late", "to": "late"})
    elif change == "python_node":
        nodes["no_scrolls"].update(type="transform.python", params={"code": "def process(x):\n    return [x]\n"})
    elif change == "whole_record_map":
        nodes["no_scrolls"].update(type="transform.map", params={"expression": '{**x, "seen": True}'})
    elif change == "deduplicate":
        nodes["no_scrolls"].update(type="transform.deduplicate", params={"ttl_ms": 1000})
    elif change == "csv":
        nodes["events"]["params"]["format"] = "csv"
    elif change == "count_window":  # its value defaults to the whole record
        nodes["per_user"].update(type="window.count", params={"size": 5, "function": "sum"})
    assert source_fields(definition) is None


def write_events(directory: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "events.jsonl").open("w") as out:
        for i in range(count):
            out.write(json.dumps({"id": i, "ts": 1_700_000_000_000 + i * 3 + rng.randrange(900),
                                  "user": f"u{rng.randrange(20)}", "kind": rng.choice(["click", "view", "scroll"]),
                                  "amount": rng.randrange(1, 100), "country": rng.choice(["DE", "FR"]),
                                  "session": f"s{rng.randrange(10**6)}", "extra": {"nested": [i, "x"]}}) + "\n")


def expected_windows(directory: Path) -> Counter:
    sums: Counter = Counter()
    for line in (directory / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["kind"] != "scroll":
            sums[(event["user"], event["ts"] - event["ts"] % 10_000 + 10_000)] += event["amount"]
    return sums


def committed(output_dir: Path) -> Counter:
    found: Counter = Counter()
    for path in glob.glob(str(output_dir / "part-*")):
        for line in Path(path).read_text().splitlines():
            user, end, total = json.loads(line)
            assert (user, end) not in found, f"window {(user, end)} written twice"
            found[(user, end)] = total
    return found


def test_projected_and_whole_decoding_give_the_same_output(tmp_path):
    write_events(tmp_path / "in", 5000)
    outputs = []
    for projection in (True, False):
        out = tmp_path / f"out-{projection}"
        result = LocalCluster(config={"projection": projection, "batch_size": 256}).run(
            events_job(tmp_path / "in", out, parallelism=2), timeout=120, checkpoint_dir=str(tmp_path / f"c{projection}"))
        assert result.status == "FINISHED", result.failure
        outputs.append(committed(out))
    assert outputs[0] == outputs[1] == expected_windows(tmp_path / "in")


def test_projected_records_arrive_exactly_once_despite_random_kills(tmp_path, monkeypatch):
    released = []  # partials held across batches (window_partials), sent before barriers and watermarks
    release = WindowPartials.release
    monkeypatch.setattr(WindowPartials, "release", lambda self, *a: released.append(release(self, *a)) or released[-1])
    seed = int(os.environ.get("KILL_SEED") or random.randrange(2**32))  # KILL_SEED: replay a failure
    write_events(tmp_path / "in", 6000, seed=seed % 1000)
    # points every subtask reaches: both sources read splits, both windows get users, every checkpoint
    # (the final one too) snapshots the windows and their sinks (a sink commits only what a window fired)
    points = [("source_poll", "events"), ("process", "per_user"), ("snapshot", "per_user"),
              ("before_ack", "per_user")]
    plan = KillPlan(seed, limit=6, parallelism=2, points=points)
    # paced: checkpoints spread over the input, so a kill planned for a window's second snapshot or
    # acknowledgement finds one (unpaced, the job can end inside one 50 ms interval: one checkpoint)
    result = LocalCluster(config={"batch_size": 64, "source_pacing": {"records_per_checkpoint": 500}}).run(
        events_job(tmp_path / "in", tmp_path / "out", parallelism=2, interval_ms=50, attempts=20, split_bytes=1 << 14),
        kill_hook=plan, timeout=180, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert result.restarts >= 1, f"seed {seed}: no kill happened (waiting for {plan.point} of {plan.vertex}#{plan.index})"
    assert committed(tmp_path / "out") == expected_windows(tmp_path / "in"), f"seed {seed}, kills {plan.kills}"
    assert any(released), "no partial was held across batches"


class Tap:
    def __init__(self):
        self.open = False


def test_a_source_decodes_whole_records_while_a_tap_of_its_chain_is_open(tmp_path):
    write_events(tmp_path / "in", 10)
    path = str(tmp_path / "in" / "events.jsonl")
    node = {"id": "events", "type": "source.file", "params": {"path": path, "format": "jsonl"}}
    source = FileSource(node, OperatorContext(task=("events", 0), node_id="events", parallelism=1,
                                              max_parallelism=8, config={}))
    tap = Tap()
    assert source.project_records(frozenset({"user", "kind"}), [tap])
    source.splits = [FileSource.assigned_split(FileSource.whole_file_split(path))]
    try:
        first = source._read_records(source.splits[0], 3)
        tap.open = True
        tapped = source._read_records(source.splits[0], 3)
        tap.open = False
        last = source._read_records(source.splits[0], 3)
    finally:
        source.close()
    assert all(set(record) == {"user", "kind"} for record in first + last)
    assert all(len(record) == 8 for record in tapped)


def join_job(input_dir, output_dir, *, output='[left["user"], left["id"], right["id"]]', parallelism=2) -> dict:
    """JSON events -> event time(ts) -> clicks / views (filters, chained into the source's task) -> hash(user)
    -> 1 s window join -> file sink: the join reads ``user`` and ``id`` of its sides, the filters ``kind``."""
    def side(kind):
        return {"id": f"{kind}s", "type": "transform.filter", "params": {"predicate": f'x["kind"] == "{kind}"'}}

    return {"format": 1, "name": "projection-join", "mode": "streaming", "parallelism": parallelism,
            "max_parallelism": 128,
            "checkpointing": {"interval_ms": 200, "mode": "exactly_once", "timeout_ms": 30000, "retained": 2},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "events", "type": "source.file", "params": {"path": str(input_dir), "format": "jsonl"}},
                      {"id": "event_time", "type": "transform.watermark",
                       "params": {"timestamp": 'x["ts"]', "max_out_of_orderness_ms": 1000}},
                      side("click"), side("view"),
                      {"id": "pairs", "type": "join.window", "params": {"size_ms": 1000, "output": output}},
                      {"id": "out", "type": "sink.file", "params": {"path": str(output_dir)}}],
            "edges": [{"id": "t", "from": "events", "to": "event_time"},
                      {"id": "c", "from": "event_time", "to": "clicks"},
                      {"id": "v", "from": "event_time", "to": "views"},
                      {"id": "cj", "from": "clicks", "to": "pairs", "partitioning": "hash", "key": 'x["user"]',
                       "side": "left"},
                      {"id": "vj", "from": "views", "to": "pairs", "partitioning": "hash", "key": 'x["user"]',
                       "side": "right"},
                      {"id": "o", "from": "pairs", "to": "out"}]}


def test_a_window_join_behind_filters_in_the_source_chain_reads_what_its_output_reads(tmp_path):
    assert source_fields(join_job(tmp_path, tmp_path)) == {"ts", "kind", "user", "id"}
    # each side only what the output reads of it (the key is the edge's)
    assert source_fields(join_job(tmp_path, tmp_path, output='[left["amount"], right["session"]]')) == {
        "ts", "kind", "user", "amount", "session"}


@pytest.mark.parametrize("change", ["whole_sides", "late_port", "unchained"])
def test_a_join_gets_whole_records_where_it_may_need_them(tmp_path, change):
    definition = join_job(tmp_path, tmp_path, output="[left, right]" if change == "whole_sides" else
                          '[left["user"], left["id"], right["id"]]')
    if change == "late_port":
        definition["nodes"].append({"id": "late", "type": "sink.file", "params": {"path": str(tmp_path / "late")}})
        definition["edges"].append({"id": "l", "from": "pairs", "from_port": "late_right", "to": "late"})
    if change == "unchained":  # the filters in tasks of their own: their input edge is a job edge into a filter
        graph = build_job_graph(definition, chain_fan_out=False)
        assert projected_fields(graph, graph.vertex("events")) is None
        return
    assert source_fields(definition) is None


def joined(output_dir: Path) -> Counter:
    return Counter(tuple(json.loads(line)) for path in glob.glob(str(output_dir / "part-*"))
                   for line in Path(path).read_text().splitlines())


def test_projected_and_whole_records_give_the_same_join_output(tmp_path):
    write_events(tmp_path / "in", 5000)
    outputs = []
    for projection in (True, False):
        out = tmp_path / f"out-{projection}"
        result = LocalCluster(config={"projection": projection, "batch_size": 256}).run(
            join_job(tmp_path / "in", out), timeout=120, checkpoint_dir=str(tmp_path / f"c{projection}"))
        assert result.status == "FINISHED", result.failure
        outputs.append(joined(out))
    events = [json.loads(line) for line in (tmp_path / "in" / "events.jsonl").read_text().splitlines()]
    windows: dict = {}
    for event in events:
        windows.setdefault((event["user"], event["ts"] // 1000), {}).setdefault(event["kind"], []).append(event)
    expected = Counter((click["user"], click["id"], view["id"])
                       for sides in windows.values() for click in sides.get("click", ()) for view in sides.get("view", ()))
    assert outputs[0] == outputs[1] == expected
    assert expected
