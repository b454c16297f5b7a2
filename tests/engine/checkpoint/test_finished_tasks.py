"""The coordinator after tasks finished: sources of the moment, finished vertices, stop savepoints."""
from __future__ import annotations

import threading
import time

import pytest

from engine.checkpoint.coordinator import CheckpointCoordinator, CheckpointException
from engine.checkpoint.storage import CheckpointStorage, load_metadata
from engine.plan.job_graph import build_job_graph
from tests.builders import definition_of, edge, node


class FakeSlot:
    def __init__(self):
        self.triggers = []
        self.calls = []

    def trigger_checkpoint(self, checkpoint_id, timestamp_ms, options):
        self.triggers.append((checkpoint_id, options.get("trigger_tasks"), options))

    def notify_checkpoint_complete(self, checkpoint_id):
        self.calls.append(("complete", checkpoint_id))

    def notify_checkpoint_aborted(self, checkpoint_id):
        self.calls.append(("aborted", checkpoint_id))

    def cancel(self):
        pass


def graph():
    """src (2) --hash--> sum (2) --forward--> sink (2); src2 (1) --rebalance--> sink."""
    return build_job_graph(definition_of(
        [node("src", "source.datagen"), node("sum", "aggregate.reduce"), node("sink", "sink.file", path="x"),
         node("side", "source.datagen", parallelism=1)],
        [edge("src", "sum", "hash", "x"), edge("sum", "sink", exchange="pipelined"), edge("side", "sink", "rebalance")],
        parallelism=2, max_parallelism=16))


TASKS = [("src", 0), ("src", 1), ("sum", 0), ("sum", 1), ("sink", 0), ("sink", 1), ("side", 0)]


@pytest.fixture
def setup(tmp_path):
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 0, "timeout_ms": 60000}, CheckpointStorage(str(tmp_path)),
                                        [slot], TASKS, vertices=graph().describe())
    yield coordinator, slot
    coordinator.shutdown()


def ack(coordinator, checkpoint_id, task):
    coordinator.receive_acknowledge({"checkpoint_id": checkpoint_id, "task": list(task), "metrics": {},
                                     "state": {"path": f"{task[0]}-{task[1]}.state", "size": 1,
                                               "key_group_range": [0, 1], "operators": {}}})


def test_only_the_sources_are_triggered(setup):
    coordinator, slot = setup
    coordinator.trigger_checkpoint()
    assert slot.triggers[0][1] == ["side#0", "src#0", "src#1"]


def test_a_consumer_becomes_a_source_once_all_its_upstream_finished(setup):
    coordinator, slot = setup
    coordinator.task_finished(("src", 0))
    coordinator.trigger_checkpoint()
    assert slot.triggers[-1][1] == ["side#0", "src#1"], "sum reads src#1 too (all-to-all)"
    coordinator.task_finished(("src", 1))
    coordinator.task_finished(("side", 0))
    coordinator.trigger_checkpoint()
    assert slot.triggers[-1][1] == ["sum#0", "sum#1"]
    coordinator.task_finished(("sum", 1))
    coordinator.trigger_checkpoint()
    assert slot.triggers[-1][1] == ["sink#1", "sum#0"], "pointwise: sink#1 reads only sum#1 (and side)"


def test_tasks_that_become_sources_while_a_checkpoint_is_pending_are_triggered_for_it(setup):
    coordinator, slot = setup
    future = coordinator.trigger_checkpoint()
    checkpoint_id = slot.triggers[0][0]
    for task in [("src", 0), ("side", 0)]:
        ack(coordinator, checkpoint_id, task)
    coordinator.task_finished(("src", 0))
    coordinator.task_finished(("side", 0))
    coordinator.task_finished(("src", 1))  # before it took the checkpoint: sum#0 and sum#1 get no barrier from it
    assert slot.triggers[-1][:2] == (checkpoint_id, ["sum#0", "sum#1"])
    for task in [("sum", 0), ("sum", 1), ("sink", 0), ("sink", 1)]:
        ack(coordinator, checkpoint_id, task)
    metadata = load_metadata(future.result(1))
    assert metadata["vertices"]["src"]["finished"] == [1]
    assert metadata["vertices"]["side"]["finished"] == [], "it acknowledged before it finished"


def test_a_task_that_acknowledged_and_then_finished_is_not_recorded_as_finished(setup):
    coordinator, slot = setup
    future = coordinator.trigger_checkpoint()
    checkpoint_id = slot.triggers[0][0]
    ack(coordinator, checkpoint_id, ("src", 0))
    ack(coordinator, checkpoint_id, ("src", 1))
    coordinator.task_finished(("src", 0))  # emitted more after its barrier, which no snapshot holds
    coordinator.task_finished(("src", 1))
    for task in TASKS[2:]:
        ack(coordinator, checkpoint_id, task)
    metadata = load_metadata(future.result(1))
    assert metadata["vertices"]["src"]["finished"] == [], "restoring must run src again from its state"
    second = coordinator.trigger_checkpoint()
    for task in [("sum", 0), ("sum", 1), ("sink", 0), ("sink", 1), ("side", 0)]:
        ack(coordinator, checkpoint_id + 1, task)
    assert load_metadata(second.result(1))["vertices"]["src"]["finished"] == [0, 1]


def test_without_topology_every_task_gets_the_trigger(tmp_path):
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 0}, CheckpointStorage(str(tmp_path)), [slot], TASKS)
    coordinator.trigger_checkpoint()
    assert slot.triggers[0][1] is None
    coordinator.shutdown()


