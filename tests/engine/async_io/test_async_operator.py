"""The async operator against a fake HTTP service: order, watermarks, timeouts, retries, capacity.

Each test drives one ``lookup.http`` operator in the test thread (the harness plays the
subtask's mailbox thread) against :class:`FakeService`, which holds, delays or fails
answers as the test says. Nothing here sleeps: the harness runs mails until a condition
holds, and timing is only checked as lower bounds the service measured (retry delays).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.runtime.io.events import TimestampedBatch, Watermark
from engine.runtime.operators.async_io import (AsyncCallFailed, AsyncCallTimeout, AsyncFunctionOperator,
                                               AsyncWaitInterrupted)
from engine.runtime.operators.async_io.event_loop import TaskEventLoop
from engine.runtime.operators.connectors.lookup_http import HttpLookupOperator
from tests.engine.async_io.support import ModelQueue, OperatorHarness


@pytest.fixture
def harnesses():
    opened = []

    def make(service, **params):
        harness = OperatorHarness(HttpLookupOperator, {"url": service.url(), "field": "v", **params})
        opened.append(harness)
        return harness

    yield make
    for harness in opened:
        harness.close()


def values(records) -> list:
    """The input records of ``[x, answer]`` outputs."""
    return [x for x, _ in records]


# -- order -----------------------------------------------------------------------------------

# An input is a list of records and watermarks; a schedule says in which order the service
# answers the records. Records are fed in batches (runs between watermarks), then answers
# are released one at a time, each awaited, so the order of completions is the schedule.
inputs = st.lists(st.one_of(st.just("r"), st.just("w")), min_size=1, max_size=10)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=inputs, schedule=st.randoms(use_true_random=False), ordered=st.booleans())
def test_emission_order_for_any_completion_order(service, shape, schedule, ordered):
    service.reset()
    service.hold_all()
    harness = OperatorHarness(HttpLookupOperator, {"url": service.url(), "capacity": 20,
                                                   "output_mode": "ordered" if ordered else "unordered"})
    try:
        model = ModelQueue(ordered)
        expected: list = []
        batch: list = []
        record_ids = []
        for position, kind in enumerate(shape + ["end"]):
            if kind == "r":
                batch.append(position)
                record_ids.append(position)
                model.add_record(position)
                continue
            if batch:
                harness.operator.process_batch(batch)
                batch = []
            if kind == "w":
                harness.operator.process_watermark(Watermark(position))
                model.add_watermark(position)
                expected += model.pop()
        schedule.shuffle(record_ids)
        for count, record_id in enumerate(record_ids, 1):
            service.release(record_id)
            harness.completed(count)
            model.complete(record_id)
            expected += model.pop()
        got = [("w", item.timestamp) if isinstance(item, Watermark) else ("r", item[0]) for item in harness.out]
        assert got == expected
        if ordered:
            assert values(harness.records) == sorted(values(harness.records))
        assert harness.operator.in_flight == 0 and harness.operator.queue.is_empty()
    finally:
        harness.close()


def test_unordered_mode_emits_a_fast_record_before_a_slow_one_but_never_across_a_watermark(service, harnesses):
    service.hold("slow", "late")
    harness = harnesses(service, output_mode="unordered")
    harness.operator.process_batch(["slow", "fast"])
    harness.operator.process_watermark(Watermark(100))
    harness.operator.process_batch(["after"])
    harness.completed(2)
    assert values(harness.records) == ["fast"]  # "after" completed too, but behind the watermark
    service.release("slow")
    harness.completed(3)
    assert [x if isinstance(x, Watermark) else x[0] for x in harness.out] == \
        ["fast", "slow", Watermark(100), "after"]


def test_event_times_travel_with_their_records(service, harnesses):
    harness = harnesses(service)
    harness.operator.process_batch(TimestampedBatch([1, 2, 3], [10, 20, 30]))
    harness.completed(3)
    assert values(harness.records) == [1, 2, 3]
    stamps = [t for batch in harness.batches for t in batch.timestamps]
    assert all(type(batch) is TimestampedBatch for batch in harness.batches) and stamps == [10, 20, 30]


def test_lookup_output_enriches_dict_records_and_pairs_others(service, harnesses):
    harness = OperatorHarness(HttpLookupOperator, {"url": service.url("x['user']"), "field": "profile",
                                                   "method": "POST", "body": '{"id": x["user"]}'})
    try:
        harness.operator.process_batch([{"user": 7, "n": 1}])
        harness.completed(1)
        [record] = harness.records
        assert record["user"] == 7 and record["n"] == 1
        assert record["profile"]["value"] == "v-7" and record["profile"]["body"] == {"id": 7}
    finally:
        harness.close()


# -- capacity and backpressure -----------------------------------------------------------------

@pytest.mark.parametrize("mode", ["ordered", "unordered"])
def test_never_more_than_capacity_in_flight_and_the_queue_fills_up(service, harnesses, mode):
    service.gate = 5  # answers wait until 5 requests are waiting: reaching 6 would need a 6th call
    harness = harnesses(service, capacity=5, output_mode=mode)
    harness.operator.process_batch(list(range(40)))  # returns once all are admitted: yields meanwhile
    harness.completed(40)
    assert sorted(values(harness.records)) == list(range(40))
    assert service.max_in_flight == 5
    assert harness.operator.counters["max_in_flight"] == 5


def test_capacity_one_calls_strictly_one_after_another(service, harnesses):
    service.latency_s = 0.002
    harness = harnesses(service, capacity=1, output_mode="unordered")
    harness.operator.process_batch(list(range(10)))
    harness.completed(10)
    assert values(harness.records) == list(range(10)) and service.max_in_flight == 1


def test_mails_keep_running_while_the_operator_waits_for_room(service, harnesses):
    """A checkpoint taken while a batch is half admitted holds the other half too."""
    service.hold_all()
    harness = harnesses(service, capacity=2)
    snapshots = []

    def checkpoint_then_answer():
        snapshots.append(harness.snapshot())
        service.reset()  # answers everything from now on

    harness.executor.execute(checkpoint_then_answer, "checkpoint")
    harness.operator.process_batch([0, 1, 2, 3, 4, 5])
    harness.completed(6)
    assert snapshots == [{"in_flight": [("r", x, None) for x in range(6)]}]
    assert values(harness.records) == list(range(6))


def test_a_canceled_subtask_stops_waiting_for_room(service, harnesses):
    service.hold_all()
    harness = harnesses(service, capacity=1)
    harness.processor.stop()  # the cancel's control mail
    with pytest.raises(AsyncWaitInterrupted):
        harness.operator.process_batch([1, 2])


def test_finish_waits_until_everything_is_emitted(service, harnesses):
    service.latency_s = 0.005
    harness = harnesses(service, capacity=4, output_mode="unordered")
    harness.operator.process_batch(list(range(10)))
    harness.operator.process_watermark(Watermark(9))
    harness.finish()
    assert sorted(values(harness.records)) == list(range(10)) and harness.out[-1] == Watermark(9)


# -- timeouts ------------------------------------------------------------------------------------

def test_a_timeout_fails_the_subtask_by_default(service, harnesses):
    service.hold("stuck")
    harness = harnesses(service, timeout_ms=50)
    harness.operator.process_batch(["stuck"])
    with pytest.raises(AsyncCallTimeout, match="'stuck'.*within 50 ms"):
        harness.run_until(lambda: False, what="the timeout")


@pytest.mark.parametrize("policy, expected", [("drop", ["a", "b"]), ("default", ["a", "stuck", "b"])])
def test_a_timeout_drops_or_defaults_with_a_counter(service, harnesses, policy, expected):
    service.hold("stuck")  # the others answer at once: a generous timeout keeps them in time on a busy machine
    harness = harnesses(service, timeout_ms=300, on_timeout=policy, default_value="n/a")
    harness.operator.process_batch(["a", "stuck", "b"])
    harness.completed(3)
    assert values(harness.records) == expected
    if policy == "default":
        assert harness.records[1] == ["stuck", "n/a"]
    counters = harness.operator.metrics()["async"]["async"]
    assert counters["timeouts"] == 1 and counters["dropped" if policy == "drop" else "defaulted"] == 1


def test_the_timeout_covers_all_attempts(service, harnesses):
    service.fail("flaky", 1000)
    harness = harnesses(service, timeout_ms=150, retry="fixed_delay", retry_delay_ms=20, retry_max_attempts=1000,
                        on_timeout="drop")
    harness.operator.process_batch(["flaky"])
    harness.completed(1)
    counters = harness.operator.counters
    assert counters["timeouts"] == 1 and counters["errors"] == 0 and counters["retries"] >= 1
    assert len(service.requests_for("flaky")) >= 2


# -- retries -------------------------------------------------------------------------------------

def gaps(times: list[float]) -> list[float]:
    return [later - earlier for earlier, later in zip(times, times[1:])]


def test_fixed_delay_retries_errors_and_waits_between_attempts(service, harnesses):
    service.fail("k", 2)
    harness = harnesses(service, retry="fixed_delay", retry_delay_ms=40, retry_max_attempts=3)
    harness.operator.process_batch(["k"])
    harness.completed(1)
    assert harness.records[0][1]["attempt"] == 3 and harness.operator.counters["retries"] == 2
    assert all(gap >= 0.040 - 0.001 for gap in gaps(service.requests_for("k")))


def test_exponential_backoff_multiplies_the_delay_up_to_its_maximum(service, harnesses):
    service.fail("k", 4)
    harness = harnesses(service, retry="exponential_backoff", retry_delay_ms=20, retry_multiplier=3,
                        retry_max_delay_ms=100, retry_max_attempts=5)
    harness.operator.process_batch(["k"])
    harness.completed(1)
    assert harness.records[0][1]["attempt"] == 5
    measured = gaps(service.requests_for("k"))
    assert len(measured) == 4
    for gap, delay in zip(measured, [0.020, 0.060, 0.100, 0.100]):
        assert gap >= delay - 0.001, measured


def test_retry_on_a_result_predicate_then_emit_the_last_result(service, harnesses):
    service.miss("found-late", 2)
    service.miss("never", 100)
    harness = harnesses(service, retry="fixed_delay", retry_delay_ms=5, retry_max_attempts=3,
                        retry_if="x[1] is None")
    harness.operator.process_batch(["found-late", "never"])
    harness.completed(2)
    late, never = harness.records
    assert late[1]["attempt"] == 3 and never == ["never", None]
    assert len(service.requests_for("never")) == 3


@pytest.mark.parametrize("policy", ["fail", "drop", "default"])
def test_errors_after_the_last_attempt_follow_on_error(service, harnesses, policy):
    service.fail("bad", 100)
    harness = harnesses(service, retry="fixed_delay", retry_delay_ms=1, retry_max_attempts=2, on_error=policy)
    harness.operator.process_batch(["ok", "bad"])
    if policy == "fail":
        with pytest.raises(AsyncCallFailed, match="after 2 attempt.*HTTP 500"):
            harness.completed(2)
        return
    harness.completed(2)
    assert values(harness.records) == (["ok"] if policy == "drop" else ["ok", "bad"])
    assert harness.operator.counters["errors"] == 1 and len(service.requests_for("bad")) == 2


def test_no_retry_on_errors_when_switched_off(service, harnesses):
    service.fail("bad", 1)
    harness = harnesses(service, retry="fixed_delay", retry_on_error=False, on_error="drop")
    harness.operator.process_batch(["bad"])
    harness.completed(1)
    assert len(service.requests_for("bad")) == 1 and harness.operator.counters["dropped"] == 1


# -- snapshot, kill, restore -----------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["ordered", "unordered"])
def test_snapshot_mid_flight_kill_and_restore_emit_every_result_exactly_once(service, mode):
    """Seed 000's analysis: completed-but-not-emitted records are called again, but emitted once."""
    service.hold(2, 5)
    first = OperatorHarness(HttpLookupOperator, {"url": service.url(), "capacity": 8, "output_mode": mode})
    first.operator.process_batch(list(range(8)))
    first.operator.process_watermark(Watermark(100))
    first.completed(6)  # all but 2 and 5
    state = first.snapshot()
    emitted_before = values(first.records)
    first.close()  # the crash: nothing after the checkpoint counts
    pending = [element[1] for element in state["in_flight"] if element[0] == "r"]
    assert sorted(emitted_before + pending) == list(range(8))
    assert ("w", 100, 1) in state["in_flight"]
    if mode == "ordered":
        assert emitted_before == [0, 1] and pending == [2, 3, 4, 5, 6, 7]
    else:
        assert pending == [2, 5]

    service.reset()
    second = OperatorHarness(HttpLookupOperator, {"url": service.url(), "capacity": 8, "output_mode": mode},
                             restore=state)
    try:
        assert second.operator.counters["restored"] == len(pending)
        second.operator.process_batch(list(range(8, 12)))  # what the source replays after the checkpoint
        second.completed(len(pending) + 4)
        output = emitted_before + values(second.records)
        assert sorted(output) == list(range(12))  # nothing lost, nothing doubled
        if mode == "ordered":
            assert output == list(range(12))
        assert Watermark(100) in second.out
        assert service.request_counts()[str(pending[-1])] == 1  # called again after the restore
    finally:
        second.close()


