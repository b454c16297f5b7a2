"""Projected JSON records decoded into fields (``engine.runtime.json_fields``): the source chain's
filters, event time and window partials give exactly what the record path gives."""
from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.runtime.io.events import TimestampedBatch, Watermark
from engine.runtime.io.line_blocks import Projection, decode_json_lines
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.json_fields import FieldBatch, FieldDecoder
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.operators import OperatorContext, create_operator
from engine.runtime.operators.connectors.file_source import FileSource
from engine.runtime.operators.windows.window_partials import WindowPartials
from engine.spec.expressions import compile_fields_batch
from tests.engine.connectors.support import KillPlan
from tests.engine.runtime.test_projection import committed, events_job, expected_windows, write_events


class Channel:
    """Keeps what a writer pushes, in order."""

    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(_plain(item))


def _plain(item):
    if type(item) is TimestampedBatch:
        return ("batch", [_exact(record) for record in item], list(item.timestamps), item.watermarks)
    return ("event", item)


def _exact(value):
    """A value with its types spelled out (``1 == 1.0 == True`` would hide a wrong type)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_exact(part) for part in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def context(node_id: str) -> OperatorContext:
    return OperatorContext(task=(node_id, 0), node_id=node_id, parallelism=1, max_parallelism=8, config={})


def build_chain(tmp_path, steps: list[dict], window: dict, key: str, fields, with_fields: bool):
    """A source chain: a JSON file source, ``steps`` (filters and a watermark assigner), one writer
    that sends ``window``'s partial aggregates into a channel that keeps them."""
    source = FileSource({"id": "events", "type": "source.file", "params": {"path": str(tmp_path), "format": "jsonl"}},
                        context("events"))
    operators = [source] + [create_operator(step, context(step["id"])) for step in steps]
    channel = Channel()
    writer = RecordWriter("e", [channel], None)
    if window is not None:
        writer.pre_aggregate_with(WindowPartials(window, key))
    chain = OperatorChain(operators, {steps[-1]["id"]: [writer]})
    assert source.project_records(frozenset(fields), chain.tap_points.values())
    taken = chain.take_json_fields(frozenset(fields)) if with_fields else False
    return chain, channel, taken


plain_values = (st.sampled_from([0, 1, -1, 7, 2**53, -2**62, 2**63, 2**70, 1.0, 2.5, -0.0, True, False, None, "",
                                  "7", "scroll", [1], [], {"a": 1}]) | st.integers(-2**65, 2**65) | st.floats(-1e6, 1e6)
                | st.text(max_size=2))
likely_ints = st.integers(-50, 10_000) | st.integers(-50, 10_000) | st.integers(-50, 10_000) | plain_values
kinds = st.sampled_from(["click", "view", "scroll"]) | plain_values
users = st.sampled_from(["u1", "u2", "u3", "é", 1, 1.0, True]) | plain_values
ints = st.integers(-50, 10_000) | st.integers(-2**65, 2**65)
fields_strategies = {"kind": kinds, "ts": likely_ints, "user": users, "amount": likely_ints, "other": plain_values}
clean_event = st.fixed_dictionaries({**fields_strategies, "ts": ints, "amount": ints})  # what fits the fields path
whole_event = st.fixed_dictionaries(fields_strategies)
some_event = st.fixed_dictionaries({}, optional=fields_strategies)  # fields missing


@st.composite
def event_lines(draw):
    """The lines of one block: mostly of events that fit the fields path, else of anything."""
    if draw(st.integers(0, 2)):
        events = draw(st.lists(clean_event, max_size=30))
    else:
        events = draw(st.lists(st.one_of(*[whole_event] * 4, some_event), max_size=30))
    lines = [json.dumps(event, separators=(",", ":")).encode() for event in events]
    if lines and draw(st.integers(0, 19)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), b"")  # a blank line
    return lines


CHAINS = {
    "filter, event time": lambda ts: [
        {"id": "keep", "type": "transform.filter", "params": {"predicate": 'x["kind"] != "scroll"'}},
        {"id": "time", "type": "transform.watermark", "params": {"timestamp": ts, "max_out_of_orderness_ms": 5}}],
    "event time, filter": lambda ts: [
        {"id": "time", "type": "transform.watermark", "params": {"timestamp": ts, "max_out_of_orderness_ms": 0}},
        {"id": "keep", "type": "transform.filter", "params": {"predicate": 'x.kind == "click" or x.kind == 1'}}],
    "filter, event time, filter": lambda ts: [
        {"id": "keep", "type": "transform.filter", "params": {"predicate": 'x["kind"] != "view"'}},
        {"id": "time", "type": "transform.watermark", "params": {"timestamp": ts, "max_out_of_orderness_ms": 3}},
        {"id": "small", "type": "transform.filter", "params": {"predicate": 'x["amount"] < 5000'}}],
}