def test_stop_with_savepoint_is_synchronous_and_one_at_a_time(setup):
    coordinator, slot = setup
    events = []
    coordinator._on_event = events.append
    stop = coordinator.trigger_savepoint(stop=True, drain=True)
    savepoint_id, targets, options = slot.triggers[-1]
    assert options["stop"] is True and options["drain"] is True and options["kind"] == "savepoint"
    with pytest.raises(CheckpointException, match="in progress"):
        coordinator.trigger_savepoint(stop=True).result(1)
    assert not coordinator._should_trigger_locked(float("inf")), "periodic checkpoints wait for the stop"
    for task in TASKS:
        ack(coordinator, savepoint_id, task)
    assert stop.result(1)
    completed = [e for e in events if e["event"] == "completed"][-1]
    assert completed["checkpoint_type"] == "SYNC_SAVEPOINT" and completed["is_savepoint"]
    assert load_metadata(stop.result())["kind"] == "savepoint"
    coordinator.trigger_savepoint(stop=True)  # the next stop may start
    assert slot.triggers[-1][2]["drain"] is False


def test_a_failed_stop_lets_periodic_checkpoints_resume(setup):
    coordinator, slot = setup
    stop = coordinator.trigger_savepoint(stop=True)
    coordinator.receive_decline(slot.triggers[-1][0], ("src", 0), "failure: disk full")
    with pytest.raises(CheckpointException):
        stop.result(1)
    coordinator._next_trigger = 0.0
    assert coordinator._should_trigger_locked(1.0)


class SignallingSlot(FakeSlot):
    """A FakeSlot that signals each trigger, for a coordinator whose timer thread runs."""

    def __init__(self):
        super().__init__()
        self.triggered = threading.Event()

    def trigger_checkpoint(self, checkpoint_id, timestamp_ms, options):
        super().trigger_checkpoint(checkpoint_id, timestamp_ms, options)
        self.triggered.set()


@pytest.fixture
def hourly(tmp_path):
    """A started coordinator whose periodic checkpoints come once an hour."""
    slot = SignallingSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 3_600_000, "timeout_ms": 60000},
                                        CheckpointStorage(str(tmp_path)), [slot], TASKS, vertices=graph().describe())
    coordinator.start()
    yield coordinator, slot
    coordinator.shutdown()


def test_once_no_record_can_enter_the_job_the_next_checkpoint_comes_at_once(hourly):
    coordinator, slot = hourly
    for task in [("src", 0), ("src", 1)]:
        coordinator.task_finished(task)
    assert not coordinator._should_trigger_locked(time.monotonic()), "side#0 still reads: no reason to hurry"
    coordinator.task_finished(("side", 0))
    assert slot.triggered.wait(30), "the last data waits an hour for its commit"
    assert slot.triggers[0][1] == ["sum#0", "sum#1"]


def test_a_checkpoint_pending_when_the_input_ended_is_followed_at_once(hourly):
    coordinator, slot = hourly
    first = coordinator.trigger_checkpoint()
    for task in TASKS:
        ack(coordinator, slot.triggers[0][0], task) if task[0] in ("src", "side") else None
    for task in [("src", 0), ("src", 1), ("side", 0)]:
        coordinator.task_finished(task)
    slot.triggered.clear()
    for task in [("sum", 0), ("sum", 1), ("sink", 0), ("sink", 1)]:
        ack(coordinator, slot.triggers[0][0], task)
    assert first.result(1)
    assert slot.triggered.wait(30), "the checkpoint that commits the last data waits an hour"
    assert slot.triggers[-1][0] == slot.triggers[0][0] + 1


def test_a_job_whose_sinks_wait_for_no_checkpoint_ends_without_one(tmp_path):
    """No two-phase-commit sink: what runs after the sources only drains, and ends by itself."""
    slot = SignallingSlot()
    vertices = graph().describe()
    for facts in vertices.values():
        facts["awaits_final_checkpoint"] = False
    coordinator = CheckpointCoordinator({"interval_ms": 3_600_000}, CheckpointStorage(str(tmp_path)), [slot],
                                        TASKS, vertices=vertices)
    coordinator.start()
    try:
        for task in [("src", 0), ("src", 1), ("side", 0)]:
            coordinator.task_finished(task)
        assert not coordinator._should_trigger_locked(time.monotonic())
    finally:
        coordinator.shutdown()


def test_the_job_master_marks_the_vertices_that_wait_for_a_final_checkpoint(tmp_path):
    from engine.cluster.local import LocalCluster
    from engine.spec import normalise_definition

    spec = normalise_definition(definition_of(
        [node("src", "source.datagen", count=1), node("files", "sink.file", path=str(tmp_path / "out")),
         node("loose", "sink.redis_stream", stream="s", delivery="at_least_once"),
         node("exact", "sink.redis_stream", stream="t"), node("seen", "sink.collect")],
        [edge("src", sink, "rebalance") for sink in ["files", "loose", "exact", "seen"]],
        parallelism=1, checkpointing={"interval_ms": 1000}))
    job_master = LocalCluster().job_master(spec, checkpoint_dir=str(tmp_path / "c"))
    awaiting = {vertex: facts["awaits_final_checkpoint"] for vertex, facts in job_master._described_vertices().items()}
    assert awaiting == {"src": False, "files": True, "loose": False, "exact": True, "seen": False}


def test_a_checkpoint_after_the_input_ended_is_not_hurried_again(hourly):
    coordinator, slot = hourly
    for task in [("src", 0), ("src", 1), ("side", 0)]:
        coordinator.task_finished(task)
    assert slot.triggered.wait(30)
    checkpoint_id = slot.triggers[-1][0]
    for task in [("sum", 0), ("sum", 1), ("sink", 0), ("sink", 1)]:
        ack(coordinator, checkpoint_id, task)
    assert not coordinator._should_trigger_locked(time.monotonic()), "the next one keeps the interval"
