"""What keeps one driver's checkpointing linear in the subtasks (``make bench-scale`` measures it).

Before, every "acknowledged" event copied every subtask's row and re-summed the totals
(1,000,000 row copies per checkpoint at 1,000 subtasks: 0.9 s of driver CPU), and every
slot's trigger carried the names of all the job's sources. The simulation itself runs
here small, to prove it drives a real coordinator over a real control channel.
"""
import pytest

from engine.checkpoint.coordinator import CheckpointCoordinator
from engine.checkpoint.statistics import LIVE_SUBTASK_ROWS, CheckpointStats
from engine.checkpoint.storage import CheckpointStorage
from engine.cluster.control import RemoteSlot
from tests.bench.bench_scale import _Participants, ack_message, coordinator_and_control


class Recording:
    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(message)


def test_a_slots_trigger_names_only_its_own_subtasks():
    connection = Recording()
    slot = RemoteSlot(3, connection, [["gen", 3], ["sum", 3]])
    slot.trigger_checkpoint(7, 1000, {"kind": "checkpoint", "trigger_tasks": ["gen#1", "gen#3", "gen#30"]})
    slot.trigger_checkpoint(8, 2000, {"kind": "checkpoint"})
    assert connection.sent[0]["options"] == {"kind": "checkpoint", "trigger_tasks": ["gen#3"]}
    assert "trigger_tasks" not in connection.sent[1]["options"]  # none named: every subtask decides


def test_incremental_totals_match_the_rows():
    tasks = [("a", index) for index in range(3)] + [("b", index) for index in range(2)]
    stats = CheckpointStats(1, "checkpoint", 1000, tasks, "/chk-1")
    stats.acknowledge(("a", 0), {"ack_timestamp": 1500, "state_size": 10, "processed_data": 3})
    stats.acknowledge(("b", 1), {"ack_timestamp": 1200, "state_size": 5, "alignment_duration": 7.5, "unaligned": True})
    stats.task_finished(("a", 2))
    data = stats.to_dict()
    assert data["num_acknowledged_subtasks"] == 3 and data["state_size"] == 15 and data["processed_data"] == 3
    assert data["latest_ack_timestamp"] == 1500 and data["end_to_end_duration"] == 500
    assert data["unaligned"] is True and data["alignment_duration"] == 7.5
    assert data["tasks"] == {
        "a": {"num_subtasks": 3, "num_acknowledged_subtasks": 2, "state_size": 10, "latest_ack_timestamp": 1500,
              "end_to_end_duration": 500},
        "b": {"num_subtasks": 2, "num_acknowledged_subtasks": 1, "state_size": 5, "latest_ack_timestamp": 1200,
              "end_to_end_duration": 200}}
    assert sum(row["state_size"] or 0 for row in data["subtasks"]) == data["state_size"]
    assert "subtasks" not in stats.to_dict(with_subtasks=False)


@pytest.mark.parametrize("subtasks, rows_while_in_progress", [(LIVE_SUBTASK_ROWS, True),
                                                              (LIVE_SUBTASK_ROWS + 1, False)])
def test_large_checkpoints_send_fewer_acknowledged_events_without_the_rows(tmp_path, subtasks, rows_while_in_progress):
    tasks = [("v", index) for index in range(subtasks)]
    events = []
    coordinator = CheckpointCoordinator({"interval_ms": 0}, CheckpointStorage(str(tmp_path)), [_Participants()],
                                        tasks, events.append)
    future = coordinator.trigger_checkpoint()
    for task in tasks:
        coordinator.receive_acknowledge(ack_message(1, list(task), 0)["ack"])
    future.result(10)
    coordinator.shutdown()
    acknowledged = [event for event in events if event["event"] == "acknowledged"]
    every = 1 if rows_while_in_progress else 2  # 129 subtasks: every second acknowledgement, and the last
    expected = sorted({*range(every, subtasks + 1, every), subtasks})
    assert [event["num_acknowledged_subtasks"] for event in acknowledged] == expected
    assert all(("subtasks" in event) == rows_while_in_progress for event in acknowledged)
    assert [event["subtask"]["task"] for event in acknowledged] == [f"v#{count - 1}" for count in expected]
    (completed,) = [event for event in events if event["event"] == "completed"]
    assert len(completed["subtasks"]) == subtasks and completed["state_size"] == 2048 * subtasks


def test_the_scale_simulation_drives_the_coordinator_over_the_control_channel():
    figures = coordinator_and_control(subtasks=40, checkpoints=2, interval_ms=50)
    assert figures["slots"] == 10 and figures["checkpoints"] == 2
    # every checkpoint: 40 acks; a trigger and a completion per slot
    assert figures["control_bytes_per_checkpoint"] >= 40 * figures["ack_bytes"]