def test_restored_watermarks_are_dropped_at_another_parallelism(service):
    state = {"in_flight": [("r", 1, None), ("w", 50, 2), ("r", 2, None)]}
    harness = OperatorHarness(HttpLookupOperator, {"url": service.url()}, restore=state, parallelism=3)
    try:
        harness.completed(2)
        assert harness.out and not harness.watermarks and values(harness.records) == [1, 2]
    finally:
        harness.close()


# -- the event loop ------------------------------------------------------------------------------

def test_operators_of_one_subtask_share_one_loop_that_stops_with_the_last(service):
    before = TaskEventLoop.running_loops()
    first = OperatorHarness(HttpLookupOperator, {"url": service.url()})

    async def double(x):
        return 2 * x

    second = AsyncFunctionOperator({"id": "second", "type": "test", "params": {}}, first.context, function=double)
    second.open()
    assert second._event_loop is first.operator._event_loop
    assert TaskEventLoop.running_loops() == before + 1
    second.emit = first.out.extend
    second.process_batch([21])
    first.run_until(lambda: 42 in first.out)
    second.close()
    assert TaskEventLoop.running_loops() == before + 1
    first.close()
    assert TaskEventLoop.running_loops() == before


def test_one_mail_carries_many_completions(service, harnesses):
    service.gate = 50
    harness = harnesses(service, capacity=50, output_mode="unordered")
    harness.operator.process_batch(list(range(50)))
    harness.completed(50)
    assert harness.operator.counters["completion_mails"] < 50


