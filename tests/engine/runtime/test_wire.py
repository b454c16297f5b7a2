"""Record buffers between slot processes as msgpack (``engine.runtime.io.wire``): every record
arrives once and exactly as sent, types included -- through the codec, through a pair of TCP
networks, and through a job's hash exchange in process (TCP channels) and on Spark."""
from __future__ import annotations

import datetime
import decimal
import math
import pickle
import time
from collections import Counter, OrderedDict

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.plan.channels import ChannelId
from engine.runtime.io.events import END_OF_PARTITION, TimestampedBatch, Watermark
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.wire import (
    RECORDS_FRAME,
    RETRY_AFTER,
    TIMED_FRAME,
    BufferEncoder,
    decode,
)
from tests.support import connected_networks


def typed(value) -> str:
    """``value`` spelled with the exact type of every part (a NaN equal to a NaN, -0.0 not to 0.0)."""
    kind = type(value)
    if isinstance(value, dict):
        return f"{kind.__name__}{{" + ",".join(f"{typed(k)}:{typed(v)}" for k, v in value.items()) + "}"
    if kind in (list, tuple, TimestampedBatch):
        return f"{kind.__name__}[" + ",".join(typed(item) for item in value) + "]"
    if kind in (set, frozenset):
        return f"{kind.__name__}{{" + ",".join(sorted(typed(item) for item in value)) + "}"
    if kind is float:
        return "float:" + ("nan" if math.isnan(value) else repr(value))
    return f"{kind.__module__}.{kind.__qualname__}:{value!r}"


def has_lone_surrogate(value) -> bool:
    """Whether a string in ``value`` holds a lone surrogate (which UTF-8, so msgpack, cannot carry)."""
    if type(value) is str:
        return any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    if type(value) is dict:
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    if type(value) is list:
        return any(has_lone_surrogate(item) for item in value)
    return False


def across(buffer, encoder=None):
    """``buffer`` as the receiving slot gets it: msgpack when the encoder takes it, else pickle."""
    frame = (encoder or BufferEncoder()).encode(buffer)
    if frame is None:
        return pickle.loads(pickle.dumps(buffer, protocol=5))
    return decode(*frame)


def assert_same(received, sent) -> None:
    assert typed(received) == typed(sent)
    if type(sent) is TimestampedBatch:
        assert received.timestamps == sent.timestamps and type(received.timestamps) is list
        assert [(p, type(w), w.timestamp) for p, w in received.watermarks or []] == \
            [(p, type(w), w.timestamp) for p, w in sent.watermarks or []]
        assert (received.watermarks is None) == (sent.watermarks is None)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=True) | st.text()
    | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5) | st.integers(-5, 5) | st.binary(max_size=3) | st.none(), inner,
                      max_size=4),
    max_leaves=8)
"""Values msgpack carries exactly (``st.text`` includes lone surrogates, which it refuses)."""

any_value = st.recursive(
    json_like | st.integers(-2**80, 2**80) | st.datetimes() | st.decimals(allow_nan=False)
    | st.dates() | st.frozensets(st.integers(), max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.tuples(st.integers(), st.integers()), inner, max_size=3)
    | st.builds(OrderedDict, st.dictionaries(st.text(max_size=3), inner, max_size=2)),
    max_leaves=6)


@settings(max_examples=100, deadline=None)
@given(st.lists(any_value, max_size=6))
def test_any_buffer_arrives_exactly_as_sent(records):
    assert_same(across(records), records)


@settings(max_examples=100, deadline=None)
@given(st.lists(json_like, max_size=8))
def test_a_buffer_of_json_like_records_goes_as_msgpack_and_arrives_exactly(records):
    encoder = BufferEncoder()
    frame = encoder.encode(records)
    if not has_lone_surrogate(records):
        assert frame is not None and frame[0] == RECORDS_FRAME
    assert_same(across(records), records)


@settings(max_examples=60, deadline=None)
@given(st.lists(json_like, max_size=8), st.booleans(), st.lists(st.integers(0, 8), max_size=3))
def test_a_timestamped_batch_keeps_its_event_times_and_inline_watermarks(records, with_marks, positions):
    stamps = [1_700_000_000_000 + index for index in range(len(records))]
    marks = [(min(p, len(records)), Watermark(1_700_000_000_000 + p)) for p in sorted(positions)] if with_marks else None
    batch = TimestampedBatch(records, stamps, marks)
    received = across(batch)
    assert type(received) is TimestampedBatch
    assert_same(received, batch)


def test_inexact_values_send_their_buffer_pickled_and_the_channel_retries_later():
    encoder = BufferEncoder()
    cases = [[(1, 2)], [{1, 2}], [OrderedDict(a=1)], [2**64], [-2**63 - 1], ["\ud800"],
             [datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)], [decimal.Decimal("1.5")],
             [{("a", 1): 1}], [True, 1, 1.0, "x", b"x", None, {"ok": [1]}, (1,)]]
    for case in cases:
        assert BufferEncoder().encode(case) is None, case
        assert_same(across(case), case)
    assert encoder.encode([(1, 2)]) is None and encoder.refused == 1
    assert all(encoder.encode([1]) is None for _ in range(RETRY_AFTER)), "skipped: sent pickled"
    assert encoder.encode([1]) == (RECORDS_FRAME, b"\x91\x01") and encoder.packed == 1


