"""Checkpoint statistics, with the field names of Flink's REST API.

Every checkpoint has a :class:`CheckpointStats` from trigger to completion or failure; its
``to_dict()`` is the payload of the coordinator's events and of the studio's checkpoint
views (what ``/jobs/:id/checkpoints/details/:cid`` shows in Flink)::

    {"id", "status": "in_progress" | "completed" | "failed", "kind": "checkpoint" | "savepoint",
     "is_savepoint", "checkpoint_type": "CHECKPOINT" | "SAVEPOINT" | "SYNC_SAVEPOINT" (a stop's),
     "synchronous", "trigger_timestamp", "latest_ack_timestamp",
     "end_to_end_duration", "state_size", "checkpointed_size", "processed_data",
     "persisted_data", "alignment_buffered", "num_subtasks", "num_acknowledged_subtasks",
     "external_path", "discarded", "failure_timestamp", "failure_message",
     "tasks": {vertex: {"num_subtasks", "num_acknowledged_subtasks", "state_size",
                        "latest_ack_timestamp", "end_to_end_duration"}},
     "subtasks": [{"task": "vertex#i", "vertex", "index", "status": "pending" | "completed" | "finished",
                   "ack_timestamp", "end_to_end_duration", "start_delay", "alignment_duration",
                   "sync_duration", "async_duration", "state_size", "processed_data",
                   "persisted_data", "unaligned"}],
     "unaligned": whether any subtask took it unaligned, "alignment_duration": the longest,
     "checkpointed_metrics": the counts operators keep in their state (expectations), summed over
                             the subtasks as this checkpoint holds them}

``checkpointed_metrics`` of a completed checkpoint are exact: they are the counts the
restored job continues from. A subtask that finished before the checkpoint adds what its
last acknowledged checkpoint held.

``persisted_data`` is the bytes of in-flight data (channel state) an unaligned checkpoint
persisted; ``unaligned`` per subtask says whether it took the checkpoint on its first
barrier (unaligned, or an aligned one that timed out) or aligned.

Times are epoch milliseconds, durations milliseconds, sizes bytes.
:class:`CheckpointStatsTracker` keeps the counts, a bounded history and the summary
(min / average / max), like Flink's ``/checkpoints`` overview.

Threading model: used under the coordinator's lock only.
"""
from __future__ import annotations

from collections import deque

from engine.plan.execution_ids import TaskId, task_name

SUBTASK_METRICS = ("start_delay", "alignment_duration", "sync_duration", "async_duration", "state_size",
                   "processed_data", "persisted_data")
_TOTALLED = ("state_size", "processed_data", "persisted_data")

LIVE_SUBTASK_ROWS = 128
"""Up to this many subtasks, every acknowledgement is an "acknowledged" event with all
subtask rows (the run page's live rows). Above it, about this many "acknowledged" events
per checkpoint (every ``ceil(n / LIVE_SUBTASK_ROWS)``-th acknowledgement), each with the
counts, the per-vertex summary and the acknowledging subtask's row (``subtask``), not every
row: the full rows in every event were 1,000,000 row copies per checkpoint at 1,000
subtasks (0.9 s of driver CPU), and an event per acknowledgement is one message per subtask
per checkpoint for the studio to store and push. Completed and failed events always carry
every row."""