def run_batches(chain: OperatorChain, blocks: list[bytes], with_fields: bool):
    """Feed ``blocks`` as the source would; stop at the first error, returning its type."""
    head = chain.head
    projection = head.projection
    for block in blocks:
        if with_fields:
            chain.json_fields.paused = 0  # try every block (pausing has a test of its own)
        batch = chain.json_fields.decode(block, block.count(b"\n")) if with_fields else None
        try:
            head.emit(batch if batch is not None else decode_json_lines(block, projection))
        except Exception as error:  # the record path raises it; the fields path must raise the same
            return type(error).__name__
    return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(event_lines(), min_size=1, max_size=5), shape=st.sampled_from(sorted(CHAINS)),
       timestamp=st.sampled_from(['x["ts"]', 'x["ts"] + 1']),
       function=st.sampled_from(["sum", "sum", "count", "min", "max"]),
       value=st.sampled_from(['x["amount"]', 'x.amount * 2']), size=st.sampled_from([1, 7, 100, 10_000]),
       sliding=st.booleans(), key=st.sampled_from(['x["user"]', 'x.user']))
def test_the_fields_path_gives_exactly_the_record_paths_output(tmp_path, blocks, shape, timestamp, function, value,
                                                              size, sliding, key):
    steps = CHAINS[shape](timestamp)
    window = {"id": "per_user", "type": "window.sliding" if sliding else "window.tumbling",
              "params": {"size_ms": size, "function": function, "value": value,
                         **({"slide_ms": max(1, size // 3)} if sliding else {})}}
    fields = {"kind", "ts", "user"} | ({"amount"} if function != "count" or "amount" in str(steps) else set())
    data = [b"".join(line + b"\n" for line in lines) for lines in blocks if lines]
    outputs = []
    for with_fields in (False, True):
        chain, channel, taken = build_chain(tmp_path, steps, window, key, fields, with_fields)
        assert taken == with_fields
        error = run_batches(chain, data, with_fields)
        chain.flush_outputs()
        counters = [(c.records_out, c.side_records_out, c.watermark_out) for c in chain.counters[1:]]
        outputs.append((channel.items, counters, error))
    assert outputs[1] == outputs[0]


def test_a_batch_that_does_not_fit_takes_the_record_path_and_the_next_ones_too(tmp_path):
    steps = CHAINS["filter, event time"]('x["ts"]')
    window = {"id": "w", "type": "window.tumbling", "params": {"size_ms": 10, "function": "sum", "value": 'x["amount"]'}}
    chain, channel, taken = build_chain(tmp_path, steps, window, 'x["user"]', {"kind", "ts", "user", "amount"}, True)
    assert taken
    decoder = chain.json_fields
    fitting = b'{"kind":"click","ts":5,"user":"a","amount":2}\n{"kind":"view","ts":12,"user":"b","amount":3}\n'
    batch = decoder.decode(fitting)
    assert type(batch) is FieldBatch and len(batch) == 2 and batch.records() == decode_json_lines(fitting,
                                                                                                   batch.projection)
    assert decoder.decode(b'{"kind":"click","ts":5.0,"user":"a","amount":2}\n') is None  # event time not an int
    assert decoder.paused == 64 and decoder.decode(fitting) is None and decoder.paused == 63
    decoder.paused = 0
    assert decoder.decode(b'{"kind":"click","ts":5,"user":"a"}\n') is None  # a field missing
    decoder.paused = 0
    with pytest.raises(TypeError):  # a key that cannot be a dict's key, as on the record path
        chain.head.emit(decoder.decode(b'{"kind":"click","ts":5,"user":[1],"amount":2}\n'))
    assert decoder.fell_back == 3 and decoder.paused == 64 and channel.items == []


def test_an_expression_that_raises_raises_from_its_operator_as_on_the_record_path(tmp_path):
    steps = [{"id": "keep", "type": "transform.filter", "params": {"predicate": 'x["kind"] > 3'}},
             {"id": "time", "type": "transform.watermark", "params": {"timestamp": 'x["ts"]'}}]
    window = {"id": "w", "type": "window.tumbling", "params": {"size_ms": 10, "function": "count"}}
    chain, _channel, taken = build_chain(tmp_path, steps, window, 'x["user"]', {"kind", "ts", "user"}, True)
    assert taken
    with pytest.raises(TypeError) as raised:
        chain.head.emit(chain.json_fields.decode(b'{"kind":"click","ts":5,"user":"a"}\n'))
    frames = [(entry.frame.code.raw.co_filename, entry.frame.code.raw.co_name) for entry in raised.traceback]
    assert frames[-1][0] == '<expression: x["kind"] > 3>' and frames[-3][1] == "process_batch"  # the filter's


@pytest.mark.parametrize("change", ["whole_value", "idleness", "map_in_chain", "two_watermarks", "no_partials"])
def test_chains_the_fields_path_does_not_cover_keep_the_record_path(tmp_path, change):
    steps = CHAINS["filter, event time"]('x["ts"]')
    window = {"id": "w", "type": "window.tumbling", "params": {"size_ms": 10, "function": "sum", "value": 'x["amount"]'}}
    if change == "whole_value":
        window["params"]["value"] = "x"
    elif change == "idleness":
        steps[1]["params"]["idle_timeout_ms"] = 1000
    elif change == "map_in_chain":
        steps.insert(1, {"id": "m", "type": "transform.map", "params": {"expression": '{"ts": x["ts"]}'}})
    elif change == "two_watermarks":
        steps.append({"id": "again", "type": "transform.watermark", "params": {"timestamp": 'x["ts"]'}})
    elif change == "no_partials":
        window = None
    _chain, _channel, taken = build_chain(tmp_path, steps, window, 'x["user"]', {"kind", "ts", "user", "amount"}, True)
    assert not taken


def test_field_reads_compile_to_attribute_reads_and_anything_else_does_not():
    attributes = {"user": "_field0", "ts": "_field1"}
    assert compile_fields_batch('x["user"]', attributes) is not None
    assert compile_fields_batch('x.user.lower()', attributes) is not None
    assert compile_fields_batch('x["ts"] % 7 + len(x["user"])', attributes) is not None
    for whole in ('x', 'x["other"]', 'x.get("user")', '[x, 1]'):
        assert compile_fields_batch(whole, attributes) is None, whole


def test_the_events_job_on_fields_gives_the_record_paths_output(tmp_path, monkeypatch):
    write_events(tmp_path / "in", 5000)
    decoded = []
    original = FieldDecoder.decode
    monkeypatch.setattr(FieldDecoder, "decode", lambda self, *block: decoded.append(original(self, *block)) or decoded[-1])
    outputs = []
    for with_fields in (True, False):
        out = tmp_path / f"out-{with_fields}"
        result = LocalCluster(config={"json_fields": with_fields, "batch_size": 256}).run(
            events_job(tmp_path / "in", out, parallelism=2), timeout=120, checkpoint_dir=str(tmp_path / f"c{with_fields}"))
        assert result.status == "FINISHED", result.failure
        outputs.append(committed(out))
        if with_fields:
            assert sum(len(batch) for batch in decoded if batch is not None) == 5000  # every record on fields
    assert outputs[0] == outputs[1] == expected_windows(tmp_path / "in")


def test_records_on_fields_arrive_exactly_once_despite_random_kills(tmp_path, monkeypatch):
    released = []  # partials held across batches (window_partials), sent before barriers and watermarks
    release = WindowPartials.release
    monkeypatch.setattr(WindowPartials, "release", lambda self, *a: released.append(release(self, *a)) or released[-1])
    seed = random.randrange(2**32)
    write_events(tmp_path / "in", 6000, seed=seed % 1000)
    decoded = []
    original = FieldDecoder.decode
    monkeypatch.setattr(FieldDecoder, "decode", lambda self, *block: decoded.append(original(self, *block)) or decoded[-1])
    points = [("source_poll", "events"), ("process", "per_user"), ("snapshot", "per_user"), ("before_ack", "per_user")]
    plan = KillPlan(seed, limit=6, parallelism=2, points=points)
    # paced: checkpoints spread over the input, so the planned kills at snapshots find some (the job
    # takes well under the interval otherwise)
    result = LocalCluster(config={"batch_size": 64, "source_pacing": {"records_per_checkpoint": 500}}).run(
        events_job(tmp_path / "in", tmp_path / "out", parallelism=2, interval_ms=50, attempts=20, split_bytes=1 << 14),
        kill_hook=plan, timeout=180, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert result.restarts >= 1, f"seed {seed}: no kill happened"
    assert any(batch is not None for batch in decoded), "the fields path never ran"
    assert committed(tmp_path / "out") == expected_windows(tmp_path / "in"), f"seed {seed}, kills {plan.kills}"
    assert any(released), "no partial was held across batches"


def test_partials_wait_for_the_watermark_that_closes_their_window_and_go_before_it(tmp_path):
    steps = CHAINS["filter, event time"]('x["ts"]')
    window = {"id": "w", "type": "window.tumbling", "params": {"size_ms": 10, "function": "sum", "value": 'x["amount"]'}}
    chain, channel, _ = build_chain(tmp_path, steps, window, 'x["user"]', {"kind", "ts", "user", "amount"}, True)
    chain.head.emit(chain.json_fields.decode(
        b'{"kind":"click","ts":5,"user":"a","amount":2}\n{"kind":"view","ts":12,"user":"b","amount":3}\n'
        b'{"kind":"scroll","ts":40,"user":"b","amount":3}\n{"kind":"view","ts":8,"user":"a","amount":4}\n'))
    assert channel.items == [("event", Watermark(12 - 5 - 1))]  # windows 10 and 20 are open: held
    chain.head.emit(chain.json_fields.decode(b'{"kind":"click","ts":30,"user":"c","amount":1}\n'))
    assert channel.items[1:] == [
        ("batch", [_exact(["a", 10, 6, 2]), _exact(["b", 20, 3, 1])], [9, 19], None),
        ("event", Watermark(30 - 5 - 1)),  # closes both; window 40 (c's) stays held
    ]


def line_by_line(decoder: FieldDecoder, block: bytes):
    """What decoding each line alone gives (None: a line does not fit)."""
    decoder.paused = 0
    lines = block.split(b"\n")
    if not lines[-1]:
        lines.pop()
    try:
        return [decoder._decode(line) for line in lines]
    except Exception:
        return None


fragments = st.sampled_from([b'{"a":1,"t":2}', b'{"a":"}{","t":3}', b'{"a":[{},', b'{}],"t":4}', b'{"a":', b'5,"t":6}',
                             b'{"a":{"b":[1,', b'2]},"t":7}', b' ', b'\t', b'\r', b'', b'{"t":8,"a":null} ',
                             b'{"a":"x"}', b'[1]', b'{"a":1,"t":2.5}'])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.lists(fragments, min_size=1, max_size=3).map(b"".join), min_size=1, max_size=8),
       final_break=st.booleans())
def test_a_block_decoded_in_one_call_is_its_lines_decoded_alone(lines, final_break):
    decoder = FieldDecoder({"a", "t"}, {"t"}, Projection({"a", "t"}))
    block = b"\n".join(lines) + (b"\n" if final_break else b"")
    alone = line_by_line(decoder, block)
    decoder.paused = 0
    batch = decoder.decode(block, len(lines))
    if alone is None:
        assert batch is None
    else:
        assert batch is not None and batch.rows == alone


def test_two_objects_on_a_line_and_one_across_two_lines_are_not_taken_for_two_lines():
    decoder = FieldDecoder({"a", "t"}, {"t"}, Projection({"a", "t"}))
    block = b'{"a":[{},\n{}],"t":1}\n{"a":1,"t":2} {"a":2,"t":3}\n'  # three objects, three lines
    assert decoder._decode_lines(block) and len(decoder._decode_lines(block)) == 3
    assert decoder._decode_block(block, 3) is None and decoder.decode(block, 3) is None  # line 1 alone is no object
    fine = b'{"a":"}{","t":1}\n{"a":[{}],"t":2}\n'
    assert decoder._decode_block(fine, 2) is None  # "}{" in a string: line by line, same objects
    decoder.paused = 0
    assert decoder.decode(fine, 2).rows == line_by_line(decoder, fine)
    compact = b'{"a":{"b":1},"t":1}\n{"a":[{}],"t":2}'
    assert decoder._decode_block(compact, 2) == line_by_line(decoder, compact)
