"""The two-phase-commit sink template: one transaction per subtask and checkpoint (seed 001, §5).

A subclass says how to write into an external system; this class says when::

    begin_transaction()           at the first batch after a pre-commit
    write(transaction, batch)     every batch
    pre_commit(transaction, n)    snapshot of checkpoint n: make it durable, invisible -> committable
    commit(committable)           checkpoint n (or a later one) completed: make it visible; idempotent
    abort(transaction)            close after a failure: drop the open transaction

Identity. Every transaction carries the sink's *transaction prefix* (kept in operator state,
so a restored job, even a new run restored from a savepoint, keeps it; every subtask holds
it, so a subtask restored at another parallelism has it too), the writing
subtask's index and, once pre-committed, the checkpoint id. At the first start the prefix
is derived from the run's checkpoint location and the node id: unique per run, the same for
every attempt of that run.

Recover-and-commit, recover-and-abort (on every start). The pending list in operator state
says what a checkpoint covers, but the external system says it too, and says it to exactly
one owner after a rescale, so recovery asks the external system: Before writing anything, a subtask
lists what this sink left in the external system (``leftovers``): transactions pre-committed
for a checkpoint up to the one restored were covered by it and are committed again
(``commit_leftover``, a no-op when they were committed before); transactions of later
checkpoints, of no checkpoint (still open when an attempt died) or of a start without a
checkpoint are rolled back (``abort_leftover``). A subtask handles the leftovers of old
subtask ``k`` when ``k % parallelism`` is its index, so after a rescale every leftover has
exactly one owner and no two subtasks touch the same one.

Ids of another history. A job numbers its checkpoints after every ``chk-<id>`` of its directory, and
each completed checkpoint names the ids below it its history skipped (``foreign_ids``): those a
fenced job that drove the run before took, which it may pre-commit under even after this job's
recovery ran (a driver that stalled and woke). Recovery rolls those back whatever the restored id,
so a later restore does not commit records the job that took over wrote again.

Aborted checkpoints. ``notify_checkpoint_aborted(n)`` does not drop the transaction
pre-committed for n: the records in it are already past the sources' positions, and
dropping them would lose them. It stays pending and the next completed checkpoint, which
covers it, commits it (as Flink's two-phase-commit sinks do). What an aborted or superseded
checkpoint leaves behind for good -- its transactions after a failover -- is removed by the
recovery above, the only moment when it is known to be dead.

Visible latency (``visible_latency``): what arrives, and every latency marker that reaches the
sink, is timed until the commit that makes it readable outside; the figures are the sink's
``node_figures``.

End of input: with checkpointing on, the subtask waits for a checkpoint covering its last
data (``requires_final_checkpoint``); with it off, ``finish`` commits directly.

Restored state is data (``restored_state``). A restored prefix must have the form sinks
derive (a label and twelve hex digits): it becomes part of file names, keys and
transaction ids. A pending list is committed from the state only for a snapshot of a
version without prefixes, and only after ``check_restored`` accepted every transaction in
it as one the sink could have made in its own target; what recovery finds is searched
under the sink's own names in its own target only.
"""
from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any, Iterable

from engine.checkpoint.metadata import foreign_id_ranges, is_foreign
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.restored_state import RestoredStateRefused, require, restored_dicts
from engine.runtime.operators.visible_latency import VisibleLatency
from engine.runtime.state.operator_state import BROADCAST_PREFIX

PREFIX_STATE = "transaction_prefix"
"""The operator state that holds the sink's transaction prefix (a broadcast list state: the same in every subtask)."""


class CommitError(RuntimeError):
    """A pre-committed transaction can be neither committed nor found committed: its data is lost."""