class CheckpointStats:
    """The statistics of one checkpoint or savepoint."""

    def __init__(self, checkpoint_id: int, kind: str, trigger_timestamp: int, tasks: list[TaskId],
                 location: str, *, synchronous: bool = False):
        self.id = checkpoint_id
        self.kind = kind
        self.synchronous = synchronous
        """A stop-with-savepoint's savepoint (Flink's SYNC_SAVEPOINT)."""
        self.trigger_timestamp = trigger_timestamp
        self.location = location
        self.status = "in_progress"
        self.failure_message: str | None = None
        self.failure_timestamp: int | None = None
        self.discarded = False
        self.completed_timestamp: int | None = None
        self._subtasks: dict[TaskId, dict] = {
            task: {"task": task_name(task), "vertex": task[0], "index": task[1], "status": "pending",
                   "ack_timestamp": None, "end_to_end_duration": None, "unaligned": None,
                   **{name: None for name in SUBTASK_METRICS}}
            for task in sorted(tasks)}
        # Totals kept as acknowledgements arrive, so an event costs O(vertices), not O(subtasks):
        # a checkpoint of n subtasks sends n "acknowledged" events (quadratic before).
        self._acknowledged = 0
        self._totals = {name: 0 for name in _TOTALLED}
        self._latest_ack: int | None = None
        self._any_unaligned = False
        self._longest_alignment = 0
        self._checkpointed: dict[TaskId, dict] = {}
        self._vertices: dict[str, dict] = {}
        for vertex, _ in self._subtasks:
            summary = self._vertices.setdefault(vertex, {"num_subtasks": 0, "num_acknowledged_subtasks": 0,
                                                         "state_size": 0, "latest_ack_timestamp": None,
                                                         "end_to_end_duration": None})
            summary["num_subtasks"] += 1

    @property
    def num_subtasks(self) -> int:
        return len(self._subtasks)

    @property
    def num_acknowledged_subtasks(self) -> int:
        return self._acknowledged

    @property
    def live_rows(self) -> bool:
        """Whether events while in progress carry every row (small checkpoints)."""
        return len(self._subtasks) <= LIVE_SUBTASK_ROWS

    def acknowledged_event_due(self) -> bool:
        """Whether the latest acknowledgement gets an "acknowledged" event (see ``LIVE_SUBTASK_ROWS``)."""
        step = -(-len(self._subtasks) // LIVE_SUBTASK_ROWS)
        return self._acknowledged % step == 0 or self._acknowledged == len(self._subtasks)

    def acknowledge(self, task: TaskId, metrics: dict) -> dict:
        """Record a subtask's acknowledgement; return its subtask entry."""
        subtask = self._subtasks[task]
        vertex = self._vertices[task[0]]
        if subtask["status"] == "pending":
            self._acknowledged += 1
            vertex["num_acknowledged_subtasks"] += 1
        before = {name: subtask[name] or 0 for name in _TOTALLED}
        ack_timestamp = int(metrics.get("ack_timestamp") or 0)
        subtask.update({name: _number(metrics.get(name)) for name in SUBTASK_METRICS})
        subtask["status"] = "completed"
        subtask["unaligned"] = bool(metrics.get("unaligned"))
        if isinstance(metrics.get("checkpointed"), dict):
            self._checkpointed[task] = metrics["checkpointed"]
        subtask["ack_timestamp"] = ack_timestamp
        subtask["end_to_end_duration"] = max(0, ack_timestamp - self.trigger_timestamp)
        for name in _TOTALLED:
            self._totals[name] += (subtask[name] or 0) - before[name]
        vertex["state_size"] += int(subtask["state_size"] or 0) - int(before["state_size"])
        if self._latest_ack is None or ack_timestamp > self._latest_ack:
            self._latest_ack = ack_timestamp
        self._any_unaligned = self._any_unaligned or subtask["unaligned"]
        self._longest_alignment = max(self._longest_alignment, subtask["alignment_duration"] or 0)
        if vertex["latest_ack_timestamp"] is None or ack_timestamp > vertex["latest_ack_timestamp"]:
            vertex["latest_ack_timestamp"] = ack_timestamp
            vertex["end_to_end_duration"] = ack_timestamp - self.trigger_timestamp
        return dict(subtask)

    def carry_checkpointed(self, latest: dict[TaskId, dict]) -> None:
        """Take the checkpointed metrics of the subtasks that did not acknowledge (finished) from ``latest``."""
        for task, subtask in self._subtasks.items():
            if task not in self._checkpointed and task in latest:
                self._checkpointed[task] = latest[task]

    @property
    def checkpointed_by_task(self) -> dict[TaskId, dict]:
        return dict(self._checkpointed)

    def checkpointed_metrics(self) -> dict:
        total: dict = {}
        for part in self._checkpointed.values():
            add_counts(total, part)
        return total

    def task_finished(self, task: TaskId) -> None:
        subtask = self._subtasks[task]
        if subtask["status"] == "pending":
            subtask["status"] = "finished"
            self._acknowledged += 1
            self._vertices[task[0]]["num_acknowledged_subtasks"] += 1

    def complete(self, timestamp: int) -> None:
        self.status = "completed"
        self.completed_timestamp = timestamp

    def fail(self, message: str, timestamp: int) -> None:
        self.status = "failed"
        self.failure_message = message
        self.failure_timestamp = timestamp

    @property
    def latest_ack_timestamp(self) -> int | None:
        return self._latest_ack

    def _total(self, name: str) -> int | float:
        return self._totals[name]

    def to_dict(self, *, with_subtasks: bool = True) -> dict:
        """The statistics as data; ``with_subtasks`` False leaves out the per-subtask rows (the
        coordinator's "acknowledged" events of large checkpoints: see ``LIVE_SUBTASK_ROWS``)."""
        latest = self.latest_ack_timestamp
        state_size = int(self._total("state_size"))
        return {
            "id": self.id, "status": self.status, "kind": self.kind, "is_savepoint": self.kind == "savepoint",
            "checkpoint_type": ("SYNC_SAVEPOINT" if self.synchronous else "SAVEPOINT") if self.kind == "savepoint"
            else "CHECKPOINT", "synchronous": self.synchronous,
            "trigger_timestamp": self.trigger_timestamp, "latest_ack_timestamp": latest,
            "end_to_end_duration": (latest - self.trigger_timestamp) if latest is not None else None,
            "state_size": state_size, "checkpointed_size": state_size,
            "processed_data": int(self._total("processed_data")),
            "persisted_data": int(self._total("persisted_data")), "alignment_buffered": 0,
            "unaligned": self._any_unaligned, "alignment_duration": self._longest_alignment,
            "num_subtasks": self.num_subtasks, "num_acknowledged_subtasks": self.num_acknowledged_subtasks,
            "external_path": self.location if self.status == "completed" else None,
            "discarded": self.discarded, "failure_timestamp": self.failure_timestamp,
            "failure_message": self.failure_message, "completed_timestamp": self.completed_timestamp,
            "tasks": self._tasks_summary(), "checkpointed_metrics": self.checkpointed_metrics(),
            **({"subtasks": [dict(subtask) for subtask in self._subtasks.values()]} if with_subtasks else {}),
        }

    def _tasks_summary(self) -> dict:
        return {vertex: dict(summary) for vertex, summary in self._vertices.items()}


def add_counts(total: dict, part: dict) -> dict:
    """Add the numbers of ``part`` into ``total``, nested dicts alike; other values are taken as they are."""
    for name, value in part.items():
        if isinstance(value, dict):
            add_counts(total.setdefault(name, {}), value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            total[name] = total.get(name, 0) + value
        else:
            total[name] = value
    return total


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


class CheckpointStatsTracker:
    """Counts, history and min/avg/max summary of a job's checkpoints."""

    def __init__(self, history_size: int = 50):
        self.counts = {"triggered": 0, "in_progress": 0, "completed": 0, "failed": 0, "restored": 0}
        self.history: deque[CheckpointStats] = deque(maxlen=history_size)
        self._completed_values: dict[str, list] = {"end_to_end_duration": [], "state_size": [],
                                                   "checkpointed_size": [], "processed_data": [],
                                                   "persisted_data": [], "alignment_duration": []}
        self.latest_completed: dict | None = None
        self.latest_savepoint: dict | None = None
        self.latest_failed: dict | None = None
        self.latest_restored: dict | None = None
        self._latest_checkpointed: dict = {}  # task -> its checkpointed metrics in the latest completed checkpoint

    def triggered(self, stats: CheckpointStats) -> None:
        self.counts["triggered"] += 1
        self.counts["in_progress"] += 1
        self.history.appendleft(stats)

    def completed(self, stats: CheckpointStats) -> None:
        stats.carry_checkpointed(self._latest_checkpointed)
        self._latest_checkpointed = stats.checkpointed_by_task
        self.counts["in_progress"] -= 1
        self.counts["completed"] += 1
        summary = stats.to_dict()
        for name, values in self._completed_values.items():
            if summary.get(name) is not None:
                values.append(summary[name])
                del values[:-1000]
        if stats.kind == "savepoint":
            self.latest_savepoint = summary
        else:
            self.latest_completed = summary

    def failed(self, stats: CheckpointStats) -> None:
        self.counts["in_progress"] -= 1
        self.counts["failed"] += 1
        self.latest_failed = stats.to_dict()

    def restored(self, checkpoint_id: int, location: str, timestamp: int) -> None:
        self.counts["restored"] += 1
        self.latest_restored = {"id": checkpoint_id, "external_path": location, "restore_timestamp": timestamp}

    def summary(self) -> dict:
        result = {}
        for name, values in self._completed_values.items():
            if values:
                result[name] = {"min": min(values), "max": max(values), "avg": sum(values) / len(values)}
            else:
                result[name] = {"min": None, "max": None, "avg": None}
        return result

    def snapshot(self) -> dict:
        """The overview: counts, summary, latest, history (newest first)."""
        return {"counts": dict(self.counts), "summary": self.summary(),
                "latest": {"completed": self.latest_completed, "savepoint": self.latest_savepoint,
                           "failed": self.latest_failed, "restored": self.latest_restored},
                "history": [stats.to_dict() for stats in self.history]}
