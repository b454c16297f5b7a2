"""Operator coordinators: the JobMaster's side of operators that need one (split enumerators).

A coordinator with ``order_by_event_time(timestamp)`` (split enumerators) is told, before any
event, the event-time expression of the watermark node in its source's chain
(``chain_event_time``), so it can hand out splits earliest in event time first.

An operator factory with a ``coordinator`` attribute gets, for each of its nodes, one
coordinator per job run: ``coordinator(node, restored_state, restored_node)``, where
``restored_state`` is what its ``snapshot`` returned in the checkpoint the job starts from
(None: none) and ``restored_node`` says whether that checkpoint had the node at all; the
keywords ``config`` (the slots' configuration, grants included) and ``snapshot`` (the
restored checkpoint's location, for messages). Restored state is data: a coordinator
checks it against its node's configuration before it hands any of it out.

A coordinator answers events of its operator's subtasks (``handle_event(subtask, event)``
returns the answer, or None) and takes part in checkpoints (``snapshot(checkpoint_id)``,
``checkpoint_complete(checkpoint_id)``) and restarts (``subtasks_reset(subtasks,
checkpoint_id)``). Subtasks send events through ``JobMasterGateway.send_operator_event``;
answers go back through the slot's ``TaskExecutorGateway.deliver_operator_event``, into the
subtask's mailbox.

One lock orders, for every coordinator:

- answering an event, with the check that the asking subtask's attempt is still current
  (an answer to an attempt being restarted would be given back by nobody);
- a checkpoint's snapshot, with the sending of its triggers (``checkpoint``): an answer
  sent before the triggers reaches the subtask's mailbox before its trigger does, so each
  answer is in exactly one of the coordinator's snapshot and the subtask's;
- a restart's giving back of what the restarted subtasks got after their checkpoint.

Watermark alignment groups (``engine.runtime.watermark_alignment``) are coordinated here too:
a source subtask whose chain's watermark node aligns it reports its watermark as an event of
that node; the answer is its bound, and a report that moves the bound also wakes the group's
paused members it lets go on (events to other subtasks than the asking one). They keep no
checkpointed state: a restart forgets the restarted members, which report afresh.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from engine.plan.execution_ids import TaskId
from engine.runtime.operators import coordinator_factory
from engine.runtime.operators.watermark import source_watermark_index
from engine.runtime.state.restore import TaskRestore
from engine.runtime.watermark_alignment import WatermarkAlignmentGroup, aligned_sources

logger = logging.getLogger(__name__)


def chain_event_time(operators: list[dict]) -> str | None:
    """The timestamp expression of the watermark node in a source's chain (``operators``, the source
    first), when only record-keeping operators lie between (``source_watermark_index``): the event time
    of the source's own records, which a split enumerator orders its splits by (``file_splits``) and
    that node's watermark keeps behind the splits still to read. None otherwise."""
    position = source_watermark_index(operators)
    if position is None:
        return None
    timestamp = (operators[position].get("params") or {}).get("timestamp")
    return timestamp if isinstance(timestamp, str) and timestamp.strip() else None


SPLIT_SPAN_SHARE = 8
"""An aligned file source's splits cover about 1/8 of the alignment's drift in event time each."""


