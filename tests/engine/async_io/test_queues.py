"""The ordered and unordered queues against a plain reference model, over random programs."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.io.events import Watermark
from engine.runtime.operators.async_io.queues import OrderedQueue, RecordEntry, UnorderedQueue
from tests.engine.async_io.support import ModelQueue


def emitted(entries) -> list[tuple]:
    return [("w", e.watermark.timestamp) if e.is_watermark else ("r", e.value) for e in entries]


def test_ordered_queue_waits_for_the_head():
    queue = OrderedQueue()
    a, b = RecordEntry("a"), RecordEntry("b")
    queue.add_record(a)
    queue.add_watermark(Watermark(5))
    queue.add_record(b)
    queue.complete(b)
    assert queue.pop_emittable() == [] and queue.records == 2
    queue.complete(a)
    assert emitted(queue.pop_emittable()) == [("r", "a"), ("w", 5), ("r", "b")]
    assert queue.is_empty() and queue.records == 0


def test_unordered_queue_emits_as_completed_within_the_first_segment_only():
    queue = UnorderedQueue()
    a, b, c, d = (RecordEntry(v) for v in "abcd")
    queue.add_record(a)
    queue.add_record(b)
    queue.add_watermark(Watermark(10))
    queue.add_record(c)
    queue.add_record(d)
    queue.complete(d)  # second segment: must wait for the watermark
    queue.complete(b)
    assert emitted(queue.pop_emittable()) == [("r", "b")]
    queue.complete(a)
    assert emitted(queue.pop_emittable()) == [("r", "a"), ("w", 10), ("r", "d")]
    assert [e.value for e in queue] == ["c"] and queue.records == 1


def test_a_watermark_right_behind_another_replaces_it():
    for queue in (OrderedQueue(), UnorderedQueue()):
        slow = RecordEntry("slow")
        queue.add_record(slow)
        for timestamp in (1, 2, 3):
            queue.add_watermark(Watermark(timestamp))
        queue.complete(slow)
        assert emitted(queue.pop_emittable()) == [("r", "slow"), ("w", 3)]


def test_snapshot_order_is_input_order_with_watermarks_in_place():
    queue = UnorderedQueue()
    entries = [RecordEntry(v) for v in range(5)]
    for entry in entries[:3]:
        queue.add_record(entry)
    queue.add_watermark(Watermark(7))
    for entry in entries[3:]:
        queue.add_record(entry)
    queue.complete(entries[2])
    queue.complete(entries[4])
    queue.complete(entries[0])
    assert emitted(queue.pop_emittable()) == [("r", 2), ("r", 0)]
    assert emitted(list(queue)) == [("r", 1), ("w", 7), ("r", 3), ("r", 4)]


# A program is a list of steps: add a record, add a watermark, complete the k-th record
# still in flight (modulo their number), or pop what is emittable. At the end everything
# completes in a random order.
steps = st.lists(st.one_of(st.just(("record",)), st.just(("watermark",)),
                           st.tuples(st.just("complete"), st.integers(0, 50)), st.just(("pop",))),
                 max_size=60)


@settings(max_examples=300, deadline=None)
@given(program=steps, final_order=st.randoms(use_true_random=False), ordered=st.booleans())
def test_queues_emit_exactly_what_the_model_emits(program, final_order, ordered):
    queue = OrderedQueue() if ordered else UnorderedQueue()
    model = ModelQueue(ordered)
    in_flight: list[RecordEntry] = []
    out, expected = [], []
    next_id = watermark = 0

    def complete(entry):
        in_flight.remove(entry)
        queue.complete(entry)
        model.complete(entry.value)

    for step in program:
        if step[0] == "record":
            entry = RecordEntry(next_id)
            next_id += 1
            in_flight.append(entry)
            queue.add_record(entry)
            model.add_record(entry.value)
        elif step[0] == "watermark":
            watermark += 1
            queue.add_watermark(Watermark(watermark))
            model.add_watermark(watermark)
        elif step[0] == "complete" and in_flight:
            complete(in_flight[step[1] % len(in_flight)])
        else:
            out += emitted(queue.pop_emittable())
            expected += model.pop()
        assert queue.records == sum(1 for item in model.waiting if item[0] == "r")
    final_order.shuffle(in_flight)
    for entry in list(in_flight):
        complete(entry)
        out += emitted(queue.pop_emittable())
        expected += model.pop()
    out += emitted(queue.pop_emittable())
    expected += model.pop()
    assert out == expected
    assert queue.is_empty() and not model.waiting
    records = [item[1] for item in out if item[0] == "r"]
    assert sorted(records) == list(range(next_id))  # each exactly once
    if ordered:
        assert records == list(range(next_id))