def test_bytes_likes_arrive_as_bytes():
    """The one inexact case, documented: msgpack packs a bytearray or memoryview as bytes."""
    received = across([bytearray(b"ab"), memoryview(b"cd"), b"ef"])
    assert received == [b"ab", b"cd", b"ef"] and {type(value) for value in received} == {bytes}


def test_timed_frames_carry_batches_with_and_without_watermarks():
    for marks in (None, [], [(0, Watermark(5)), (1, Watermark(2**63 - 1))]):
        batch = TimestampedBatch([{"a": 1}], [7], marks)
        kind, body = BufferEncoder().encode(batch)
        assert kind == TIMED_FRAME
        assert_same(decode(kind, body), batch)


def test_records_cross_a_tcp_connection_once_each_as_msgpack_or_pickled():
    buffers = [[{"id": i, "s": "é" * i, "f": i / 3, "b": bytes([i % 256]), "none": None, "l": [i, [True]]}
                for i in range(n, n + 50)] for n in range(0, 500, 50)]
    buffers.append([("tuple", 1), {"when": datetime.date(2026, 11, 27)}])
    buffers.append(TimestampedBatch([{"id": -1}], [5], [(1, Watermark(5))]))
    with connected_networks(capacity=4) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = networks[0].output_channel(channel_id)
        gate = InputGate([networks[1].input_channel(channel_id)])
        for buffer in buffers:
            output.push(buffer)
        output.push(END_OF_PARTITION)
        received = []
        deadline = time.monotonic() + 10
        while len(received) < len(buffers) + 1 and time.monotonic() < deadline:
            polled = gate.poll_next()
            if polled is None:
                time.sleep(0.001)
                continue
            received.append(polled[1])
        assert received[-1] == END_OF_PARTITION
        for got, sent in zip(received[:-1], buffers, strict=True):
            assert_same(got, sent)
        assert output.encoder.packed == 10 and output.encoder.refused == 1


RECORDS_CODE = """
import datetime, decimal

def process(records):
    out = []
    for x in records:
        if x < HALF:
            out.append({"n": x, "i": -x * 10**12, "f": x / 3, "s": "é" * (x % 3) + str(x), "none": None,
                        "bytes": bytes([x % 256]), "nested": {"l": [x, [None, True, {"k": 1.5}]], 7: "int key"},
                        "ts": 1_700_000_000_000 + x})
        else:
            out.append({"n": x, "tuple": (x, "a"), "big": 2**70 + x, "d": decimal.Decimal(x) / 4,
                        "ts": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
                        + datetime.timedelta(milliseconds=x)})
    return out
"""
TYPED_CODE = '''
import math

def typed(value):
    kind = type(value)
    if kind is dict:
        return "dict{" + ",".join(typed(k) + ":" + typed(v) for k, v in value.items()) + "}"
    if kind in (list, tuple):
        return kind.__name__ + "[" + ",".join(typed(item) for item in value) + "]"
    return kind.__module__ + "." + kind.__qualname__ + ":" + repr(value)

def process(records):
    return [typed(record) for record in records]
'''


def typed_records_job(count: int) -> dict:
    return {
        "format": 1, "name": "wire", "parallelism": 2, "max_parallelism": 16,
        "checkpointing": {"interval_ms": 200}, "restart": {"strategy": "none"},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count}},
                  {"id": "make", "type": "transform.python",
                   "params": {"code": RECORDS_CODE.replace("HALF", str(count // 2))}},
                  {"id": "time", "type": "transform.watermark", "params": {"timestamp": 'x["n"]'}},
                  {"id": "describe", "type": "transform.python", "params": {"code": TYPED_CODE}},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 10 * count}}],
        "edges": [{"id": "m", "from": "gen", "to": "make"}, {"id": "t", "from": "make", "to": "time"},
                  {"id": "h", "from": "time", "to": "describe", "partitioning": "hash", "key": 'x["n"] % 7'},
                  {"id": "o", "from": "describe", "to": "out"}]}


def test_every_record_crosses_a_hash_exchange_once_with_its_types(deployment, tmp_path):
    """In process over TCP channels and on Spark (slots in processes of their own): records with
    event times through a hash edge at parallelism 2, half of them msgpack-exact, half not."""
    count = 2000
    if deployment.id == "inprocess":
        deployment = deployment.configured({"network": "tcp"})
    result = deployment.run(typed_records_job(count), checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    make: dict = {}
    describe: dict = {}
    exec(RECORDS_CODE.replace("HALF", str(count // 2)), make)  # noqa: S102 -- the nodes' own code, run here too
    exec(TYPED_CODE, describe)  # noqa: S102
    expected = Counter(describe["process"](make["process"](list(range(count)))))
    assert Counter(result.collected["out"]) == expected
