"""The checkpoint work of one subtask (Flink's SubtaskCheckpointCoordinator), beside its task.

``StreamTask`` decides *whether* to take a checkpoint (its life-cycle state, see
``engine.runtime.task_lifecycle``); this class does the taking (seed 003,
``performCheckpoint``):

1. ``prepare_snapshot_pre_barrier`` on every operator;
2. the barrier goes downstream on every output channel, behind all records before it;
3. the synchronous snapshot: each operator's ``snapshot_state`` (sources store their
   positions, 2PC sinks pre-commit), then a copy of its registered state;
4. the asynchronous part in a snapshot thread: serialise, write the state file (its
   SHA-256 goes into the handle, ``engine.checkpoint.signing``), then
   ``acknowledge_checkpoint`` with the metrics (start delay, alignment, sync, async, size),
   or ``decline_checkpoint`` with a reason code when it failed.

Unaligned checkpoints (``unaligned=True``): step 2 puts the barrier at the head of every
output queue and keeps what it overtook as output channel state; the input channel state
is still being recorded by the task until the last barrier arrived
(``awaiting_barriers``), so the asynchronous part waits for ``channel_state_complete`` (or
is dropped by ``discard_deferred`` when the checkpoint is aborted first). With an aligned
timeout the asynchronous part of an aligned checkpoint likewise waits until its barriers
left the output queues, or were turned unaligned at the timeout (``add_output_state``).

It also remembers which checkpoints the subtask performed, which completed and which were
aborted, so a trigger that comes twice (from the coordinator and a barrier) is taken once.

Threading model: ``perform``, ``decline``, ``completed``, ``aborted`` and the queries run in
the subtask's mailbox thread; the asynchronous part runs in a snapshot thread and reads
only its own copy of the state. ``wait_for_asynchronous_parts`` is called by the mailbox
thread before the subtask reports finished.
"""
from __future__ import annotations

import logging
import time
import uuid

from engine.checkpoint import storage
from engine.checkpoint.signing import DIGEST, digest
from engine.checkpoint.storage import write_confined
from engine.runtime.grants import Grants, snapshot_directories
from engine.runtime.io.events import CancelCheckpointMarker, CheckpointBarrier
from engine.runtime.kill_hooks import SimulatedFailure, maybe_kill
from engine.runtime.state.snapshot import TaskStateSnapshot

logger = logging.getLogger(__name__)

DECLINE_SUBSUMED = "subsumed"
DECLINE_CANCELED = "canceled"
DECLINE_NOT_RUNNING = "not_running"
DECLINE_FAILURE = "failure"
DECLINE_ALIGNMENT_LIMIT = "alignment_limit"
"""Reason codes a decline starts with (``"<code>: message"``); only ``failure`` counts
towards the coordinator's tolerable checkpoint failures."""

MAX_REMEMBERED_ABORTS = 256


def _now_ms() -> float:
    return time.time() * 1000.0


def checkpointed_metrics(operators) -> dict:
    """The counts operators keep in their state, as this snapshot holds them (``checkpointed_metrics()``
    of those that have it, merged one level deep: expectation checks of one chain share a key)."""
    merged: dict = {}
    for operator in operators:
        report = getattr(operator, "checkpointed_metrics", None)
        for name, value in (report() if report is not None else {}).items():
            merged.setdefault(name, {}).update(value)
    return merged


def _safe_name(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)


