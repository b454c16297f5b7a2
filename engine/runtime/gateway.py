"""The two seams between the JobMaster (driver side) and the slots running subtasks.

``JobMasterGateway`` is what subtasks tell the JobMaster; ``TaskExecutorGateway`` is what
the JobMaster tells one slot. In-process (``engine.cluster.local``) both are plain Python
objects; on Spark (``engine.cluster.control``) each call becomes one message on the control
TCP connection. That is why every payload crossing these seams is plain msgpack-able data
(dict, list, str, int, float, bool, None, bytes): nothing here may hold a Python object.

Threading model
    ``JobMasterGateway`` methods are called from task threads and from asynchronous
    snapshot threads; implementations must be thread-safe. ``TaskExecutorGateway`` methods
    are called from the JobMaster's threads (coordinator timer, control reader); they never
    block: they only enqueue mails into the subtasks' mailboxes.

Payloads
    ``acknowledge_checkpoint(ack)``::

        {"checkpoint_id": 7, "task": ["sum", 1],
         "state": {"path": "chk-7/sum-1.state", "size": 1234,
                   "key_group_range": [64, 127], "operators": {...}} | None,
         "metrics": {"ack_timestamp": ms, "start_delay": ms, "alignment_duration": ms,
                     "sync_duration": ms, "async_duration": ms, "state_size": bytes,
                     "processed_data": bytes, "persisted_data": 0}}

    ``report_metrics(task, metrics)`` about every second::

        {"records_in": n, "records_out": n, "busy_ms_per_second": ..,
         "idle_ms_per_second": .., "backpressured_ms_per_second": ..,
         "collected": {node_id: [last records]}}   # collect sinks only

    ``task_finished(task, result)``: ``{"collected": {node_id: [records]},
    "counts": {node_id: n}}`` for collect sinks, else ``{}``.

    ``report_tap(tap_id, task, sample)``: records a subtask sampled for an open tap
    (``engine.runtime.tap``): ``{"records": [[json_text, truncated], ...], "dropped": n,
    "ts": epoch ms when sampled}``. ``open_tap(tap_id, node_id, limits)`` /
    ``close_tap(tap_id)``: sample what operator ``node_id`` emits, within ``limits``
    (``TapLimits.as_dict()``, per subtask), or stop.

    ``send_operator_event(task, node_id, event)`` / ``deliver_operator_event(task, node_id,
    event)``: an event between operator ``node_id`` of subtask ``task`` and the operator's
    coordinator in the JobMaster (``engine.cluster.operator_coordinators``), e.g. a file
    source asking its split enumerator for a split (``{"kind": "request"}``) and the answer
    (``{"kind": "splits", "splits": [...]}``). Delivered into the subtask's mailbox in the
    order sent, and in order with checkpoint triggers.

    ``trigger_checkpoint(checkpoint_id, timestamp_ms, options)``: options are::

        {"kind": "checkpoint" | "savepoint", "target": url | None, "location": url,
         "trigger_tasks": ["vertex#i", ...],        # optional
         "stop": bool, "drain": bool}                # optional, savepoints only

    ``location`` is the directory the coordinator chose for the snapshot's files (derived
    from the configured checkpoint storage when absent). ``trigger_tasks`` names the
    subtasks to hand the trigger to -- the *sources of the moment*: running subtasks none
    of whose upstream subtasks still runs (real sources; subtasks whose bounded input is
    done). The others get their barriers from them; without the key every subtask is
    handed the trigger and each decides (sources and subtasks whose input ended take it).
    A checkpoint still pending when more subtasks finish is triggered again, with the
    newly eligible ones in ``trigger_tasks``; a subtask ignores a trigger it already took.

    Stop with savepoint (Flink's SYNC_SAVEPOINT / TERMINATE): ``"kind": "savepoint",
    "stop": true``. Without drain (``"drain": false``) the sources take the savepoint,
    then poll no more; once it completed (``notify_checkpoint_complete``: sinks commit)
    they send EndOfData without drain and end, and every subtask ends without calling
    ``finish``; if it is aborted instead, the sources poll again and the job goes on.
    With ``"drain": true`` the sources first emit the maximum watermark, finish their
    operators and send EndOfData (so every downstream subtask finishes -- all windows
    fire -- before the barrier reaches it), then take the savepoint and end once it
    completed; if it is aborted, they fail (their input is gone) and the job fails over.
    Either way the JobMaster sends nothing else: the job ends FINISHED when every subtask
    reported ``task_finished``. ``CheckpointCoordinator.trigger_savepoint(target,
    stop=True, drain=...)`` produces these options, ``JobHandle.stop_with_savepoint``
    and ``JobMaster.stop_with_savepoint`` call it.
"""
from __future__ import annotations

from typing import Protocol

from engine.plan.execution_ids import TaskId, as_task_id, parse_task_name, task_name

__all__ = ["JobMasterGateway", "TaskExecutorGateway", "TaskId", "as_task_id", "parse_task_name", "task_name"]


class JobMasterGateway(Protocol):
    """What subtasks tell the JobMaster. Called from task threads; implementations thread-safe."""

    def acknowledge_checkpoint(self, ack: dict) -> None: ...

    def decline_checkpoint(self, checkpoint_id: int, task: TaskId, reason: str) -> None: ...

    def report_metrics(self, task: TaskId, metrics: dict) -> None: ...

    def task_finished(self, task: TaskId, result: dict) -> None: ...

    def task_failed(self, task: TaskId, error: str) -> None: ...

    def report_tap(self, tap_id: str, task: TaskId, sample: dict) -> None: ...

    def send_operator_event(self, task: TaskId, node_id: str, event: dict) -> None: ...


class TaskExecutorGateway(Protocol):
    """What the JobMaster tells one slot. Thread-safe and non-blocking: calls enqueue mails."""

    def trigger_checkpoint(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None: ...

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None: ...

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None: ...

    def cancel(self) -> None: ...

    def open_tap(self, tap_id: str, node_id: str, limits: dict) -> None: ...

    def close_tap(self, tap_id: str) -> None: ...

    def deliver_operator_event(self, task: TaskId, node_id: str, event: dict) -> None: ...
