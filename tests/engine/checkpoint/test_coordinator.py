"""The checkpoint coordinator against fake slots: trigger, ack, decline, expiry, savepoints, retention."""
from __future__ import annotations

import threading
import time

import pytest

from engine.checkpoint.coordinator import CheckpointCoordinator, CheckpointException
from engine.checkpoint.storage import CheckpointStorage, load_metadata

TASKS = [("src", 0), ("sum", 0), ("sum", 1)]


class FakeSlot:
    def __init__(self):
        self.calls = []
        self.triggered = threading.Event()

    def trigger_checkpoint(self, checkpoint_id, timestamp_ms, options):
        self.calls.append(("trigger", checkpoint_id, options))
        self.triggered.set()

    def notify_checkpoint_complete(self, checkpoint_id):
        self.calls.append(("complete", checkpoint_id))

    def notify_checkpoint_aborted(self, checkpoint_id):
        self.calls.append(("aborted", checkpoint_id))

    def cancel(self):
        self.calls.append(("cancel",))


def ack(checkpoint_id, task, size=10):
    return {"checkpoint_id": checkpoint_id, "task": list(task),
            "state": {"path": f"{task[0]}-{task[1]}.state", "size": size, "key_group_range": [0, 1], "operators": {}},
            "metrics": {"ack_timestamp": 0, "start_delay": 1, "alignment_duration": 2, "sync_duration": 3,
                        "async_duration": 4, "state_size": size}}


@pytest.fixture
def setup(tmp_path):
    slot = FakeSlot()
    events = []
    failures = []
    settings = {"interval_ms": 0, "timeout_ms": 60000, "retained": 2, "tolerable_failures": 1}
    coordinator = CheckpointCoordinator(settings, CheckpointStorage(str(tmp_path)), [slot], TASKS, events.append,
                                        on_failure=failures.append)
    yield coordinator, slot, events, failures
    coordinator.shutdown()


def test_all_acks_complete_the_checkpoint_write_metadata_and_notify(setup):
    coordinator, slot, events, _ = setup
    future = coordinator.trigger_checkpoint()
    checkpoint_id, options = slot.calls[0][1], slot.calls[0][2]
    assert options["kind"] == "checkpoint" and options["location"].endswith(f"chk-{checkpoint_id}")
    for task in TASKS:
        assert not future.done()
        coordinator.receive_acknowledge(ack(checkpoint_id, task))
    assert future.result(0) == options["location"]
    assert ("complete", checkpoint_id) in slot.calls
    metadata = load_metadata(options["location"])
    assert metadata["checkpoint_id"] == checkpoint_id and set(metadata["tasks"]) == {"src#0", "sum#0", "sum#1"}
    assert metadata["vertices"]["sum"]["parallelism"] == 2
    assert coordinator.latest_completed()["checkpoint_id"] == checkpoint_id
    assert [e["event"] for e in events] == ["triggered", "acknowledged", "acknowledged", "acknowledged", "completed"]
    completed = events[-1]
    assert completed["state_size"] == 30 and completed["num_acknowledged_subtasks"] == 3
    assert completed["subtasks"][0]["sync_duration"] == 3 and completed["tasks"]["sum"]["num_subtasks"] == 2
    assert events[1]["subtask"]["task"] == "src#0"


def test_duplicate_and_unknown_acks_are_ignored(setup):
    coordinator, slot, events, _ = setup
    coordinator.trigger_checkpoint()
    checkpoint_id = slot.calls[0][1]
    coordinator.receive_acknowledge(ack(checkpoint_id, TASKS[0]))
    coordinator.receive_acknowledge(ack(checkpoint_id, TASKS[0]))
    coordinator.receive_acknowledge(ack(999, TASKS[1]))
    assert [e["event"] for e in events] == ["triggered", "acknowledged"]


def test_decline_fails_and_aborts_and_counts_towards_tolerable_failures(setup):
    coordinator, slot, events, failures = setup
    for attempt in range(2):
        future = coordinator.trigger_checkpoint()
        checkpoint_id = slot.calls[-1][1]
        coordinator.receive_decline(checkpoint_id, ("sum", 1), "failure: disk full")
        with pytest.raises(CheckpointException, match="disk full"):
            future.result(0)
        assert ("aborted", checkpoint_id) in slot.calls
    assert len(failures) == 1 and "2 consecutive" in failures[0]
    assert events[-1]["event"] == "failed" and "declined by sum#1" in events[-1]["failure_message"]


def test_subsumed_declines_do_not_count(setup):
    coordinator, slot, _, failures = setup
    for _ in range(3):
        coordinator.trigger_checkpoint()
        coordinator.receive_decline(slot.calls[-1][1], ("sum", 0), "subsumed: newer barrier")
    assert failures == []


def test_expired_checkpoint_fails(tmp_path):
    slot = FakeSlot()
    events = []
    coordinator = CheckpointCoordinator({"interval_ms": 0, "timeout_ms": 20}, CheckpointStorage(str(tmp_path)),
                                        [slot], TASKS, events.append)
    coordinator.start()
    future = coordinator.trigger_checkpoint()
    with pytest.raises(CheckpointException, match="expired"):
        future.result(5)
    coordinator.shutdown()


def test_acknowledgements_after_the_timeout_expire_the_checkpoint_instead_of_completing_it(tmp_path):
    """The timer thread may not have run yet (it is not started here): the late acks must not complete it."""
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 0, "timeout_ms": 1}, CheckpointStorage(str(tmp_path)),
                                        [slot], TASKS, lambda event: None)
    future = coordinator.trigger_checkpoint()
    checkpoint_id = slot.calls[0][1]
    past_deadline = time.monotonic() + 0.005
    while time.monotonic() < past_deadline:
        time.sleep(0.001)
    for task in TASKS:
        coordinator.receive_acknowledge(ack(checkpoint_id, task))
    with pytest.raises(CheckpointException, match="expired"):
        future.result(0)
    assert ("complete", checkpoint_id) not in slot.calls and coordinator.latest_completed() is None
    coordinator.shutdown()