def test_each_call_gets_its_own_deadline(service, harnesses):
    """One timer serves all calls, but a call admitted later is not expired with an earlier one."""
    service.hold("early", "late")
    harness = harnesses(service, timeout_ms=200, on_timeout="drop", output_mode="unordered")
    harness.operator.process_batch(["early"])
    harness.timers.schedule(0.1, lambda: harness.operator.process_batch(["late"]), "second record")
    harness.run_until(lambda: harness.operator.counters["timeouts"] == 1, what="the first timeout")
    service.release("late")  # 'late' has about 100 ms left
    harness.completed(2)
    assert values(harness.records) == ["late"] and harness.operator.counters["timeouts"] == 1


def test_restored_inputs_beyond_the_capacity_wait_their_turn(service):
    state = {"in_flight": [("r", x, None) for x in range(10)]}
    harness = OperatorHarness(HttpLookupOperator, {"url": service.url(), "capacity": 3}, restore=state)
    try:
        assert harness.operator.in_flight == 3 and len(harness.operator.pending) == 7
        harness.operator.process_batch([10, 11])
        harness.finish()
        assert values(harness.records) == list(range(12)) and service.max_in_flight <= 3
    finally:
        harness.close()


def test_input_arriving_from_a_mail_while_waiting_queues_up_behind(service, harnesses):
    service.latency_s = 0.002
    harness = harnesses(service, capacity=1)
    harness.executor.execute(lambda: harness.operator.process_batch(["from-a-mail"]), "upstream timer")
    harness.operator.process_batch(["a", "b", "c"])
    harness.completed(4)
    assert values(harness.records) == ["a", "b", "c", "from-a-mail"]