class SubtaskCheckpointCoordinator:
    """Performs, writes, acknowledges and declines the checkpoints of one subtask."""

    def __init__(self, *, task_id, name: str, key_group_range, gateway, config: dict, report_throwable,
                 snapshot_executor=None, kill_hook=None):
        self.task_id = task_id
        self.name = name
        self.key_group_range = key_group_range
        self.gateway = gateway
        self.config = config
        self.snapshot_executor = snapshot_executor
        self.kill_hook = kill_hook
        self._report_throwable = report_throwable
        self.latest_performed = -1
        self.latest_completed = -1
        self._aborted: set[int] = set()
        self._asynchronous_parts: list = []
        self._deferred: dict[int, tuple] = {}  # unaligned checkpoints waiting for their last barrier
        self._asynchronous_failure: BaseException | None = None
        self.canceled = False
        """Set by the task when it is cancelled (any thread): no acknowledgement goes out then."""

    # -- queries ---------------------------------------------------------------------------
    def is_new(self, checkpoint_id: int) -> bool:
        """Neither performed already nor aborted: a trigger for it should be taken."""
        return checkpoint_id > self.latest_performed and checkpoint_id not in self._aborted

    def was_aborted(self, checkpoint_id: int) -> bool:
        return checkpoint_id in self._aborted

    # -- the work ----------------------------------------------------------------------------
    def perform(self, chain, checkpoint_id: int, timestamp_ms: int, options: dict, alignment: dict, *,
                unaligned: bool = False, input_channels: dict | None = None, input_channel_ids=(),
                awaiting_barriers: bool = False) -> None:
        """Pre-barrier, barrier downstream, synchronous snapshot, then the asynchronous part.

        ``input_channels`` (unaligned): input channel index -> items, still being filled while
        ``awaiting_barriers``; the asynchronous part then starts at ``channel_state_complete``.
        """
        self.latest_performed = max(self.latest_performed, checkpoint_id)
        maybe_kill(self.kill_hook, "snapshot", self.task_id, {"checkpoint_id": checkpoint_id})
        sync_started = time.perf_counter()
        chain.prepare_snapshot_pre_barrier(checkpoint_id)
        snapshot = TaskStateSnapshot(self.task_id, self.key_group_range)
        if unaligned:
            barrier = CheckpointBarrier(checkpoint_id, timestamp_ms, {**options, "unaligned": True})
            snapshot.output_channels = chain.broadcast_priority_event(barrier)
            snapshot.input_channels = input_channels if input_channels is not None else {}
            snapshot.input_channel_ids = list(input_channel_ids)
        else:
            chain.broadcast_event(CheckpointBarrier(checkpoint_id, timestamp_ms, options))
        for operator in chain.operators:
            operator.snapshot_state(checkpoint_id)
            snapshot.add_operator(operator.node_id, operator.context.snapshot_backends())
        metrics = {"start_delay": alignment.get("start_delay", 0.0),
                   "alignment_duration": alignment.get("alignment_duration", 0.0),
                   "sync_duration": (time.perf_counter() - sync_started) * 1000, "unaligned": unaligned}
        checkpointed = checkpointed_metrics(chain.operators)
        if checkpointed:
            metrics["checkpointed"] = checkpointed
        job = (checkpoint_id, options, snapshot, metrics)
        if awaiting_barriers:
            self._deferred[checkpoint_id] = job
        else:
            self._submit(job)

    def channel_state_complete(self, checkpoint_id: int) -> None:
        """Every barrier of unaligned checkpoint ``checkpoint_id`` arrived: write it."""
        job = self._deferred.pop(checkpoint_id, None)
        if job is not None:
            self._submit(job)

    def is_deferred(self, checkpoint_id: int) -> bool:
        return checkpoint_id in self._deferred

    def add_output_state(self, checkpoint_id: int, output_channels: dict) -> None:
        """Aligned timeout: barriers still queued were turned unaligned; what they overtook is
        this checkpoint's output channel state."""
        job = self._deferred.get(checkpoint_id)
        if job is not None and output_channels:
            job[2].output_channels.update(output_channels)
            job[3]["unaligned"] = True

    def discard_deferred(self, checkpoint_id: int) -> None:
        """The unaligned checkpoint was aborted before its last barrier: nothing to write."""
        self._deferred.pop(checkpoint_id, None)

    def _submit(self, job: tuple) -> None:
        if self.snapshot_executor is None:
            self._complete_asynchronously(*job)
        else:
            self._asynchronous_parts = [part for part in self._asynchronous_parts if not part.done()]
            self._asynchronous_parts.append(self.snapshot_executor.submit(self._complete_asynchronously, *job))

    def decline_not_running(self, chain, checkpoint_id: int) -> None:
        """Tell downstream and the coordinator that this subtask cannot take the checkpoint."""
        chain.broadcast_event(CancelCheckpointMarker(checkpoint_id))
        self.decline(checkpoint_id, f"{DECLINE_NOT_RUNNING}: subtask {self.name} is not running")

    def decline(self, checkpoint_id: int, reason: str) -> None:
        try:
            self.gateway.decline_checkpoint(checkpoint_id, self.task_id, reason)
        except Exception:  # the JobMaster went away; nothing to tell
            logger.debug("decline of %s by %s not delivered", checkpoint_id, self.name)

    def completed(self, checkpoint_id: int) -> None:
        self.latest_completed = max(self.latest_completed, checkpoint_id)

    def aborted(self, checkpoint_id: int) -> None:
        self._aborted.add(checkpoint_id)
        if len(self._aborted) > MAX_REMEMBERED_ABORTS:
            self._aborted = set(sorted(self._aborted)[-MAX_REMEMBERED_ABORTS // 2:])

    def wait_for_asynchronous_parts(self) -> None:
        """Acknowledge before reporting finished: a checkpoint this subtask took must get its
        state, not be completed as if the subtask had finished before it."""
        for part in self._asynchronous_parts:
            part.result()
        if self._asynchronous_failure is not None:
            raise self._asynchronous_failure

    # -- the asynchronous part (snapshot thread) --------------------------------------------
    def _complete_asynchronously(self, checkpoint_id: int, options: dict, snapshot: TaskStateSnapshot,
                                 metrics: dict) -> None:
        started = time.perf_counter()
        try:
            maybe_kill(self.kill_hook, "async_upload", self.task_id, {"checkpoint_id": checkpoint_id})
            handle, size, persisted = self._write_state(checkpoint_id, options, snapshot)
            maybe_kill(self.kill_hook, "before_ack", self.task_id, {"checkpoint_id": checkpoint_id})
        except SimulatedFailure as error:
            self.decline(checkpoint_id, f"{DECLINE_NOT_RUNNING}: {error}")
            self._asynchronous_failure = error
            self._report_throwable(error)
            return
        except Exception as error:
            logger.warning("asynchronous part of checkpoint %s failed in %s: %s", checkpoint_id, self.name, error)
            self.decline(checkpoint_id, f"{DECLINE_FAILURE}: {type(error).__name__}: {error}")
            return
        if self.canceled:
            return
        metrics = {**metrics, "async_duration": (time.perf_counter() - started) * 1000,
                   "state_size": size, "processed_data": 0, "persisted_data": persisted,
                   "ack_timestamp": int(_now_ms())}
        self.gateway.acknowledge_checkpoint({"checkpoint_id": checkpoint_id, "task": list(self.task_id),
                                             "state": handle, "metrics": metrics})

    def _write_state(self, checkpoint_id: int, options: dict, snapshot: TaskStateSnapshot):
        if snapshot.is_empty():
            return None, 0, 0
        data, described, persisted = snapshot.serialise()
        location = options.get("location") or storage.join(
            self.config.get("checkpoint_storage", "checkpoints"), f"chk-{checkpoint_id}")
        # a random suffix: a late write of a job fenced meanwhile never replaces a file of the job that took
        # over under the same checkpoint id (``engine.checkpoint.storage``)
        name = f"{_safe_name(self.task_id[0])}-{self.task_id[1]}-{uuid.uuid4().hex[:8]}.state"
        grants = Grants.of(self.config)
        if grants is not None and "://" not in location:
            size = write_confined(location, name, data, snapshot_directories(
                grants, str(self.config.get("checkpoint_storage", "checkpoints"))))
        else:
            size = storage.write_file(location, name, data)
        handle = {"path": name, "size": size, "key_group_range": self.key_group_range.as_list(),
                  "operators": described, "persisted_data": persisted, DIGEST: digest(data)}
        return handle, size, persisted