def test_finished_tasks_count_as_acknowledged_and_are_left_out_later(setup):
    coordinator, slot, _, _ = setup
    future = coordinator.trigger_checkpoint()
    checkpoint_id = slot.calls[-1][1]
    coordinator.receive_acknowledge(ack(checkpoint_id, ("sum", 0)))
    coordinator.receive_acknowledge(ack(checkpoint_id, ("sum", 1)))
    coordinator.task_finished(("src", 0))
    location = future.result(0)
    assert load_metadata(location)["vertices"]["src"]["finished"] == [0]
    second = coordinator.trigger_checkpoint()
    second_id = slot.calls[-1][1]
    coordinator.receive_acknowledge(ack(second_id, ("sum", 0)))
    coordinator.receive_acknowledge(ack(second_id, ("sum", 1)))
    assert second.result(0)


def test_retained_checkpoints_and_savepoints(setup, tmp_path):
    coordinator, slot, events, _ = setup
    locations = []
    for _ in range(3):
        future = coordinator.trigger_checkpoint()
        checkpoint_id = slot.calls[-1][1]
        for task in TASKS:
            coordinator.receive_acknowledge(ack(checkpoint_id, task))
        locations.append(future.result(0))
    savepoint = coordinator.trigger_savepoint(str(tmp_path / "sp"))
    savepoint_id = slot.calls[-1][1]
    assert slot.calls[-1][2]["kind"] == "savepoint"
    for task in TASKS:
        coordinator.receive_acknowledge(ack(savepoint_id, task))
    assert savepoint.result(0).startswith(str(tmp_path / "sp"))
    assert [len(list((tmp_path).glob(f"chk-{i}"))) for i in (1, 2, 3)] == [0, 1, 1]
    assert [e["id"] for e in events if e["event"] == "discarded"] == [1]
    assert coordinator.latest_completed()["kind"] == "savepoint"
    assert [m["checkpoint_id"] for m in coordinator.completed_checkpoints()] == [2, 3]


def test_completion_subsumes_older_pending_checkpoints(tmp_path):
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 0, "max_concurrent": 2}, CheckpointStorage(str(tmp_path)),
                                        [slot], [("a", 0)])
    older = coordinator.trigger_checkpoint()
    coordinator.trigger_checkpoint()
    coordinator.receive_acknowledge(ack(2, ("a", 0)))
    with pytest.raises(CheckpointException, match="subsumed"):
        older.result(0)
    coordinator.shutdown()


def test_periodic_triggering_respects_max_concurrent(tmp_path):
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 10, "max_concurrent": 1}, CheckpointStorage(str(tmp_path)),
                                        [slot], [("a", 0)])
    coordinator.start()
    assert slot.triggered.wait(5)
    first = slot.calls[0][1]
    assert coordinator.pending_ids == [first]  # no second trigger while one is pending
    slot.triggered.clear()
    coordinator.receive_acknowledge(ack(first, ("a", 0)))
    assert slot.triggered.wait(5)
    coordinator.shutdown()
    assert [call[1] for call in slot.calls if call[0] == "trigger"][:2] == [first, first + 1]


def test_ids_continue_after_a_restore(tmp_path):
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 0}, CheckpointStorage(str(tmp_path)), [slot], [("a", 0)],
                                        restored_from={"checkpoint_id": 41, "location": "x"})
    coordinator.trigger_checkpoint()
    assert slot.calls[0][1] == 42
    assert coordinator.stats.snapshot()["counts"]["restored"] == 1
    coordinator.shutdown()


def periodic_coordinator(tmp_path, slot, interval_ms):
    settings = {"interval_ms": interval_ms, "timeout_ms": 60000, "retained": 2, "tolerable_failures": 1}
    coordinator = CheckpointCoordinator(settings, CheckpointStorage(str(tmp_path)), [slot], TASKS, lambda event: None)
    coordinator.start()
    return coordinator


def test_no_periodic_checkpoint_follows_a_completed_stop_with_savepoint(tmp_path):
    """The job ends around the stop's savepoint: a checkpoint after it would be taken of tasks
    that are ending, and would push the savepoint out of "latest" (seen in the run view)."""
    slot = FakeSlot()
    coordinator = periodic_coordinator(tmp_path, slot, interval_ms=200)
    try:
        future = coordinator.trigger_savepoint(str(tmp_path / "sp"), stop=True)  # before the first periodic one
        stop_id = slot.calls[0][1]
        slot.triggered.clear()
        for task in TASKS:
            coordinator.receive_acknowledge(ack(stop_id, task))
        assert future.result(5)
        assert not slot.triggered.wait(1.0), f"a checkpoint was triggered after the stop: {slot.calls}"
    finally:
        coordinator.shutdown()


def test_periodic_checkpoints_go_on_after_a_failed_stop(tmp_path):
    slot = FakeSlot()
    coordinator = periodic_coordinator(tmp_path, slot, interval_ms=200)
    try:
        coordinator.trigger_savepoint(str(tmp_path / "sp"), stop=True)
        stop_id = slot.calls[0][1]
        slot.triggered.clear()
        coordinator.receive_decline(stop_id, TASKS[0], "disk full")
        assert slot.triggered.wait(10), "periodic checkpoints resume after a failed stop"
        assert slot.calls[-1][2]["kind"] == "checkpoint"
    finally:
        coordinator.shutdown()