def split_span_ms(job_graph, vertex) -> int | None:
    """The event time each split of source ``vertex`` should cover at most: a share of its watermark
    alignment's drift (None when its subtasks are not aligned).

    Why: neighbouring splits of a time-ordered input lie a split's span apart in event time, so a
    subtask starting its next split jumps that far ahead of the other subtasks. Spanning more than
    the drift, the jump pauses it (and leaves its CPU idle) until the others caught up; 4 MiB of
    ``make bench-events``' events span ~25 s against a 10 s drift (``docs/performance.md``,
    "Splits by event time")."""
    for members in aligned_sources(job_graph).values():
        for (vertex_id, _), (_, settings) in members.items():
            if vertex_id == vertex.id:
                return max(1, settings.max_drift_ms // SPLIT_SPAN_SHARE)
    return None


class OperatorCoordinators:
    """Every coordinator of a job run, by node id, behind one lock."""

    def __init__(self, job_graph, restore: dict | None, slot_of: Callable[[TaskId], Any], config: dict | None = None):
        self._slot_of = slot_of
        self._lock = threading.Lock()
        self._coordinators: dict[str, Any] = {}  # guarded by: self._lock
        self._undelivered: dict[TaskId, list[tuple[str, dict]]] = {}  # guarded by: self._lock
        self._vertex_of: dict[str, str] = {}
        states = (restore or {}).get("coordinators") or {}
        aliases = TaskRestore.aliases_of(node for vertex in job_graph.vertices for node in vertex.operators)
        restored = TaskRestore(restore, 0, 1, aliases) if restore else None  # only asked which operators it had
        for vertex in job_graph.vertices:
            for node in vertex.operators:
                factory = coordinator_factory(node)
                if factory is not None:
                    known = restored is not None and restored.knows(node["id"])
                    state_id = restored.state_id(node["id"]) if restored is not None else node["id"]
                    state = states.get(state_id) if isinstance(states, dict) else states  # not a dict: refused
                    self._coordinators[node["id"]] = factory(node, state, known, config=config,
                                                             snapshot=(restore or {}).get("location"))
                    self._vertex_of[node["id"]] = vertex.id
                    timestamp = chain_event_time(vertex.operators) if node is vertex.operators[0] else None
                    order_by = getattr(self._coordinators[node["id"]], "order_by_event_time", None)
                    if timestamp is not None and order_by is not None:
                        order_by(timestamp, split_span_ms(job_graph, vertex))
        self._alignment: dict[TaskId, tuple[str, WatermarkAlignmentGroup]] = {}  # guarded by: self._lock
        """Every aligned source subtask: its watermark node and its group."""
        for name, members in aligned_sources(job_graph).items():
            group = WatermarkAlignmentGroup(name, {member: settings.max_drift_ms
                                                   for member, (_, settings) in members.items()})
            for member, (node_id, _) in members.items():
                self._alignment[member] = (node_id, group)

    def __bool__(self) -> bool:
        return bool(self._coordinators) or bool(self._alignment)

    def has(self, node_id: str) -> bool:
        return node_id in self._coordinators

    def handle_event(self, task: TaskId, node_id: str, event: dict, is_current: Callable[[], bool]) -> None:
        """An event of subtask ``task``'s operator ``node_id``; the answer goes back to that subtask."""
        if event.get("kind") == "watermark":
            aligned = self._alignment.get(task)
            if aligned is not None and aligned[0] == node_id:
                self._watermark_reported(task, node_id, event, is_current)
                return
        with self._lock:
            coordinator = self._coordinators.get(node_id)
            if coordinator is None:
                logger.warning("an event for node %s, which has no coordinator", node_id)
                return
            if not is_current():
                return  # a subtask of an attempt being restarted: whatever it asked for, it will ask again
            try:
                answer = coordinator.handle_event(task[1], event)
            except Exception as error:  # the subtask fails with it; the JobMaster's thread goes on
                logger.exception("the coordinator of node %s failed on %s", node_id, event.get("kind"))
                answer = {"kind": "error", "message": f"its coordinator failed: {error!r}"}
            if answer is None:
                return
            self._deliver_locked(task, node_id, answer)

    def _watermark_reported(self, task: TaskId, node_id: str, event: dict, is_current: Callable[[], bool]) -> None:
        """An aligned source subtask's watermark report: answer its bound, wake whom it lets go on."""
        with self._lock:
            if not is_current():
                return  # a subtask of an attempt being restarted: it reports afresh
            _, group = self._alignment[task]
            watermark = event.get("watermark")
            try:
                bound, wakes = group.report(task, None if watermark is None else int(watermark),
                                            str(event.get("status")), bool(event.get("paused")))
            except (KeyError, TypeError, ValueError) as error:
                self._deliver_locked(task, node_id, {"kind": "error", "message": f"watermark alignment: {error}"})
                return
            self._deliver_locked(task, node_id, {"kind": "watermark_bound", "bound": bound})
            self._wake_locked(wakes)

    def _wake_locked(self, wakes) -> None:
        for member, bound in wakes:
            self._deliver_locked(member, self._alignment[member][0], {"kind": "watermark_bound", "bound": bound})

    def _deliver_locked(self, task: TaskId, node_id: str, answer: dict) -> None:
        slot = self._slot_of(task)
        if slot is None:  # its slot runs but is not known yet (``slot_running`` delivers), or is going away
            self._undelivered.setdefault(task, []).append((node_id, answer))
        else:
            slot.deliver_operator_event(task, node_id, answer)

    def alignment_figures(self) -> dict[str, dict]:
        """``{group: {"minimum", "paused", "most_ahead"}}`` of every watermark alignment group."""
        with self._lock:
            groups = {group.name: group for _, group in self._alignment.values()}
            return {name: group.figures() for name, group in groups.items()}

    def slot_running(self, slot, tasks) -> None:
        """The JobMaster knows ``slot`` now: deliver what its subtasks were answered before.

        A Spark slot's subtasks start once every slot of their stage registered, which can be
        just before the JobMaster records the last one; nothing else reaches the slot before
        this (checkpoints are triggered once every slot runs)."""
        with self._lock:
            for task in tasks:
                for node_id, answer in self._undelivered.pop(task, ()):
                    slot.deliver_operator_event(task, node_id, answer)

    def checkpoint(self, checkpoint_id: int, send_triggers: Callable[[], None]) -> dict:
        """Snapshot every coordinator and send the checkpoint's triggers, with no answer in between."""
        with self._lock:
            states = {node_id: coordinator.snapshot(checkpoint_id)
                      for node_id, coordinator in self._coordinators.items()}
            send_triggers()
        return {node_id: state for node_id, state in states.items() if state is not None}

    def lag(self) -> dict[str, dict]:
        """``{node id: lag}`` of every coordinator that keeps what its subtasks have not taken yet
        (a split enumerator's ``lag()``): the source lag no subtask can report."""
        with self._lock:
            return {node_id: coordinator.lag() for node_id, coordinator in self._coordinators.items()
                    if callable(getattr(coordinator, "lag", None))}

    def checkpoint_complete(self, checkpoint_id: int) -> None:
        with self._lock:
            for coordinator in self._coordinators.values():
                coordinator.checkpoint_complete(checkpoint_id)

    def subtasks_reset(self, tasks, restore: dict | None) -> None:
        """``tasks`` start again from ``restore`` (a checkpoint's metadata; None: from nothing)."""
        checkpoint_id = int(restore["checkpoint_id"]) if restore and "checkpoint_id" in restore else None
        with self._lock:
            for task in tasks:
                self._undelivered.pop(task, None)  # answers to the attempt that ended: taken back below
            for node_id, coordinator in self._coordinators.items():
                subtasks = {index for vertex, index in tasks if vertex == self._vertex_of[node_id]}
                if subtasks:
                    coordinator.subtasks_reset(subtasks, checkpoint_id)
            restarted = set(tasks)
            groups = {id(group): group for member, (_, group) in self._alignment.items() if member in restarted}
            for group in groups.values():
                self._wake_locked(group.forget(member for member in restarted if member in group.drifts))