class TwoPhaseCommitSink(StreamOperator):
    """Transactions per checkpoint; subclasses implement the hooks below."""

    prefix_label = "tx"
    """Short word that starts derived prefixes (``pg``, ``part`` ...)."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.checkpointing = bool(context.config.get("checkpointing_enabled", True))
        self.pending: list[dict] = []
        self.transaction: Any = None
        self.transaction_prefix = ""
        self.attempt_token = uuid.uuid4().hex[:8]
        """Tells this operator instance's own transactions from an earlier attempt's."""
        self.committed_transactions = 0
        self.recovered = {"committed": 0, "aborted": 0}
        self.aborted_checkpoints = 0
        self.visible_latency = VisibleLatency()
        self._pending_state = None

    @property
    def requires_final_checkpoint(self) -> bool:  # type: ignore[override]
        return self.checkpointing

    @classmethod
    def awaits_final_checkpoint(cls, node: dict) -> bool:
        return True

    # -- hooks ---------------------------------------------------------------------------------
    def connect(self) -> None:
        """Reach the external system and check the configuration (before recovery)."""

    def begin_transaction(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.begin_transaction() must be overridden")

    def write(self, transaction: Any, batch: list) -> None:
        raise NotImplementedError(f"{type(self).__name__}.write() must be overridden")

    def pre_commit(self, transaction: Any, checkpoint_id: int) -> dict:
        raise NotImplementedError(f"{type(self).__name__}.pre_commit() must be overridden")

    def commit(self, committable: dict) -> None:
        raise NotImplementedError(f"{type(self).__name__}.commit() must be overridden")

    def abort(self, transaction: Any) -> None:
        """Drop the open transaction (close after a failure or a cancel)."""

    def leftovers(self) -> Iterable[tuple[int, int | None, Any]]:
        """This sink's transactions in the external system: ``(subtask, checkpoint id or None, handle)``,
        without the ones of this operator instance."""
        return ()

    def commit_leftover(self, handle: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__}.commit_leftover() must be overridden")

    def abort_leftover(self, handle: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__}.abort_leftover() must be overridden")

    def check_restored(self, committable: dict) -> None:
        """Refuse (``restored_state.RestoredStateRefused``) a transaction of a restored pending list that is
        not one this sink could have made in its own target. Without a prefix nothing proves that: refused."""
        require(False, self.node, self.context, f"names the transaction {committable!r:.200} without the sink's "
                                                "transaction prefix: it cannot be told from another sink's")

    # -- life cycle --------------------------------------------------------------------------------
    def initialize_state(self):
        operator_state = self.context.operator_state()
        restored_prefix = self._restored_prefix(operator_state)
        self.transaction_prefix = restored_prefix or self._derived_prefix()
        operator_state.broadcast_list_state(PREFIX_STATE).update([self.transaction_prefix])
        self._pending_state = operator_state.list_state("pending")
        restored_pending = restored_dicts(self.node, self.context, "pending", self._pending_state.get())
        self._pending_state.update([])
        self.connect()
        restored_id = self.context.restore.checkpoint_id if self.context.is_restored else 0
        if restored_prefix is None:  # a checkpoint of a version without prefixes: its list is all we know
            for committable in restored_pending:  # every one checked before any is committed
                self.check_restored(committable)
            for committable in restored_pending:
                self.commit(committable)
        self._recover(restored_id)

    def _restored_prefix(self, operator_state) -> str | None:
        """The transaction prefix the restored snapshot holds for this sink, or None (no snapshot, or one of a
        version without prefixes).

        A sink has one prefix, at any parallelism: every subtask keeps a copy (broadcast state), and every
        copy any old subtask wrote is read here. Snapshots of versions that kept it as a plain list state
        are read the same way: restored at another parallelism, that state is dealt out round robin, and a
        new subtask could get a share of the pending transactions but no prefix. Every copy must be a
        prefix this sink could make, and all must be the one prefix of the sink."""
        operator_state.broadcast_list_state(PREFIX_STATE)  # what it restored is read below with the rest
        if not self.context.is_restored:
            return None
        written = self.context.restore.written_operator_state(self.node_id)
        prefixes = [prefix for state in written for name in (BROADCAST_PREFIX + PREFIX_STATE, PREFIX_STATE)
                    for prefix in state.get(name, ())]
        if any(PREFIX_STATE in state for state in written):
            operator_state.list_state(PREFIX_STATE).clear()  # the old form is not written again
        for prefix in prefixes:
            require(self.makes_prefix(prefix), self.node, self.context,
                    f"holds the transaction prefix {prefix!r:.80}, which this sink does not make")
        distinct = sorted(set(prefixes))
        require(len(distinct) <= 1, self.node, self.context,
                f"holds {len(distinct)} transaction prefixes ({', '.join(distinct):.120}) for one sink: "
                "it cannot be told which transactions are the sink's own")
        return distinct[0] if distinct else None

    def makes_prefix(self, prefix) -> bool:
        """Whether ``prefix`` has the form ``_derived_prefix`` gives: a sink's label and twelve hex digits (any
        sink's: a node that changed its sink type between versions keeps its prefix)."""
        return isinstance(prefix, str) and re.fullmatch(r"[a-z]{1,4}[0-9a-f]{12}", prefix) is not None

    def _derived_prefix(self) -> str:
        run = str(self.context.config.get("checkpoint_storage") or uuid.uuid4().hex)
        digest = hashlib.sha1(f"{run}\0{self.node_id}".encode()).hexdigest()[:12]
        return f"{self.prefix_label}{digest}"

    def _recover(self, restored_id: int) -> None:
        parallelism, index = self.context.parallelism, self.context.subtask_index
        foreign = self._foreign_ids()
        for subtask, checkpoint_id, handle in self.leftovers():
            if subtask % parallelism != index:
                continue
            if checkpoint_id is not None and checkpoint_id <= restored_id and not is_foreign(checkpoint_id, foreign):
                self.commit_leftover(handle)
                self.recovered["committed"] += 1
            else:
                self.abort_leftover(handle)
                self.recovered["aborted"] += 1

    def _foreign_ids(self) -> list[list[int]]:
        """The restored checkpoint's ids that are not of its history (``engine.checkpoint.metadata``)."""
        if not self.context.is_restored:
            return []
        try:
            return foreign_id_ranges(self.context.restore.metadata)
        except ValueError as error:
            raise RestoredStateRefused(self.node, self.context, f"is of a checkpoint whose {error}") from None

    def process_batch(self, batch):
        if not batch:
            return
        self.visible_latency.arrived(len(batch))
        if self.transaction is None:
            self.transaction = self.begin_transaction()
        if self.context.kill_hook is not None and len(batch) > 1:  # a crash may come with half a batch written
            half = len(batch) // 2
            self.write(self.transaction, batch[:half])
            self.context.maybe_kill("mid_batch", records=len(batch), written=half)
            batch = batch[half:]
        self.write(self.transaction, batch)

    def process_watermark(self, watermark):
        pass

    def latency_marker_reached(self, source: str, marked_ms: float) -> None:
        self.visible_latency.marker_reached(source, marked_ms)

    def _pre_commit(self, checkpoint_id: int) -> None:
        self.visible_latency.pre_committed(checkpoint_id)
        if self.transaction is None:
            return
        transaction, self.transaction = self.transaction, None
        committable = self.pre_commit(transaction, checkpoint_id)
        self.pending.append({**committable, "checkpoint_id": checkpoint_id})

    def snapshot_state(self, checkpoint_id):
        self._pre_commit(checkpoint_id)
        self._pending_state.update(dict(entry) for entry in self.pending)

    def notify_checkpoint_complete(self, checkpoint_id):
        ready = [entry for entry in self.pending if entry["checkpoint_id"] <= checkpoint_id]
        for committable in ready:
            self.commit(committable)
            self.committed_transactions += 1
        self.pending = [entry for entry in self.pending if entry["checkpoint_id"] > checkpoint_id]
        self.visible_latency.committed(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id):
        """Keep its transaction pending: the next completed checkpoint commits it (see the module)."""
        if any(entry["checkpoint_id"] == checkpoint_id for entry in self.pending):
            self.aborted_checkpoints += 1

    def finish(self):
        if not self.checkpointing:
            self._pre_commit(0)
            self.notify_checkpoint_complete(0)

    def close(self):
        if self.transaction is not None:
            transaction, self.transaction = self.transaction, None
            self.abort(transaction)

    def node_figures(self) -> dict:
        return {**super().node_figures(), **self.visible_latency.figures()}

    def metrics(self):
        return {"pending_transactions": len(self.pending), "aborted_transactions": self.aborted_checkpoints}
