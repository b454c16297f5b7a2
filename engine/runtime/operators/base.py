"""The operator contract: how a StreamTask drives the operators of its chain.

Life cycle (all calls in the subtask's mailbox thread, in this order)::

    __init__(node, context)       build from the definition's node; compile expressions
    initialize_state()            register states; restore them (CheckpointedFunction)
    open()
    ( process_batch(batch)        a list of records, to be treated as read-only
    | process_watermark(wm)       event time advanced on every input
    | process_watermark_status(s) every input went idle, or one became active again
    | prepare_snapshot_pre_barrier(id)      just before the barrier goes downstream
    | snapshot_state(id)          put what is not in registered state into it; pre-commit
    | notify_checkpoint_complete(id) | notify_checkpoint_aborted(id)   (CheckpointListener)
    )*
    finish()                      end of input: flush what is buffered (fire windows, ...)
    close()                       release resources (also after failures)

``finish`` is called only when the input ended normally: a bounded input ran out, or the
job was stopped with a savepoint and ``--drain``. It is *not* called when the subtask is
canceled, fails, or is stopped with a savepoint without drain (the savepoint holds what is
buffered; the restored job emits it). ``close`` is called in every case (seed 002:
Flink 1.14 renamed close/dispose to finish/close for exactly this distinction).

Batch mode adds one hook for keyed operators: their input arrives grouped by key, and
after the records of a group of keys the task calls ``finish_keys()`` -- emit the final
results of those keys now (a window fires every window of them) -- and then drops their
keyed state (``OperatorContext.clear_keyed_state``).

Records for a named output port (a window's ``"late"`` records) go through
``self.side_outputs[port](batch)``; a port no edge leaves is absent from ``side_outputs``
(its records are dropped and counted by the operator). Watermarks and events reach the
port's edges like the main output's.

Output goes through ``self.emit(batch)``, ``self.emit_watermark(watermark)`` and
``self.emit_watermark_status(status)``, which the chain binds to the next operator's
``process_batch`` (``process_watermark``, ``process_watermark_status``) or to the record
writers. An operator builds a new list for its output and never mutates the list it was
given: within a process the same list object may be read by several consumers.

Operators register their state with ``context.keyed_state()`` (keyed by the key of the hash
edge feeding them) or ``context.operator_state()`` (lists of elements); the task copies
registered state at every checkpoint, so an operator that keeps everything in registered
state needs no snapshot code at all.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.runtime.io.events import Watermark, WatermarkStatus


class ConfigurationError(ValueError):
    """A node's configuration cannot work: a path that matches nothing, a refused connection, a
    missing table. The message names the node and the cause and is shown as it is (no traceback):
    the user fixes the definition or the outside system, not the engine."""

    def __init__(self, node: dict, cause: str):
        self.node_id = node["id"]
        self.cause = cause
        super().__init__(f"node '{node['id']}' ({node.get('type')}): {cause}")


def compile_expression_function(source: str, names: tuple[str, ...] = ("x",)) -> Callable:
    """Compile an expression of the definition once, return the per-record callable ``fn(x)``."""
    from engine.spec.expressions import compile_expression

    return compile_expression(source, names=names).function


class StreamOperator:
    """Base of all operators; every hook has an empty default."""

    requires_final_checkpoint = False
    """Two-phase-commit sinks: at end of input, wait for a checkpoint covering the last data."""

    @classmethod
    def awaits_final_checkpoint(cls, node: dict) -> bool:
        """``requires_final_checkpoint`` of an instance for ``node`` in a job that takes
        checkpoints, known before one is built."""
        return False

    def __init__(self, node: dict, context: "OperatorContext"):
        self.node = node
        self.node_id: str = node["id"]
        self.params: dict = node.get("params") or {}
        self.context = context
        self.emit: Callable[[list], None] = _discard
        self.emit_watermark: Callable[[Watermark], None] = _discard
        self.emit_watermark_status: Callable[[WatermarkStatus], None] = _discard
        self.side_outputs: dict[str, Callable[[list], None]] = {}
        """Named output port -> emit function, for the ports an edge leaves (bound by the chain)."""

    def initialize_state(self) -> None:
        """Register and restore state (``self.context.is_restored`` says whether restored)."""

    def open(self) -> None:
        """Prepare for processing."""

    def process_batch(self, batch: list) -> None:
        raise NotImplementedError(f"{type(self).__name__}.process_batch() must be overridden")

    def handle_operator_event(self, event: dict) -> None:
        """An event from this operator's coordinator in the JobMaster (``context.send_operator_event``)."""
        raise TypeError(f"operator '{self.node_id}' has no coordinator, yet got {event.get('kind')!r}")

    def emit_int_arrays(self) -> bool:
        """Asked by the chain when what follows takes columnar batches (``engine.runtime.columnar``):
        True when this operator will emit int64 arrays from now on. Only a source of plain
        integers can; every other operator answers False and emits lists."""
        return False

    def project_records(self, fields: frozenset[str], tap_points) -> bool:
        """Asked of a chain's head when the job reads only ``fields`` of its records
        (``engine.runtime.projection``): True when this operator will emit records of only those
        fields from now on, whole ones while one of ``tap_points`` is open. Only a JSON source
        can; every other operator answers False."""
        return False

    def decode_json_fields(self, decoder) -> bool:
        """Asked of a chain's head that projects its records when the rest of the chain runs on
        projected JSON records decoded into fields (``engine.runtime.json_fields``): True when
        this operator will emit ``decoder``'s batches from now on (records where it gives None, and
        while a tap of its chain is open). Only a JSON-lines file source can."""
        return False

    def record_wise_step(self) -> tuple[str, str] | None:
        """``("map", expression)`` or ``("filter", predicate)`` when this operator is nothing but that
        step, record by record, without state: the chain may then run it fused with its neighbours
        (``OperatorChain``). None for every other operator."""
        return None

    def process_watermark(self, watermark: Watermark) -> None:
        self.emit_watermark(watermark)

    def process_watermark_status(self, status: WatermarkStatus) -> None:
        """Pass idleness on: what this operator emits is as idle as its input."""
        self.emit_watermark_status(status)

    def prepare_snapshot_pre_barrier(self, checkpoint_id: int) -> None:
        """Last chance to emit records that belong before the barrier."""

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Move what is not kept in registered state into it (positions, pending commits)."""

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` (and so every older one) completed: commit side effects."""

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` will not complete."""

    def finish(self) -> None:
        """End of input: emit what is buffered."""

    def finish_keys(self) -> None:
        """Batch mode: no record of the keys seen since the last call follows; emit their results.

        The task clears the operator's keyed state right after. The default does nothing,
        which suits operators that emit per record (running aggregates).
        """

    def close(self) -> None:
        """Release resources; called after ``finish`` or after a failure."""

    def result(self) -> dict:
        """What the task reports when it finished (collect sinks: their records)."""
        return {}

    def metrics(self) -> dict:
        """Extra metrics merged into the task's periodic report."""
        return {}

    def latency_marker_reached(self, source: str, marked_ms: float) -> None:
        """A latency marker ``source`` emitted at ``marked_ms`` (epoch ms) reached this operator now;
        the chain records its age already. Per marker, not per record: two-phase-commit sinks time it
        until their commit (``visible_latency``)."""

    def source_lag(self) -> list[dict] | None:
        """Sources: what is left to read, one ``source_lag.split_lag`` entry per split held; None
        for an operator that reads nothing from outside (the default). Called with every metrics
        report, on the mailbox thread; it may ask the source's system (one cheap request)."""
        return None

    def node_figures(self) -> dict:
        """What the run graph shows of this operator beside the counts the chain keeps for it: the
        ``late_records`` it dropped (operators that count them: windows, joins, dedup), and, when
        what arrives stands for more records than it is, ``records_in`` as those records with
        ``partials_in`` as what arrived (a window fed partial aggregates, ``window_partials``).
        Called with every metrics report, on the mailbox thread: counters only. An operator
        that fires windows has ``emit_delays`` (``emit_delay.EmitDelays``): their figures too."""
        late = getattr(self, "late_records", None)
        figures = {} if late is None else {"late_records": late}
        delays = getattr(self, "emit_delays", None)
        if delays is not None:
            figures.update(delays.figures())
        return figures


def _discard(_item) -> None:
    pass


class OperatorContext:
    """What an operator may use from its subtask: identity, state, time, mail, configuration."""

    def __init__(self, *, task, node_id: str, parallelism: int, max_parallelism: int, config: dict,
                 key_group_range=None, key_function: Callable | None = None,
                 batch_key_function: Callable[[list], list] | None = None, key_expression: str | None = None,
                 restore=None,
                 mailbox_executor=None, timer_service=None, kill_hook: Callable | None = None,
                 pre_aggregated_input: bool = False, side_key_functions: dict[str, Callable] | None = None,
                 send_operator_event: Callable[[dict], None] | None = None):
        self.task = task
        self.vertex_id, self.subtask_index = task
        self.node_id = node_id
        self.parallelism = parallelism
        self.max_parallelism = max_parallelism
        self.config = config
        self.key_group_range = key_group_range
        self.key_function = key_function
        """The key selector of the hash edge feeding this operator (keyed operators)."""
        self.batch_key_function = batch_key_function or (
            (lambda batch: [key_function(x) for x in batch]) if key_function is not None else None)
        """The same selector over a whole batch, ``f(batch) -> keys``, the expression inline."""
        self.key_expression = key_expression
        """The selector's text, for an operator that compiles it into a loop of its own; None when
        the key comes as a function only."""
        self.side_key_functions = side_key_functions
        """Two-input operators: ``{side: f(batch) -> keys}`` of the hash edge feeding each side."""
        self.pre_aggregated_input = pre_aggregated_input
        """A window's input edge carries partial aggregates (``window_partials``), not records."""
        self.restore = restore
        self.send_operator_event = send_operator_event
        """Sends an event to this operator's coordinator in the JobMaster (answers arrive through
        ``StreamOperator.handle_operator_event``); None for an operator without one."""
        self.mailbox_executor = mailbox_executor
        self.timer_service = timer_service
        self.kill_hook = kill_hook
        self.poll_budget: Callable[[], int | None] | None = None
        """Sources: the most records one poll should return now (buffer debloating), or None."""
        self._keyed_backend = None
        self._operator_backend = None

    @property
    def is_restored(self) -> bool:
        """Whether this operator starts from a checkpoint that contained it."""
        return self.restore is not None and self.restore.knows(self.node_id)

    def keyed_state(self):
        """This operator's :class:`KeyedStateBackend` (created and restored on first use)."""
        if self._keyed_backend is None:
            from engine.runtime.state.key_groups import KeyGroupRange
            from engine.runtime.state.keyed_state import KeyedStateBackend

            key_group_range = self.key_group_range or KeyGroupRange.for_subtask(
                self.max_parallelism, self.parallelism, self.subtask_index)
            self._keyed_backend = KeyedStateBackend(self.max_parallelism, key_group_range)
            if self.restore is not None:
                self._keyed_backend.restore(
                    self.restore.keyed_state(self.node_id, key_group_range, self.max_parallelism))
        return self._keyed_backend

    def operator_state(self):
        """This operator's :class:`OperatorStateBackend` (created and restored on first use)."""
        if self._operator_backend is None:
            from engine.runtime.state.operator_state import OperatorStateBackend

            restored = self.restore.operator_state(self.node_id) if self.restore is not None else None
            self._operator_backend = OperatorStateBackend(restored)
        return self._operator_backend

    def clear_keyed_state(self) -> None:
        """Drop every key's state (batch mode, after ``finish_keys``)."""
        if self._keyed_backend is not None:
            self._keyed_backend.clear()

    def snapshot_backends(self):
        """The synchronous copy of this operator's registered state (for the task)."""
        from engine.runtime.state.snapshot import OperatorSnapshot

        keyed = self._keyed_backend.snapshot() if self._keyed_backend is not None else None
        operator = self._operator_backend.snapshot() if self._operator_backend is not None else None
        return OperatorSnapshot(keyed, operator)

    def maybe_kill(self, point: str, **info: Any) -> None:
        """Test hook: let the in-process cluster kill this subtask at a named point."""
        if self.kill_hook is not None:
            from engine.runtime.kill_hooks import maybe_kill

            maybe_kill(self.kill_hook, point, self.task, {"node": self.node_id, **info})
