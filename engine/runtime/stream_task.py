"""StreamTask: one subtask of a job vertex, run by its own mailbox thread.

Life cycle (``invoke``, in the subtask's thread; Flink's ``beforeInvoke`` /
``runMailboxLoop`` / ``afterInvoke``)::

    build the operator chain (compile expressions), restore state, open operators
    run the mailbox loop: mails, then the default action (one input step) ...
      ... end of data: finish operators, send EndOfData (barriers may still follow)
      ... end of input (every channel ended, or the source ran out / was stopped), and
          with a two-phase-commit sink until a checkpoint covering its last data completed
    send EndOfPartition, close operators, report finished

Everything that happens to the subtask from outside is a mail: checkpoint triggers
(sources, and subtasks whose inputs all ended), checkpoint complete / aborted, timers,
metrics reports, cancellation. The default action is suspended while there is no input
(idle) or no room in an output channel (backpressured); then the thread blocks on its
mailbox until a mail -- possibly the "resume" one -- arrives. Nothing else ever runs
operator code, so there is no checkpoint lock, sources included.

Checkpoints (seed 003, ``performCheckpoint``), once the barrier is aligned or the trigger
mail for a source runs, are taken by the subtask's :class:`SubtaskCheckpointCoordinator`
(``engine.runtime.subtask_checkpoint``): pre-barrier, barrier downstream, synchronous
snapshot, asynchronous upload and acknowledgement (or decline). An unaligned checkpoint
(see ``engine.runtime.io.barrier_handler``) is taken on the first barrier; the task then
records the channels still without a barrier (``NetworkInput.record_channels``) and the
checkpoint is written once the last barrier came. On restore the persisted channel state
is replayed first: what this subtask's barriers overtook in its output queues is pushed
into them, what it had read after its snapshot goes back to the head of its input channels.

End of data, end of input, stop (seed 002, 语义增强与完善; FLIP-147)
    *End of data*: a source ran out, or every input channel delivered EndOfData. With
    drain (the normal case) the operators ``finish`` -- flush, fire every window -- and
    EndOfData goes downstream; the subtask keeps reading, because barriers may still come
    from upstream subtasks that wait for their final checkpoint. *End of input*: every
    channel delivered EndOfPartition. A subtask then finishes, unless its chain holds a
    two-phase-commit sink: that one waits until a checkpoint taken after its end of data
    completed (its last transaction is committed then), taking the coordinator's trigger
    itself since no barrier will reach it any more. A trigger that arrives while the
    input has not quite ended (the coordinator targets subtasks whose upstream all
    finished, see ``engine.checkpoint.coordinator``) is kept and taken at end of input.

    *Stop with savepoint* is a trigger with ``{"kind": "savepoint", "stop": true,
    "drain": bool}`` (see ``engine.runtime.gateway``), taken by sources:

    - without drain: the source takes the savepoint (its barrier goes downstream), then
      polls no more. Downstream subtasks snapshot on the barrier as usual. When the
      savepoint completed, the source sends EndOfData(drain=False) and ends; consumers
      pass that on and end without ``finish`` (the savepoint holds what is buffered, the
      restored job emits it: no loss, no duplicates); their 2PC sinks committed the
      savepoint's transaction on its completion. If the savepoint fails, the source
      polls again: the job goes on.
    - with drain: the source emits the maximum watermark, finishes its operators and
      sends EndOfData, then takes the savepoint, so every downstream subtask finishes
      (all windows fire) before the barrier reaches it; the sources end (EndOfPartition)
      once it completed. If that savepoint fails the source fails: its input is gone,
      the job recovers from its latest checkpoint.

    ``finish`` is called only on a normal end (bounded input or drain); ``close`` always.
    Where a subtask is in all this is its :attr:`StreamTask.state`, one class per state
    (``engine.runtime.task_lifecycle``): each event returns the next state, and the task
    assigns it from those returns only. Whether a trigger stops the subtask is its state's
    decision (``stop_requested``).

Batch mode (``mode: "batch"``): no checkpoints; a subtask whose head operator is keyed
reads its whole input first and processes it key group by key group
(:class:`~engine.runtime.io.stream_input.SortingInput`), unless it is an aggregation
(``aggregates_by_hash``): that folds its input into a hash table as it reads it
(:class:`~engine.runtime.io.hash_aggregate_input.HashAggregateInput`; runtime configuration
``batch_aggregation: "sort"`` keeps the sort). A running aggregate is not rolling in batch
mode: it emits each key's final result once (``finish_keys``), as Flink's batch mode does.

Latency markers (definition ``"latency_tracking": {"interval_ms": n}``, slot configuration
``latency_interval_ms``; 0, the default, is off): a source subtask emits a
:class:`~engine.runtime.io.events.LatencyMarker` every interval from a timer mail, so also
while it is backpressured, until its data ended; every subtask records the markers it reads
at its operators and sends them on (``OperatorChain.process_latency_marker``). Their figures
are part of each operator's metrics. Not in batch mode: nothing waits in a queue there.

Watermark alignment (a watermark node in a source's chain with ``alignment_max_drift_ms``, see
``engine.runtime.watermark_alignment``): the source subtask reports its watermark to its group's
coordinator in the JobMaster and stops polling while it runs ahead of the group's bound; its
mails (checkpoints, timers, a stop) run as in any wait. Its end of data releases the group.

Buffer debloating (definition ``"debloat"``, see ``engine.runtime.io.buffer_debloater``):
a subtask with input channels measures its throughput every period and announces the
buffer size its producers should use.

Threading model: the constructor runs in the slot's thread (it only wires channels);
``trigger_checkpoint_from_coordinator``, ``notify_checkpoint_complete``,
``notify_checkpoint_aborted`` and ``cancel`` may be called from any thread and only
enqueue mails; everything else runs in the mailbox thread, except the asynchronous part
of a checkpoint, which reads only its own copy of the state.
"""
from __future__ import annotations

import json
import logging
import threading
import time
import traceback

from engine.plan.channels import input_channel_ids, output_channel_ids
from engine.runtime.gateway import JobMasterGateway, TaskId
from engine.runtime.gc_tuning import collector_tuned_for_batches
from engine.runtime.io.barrier_handler import create_barrier_handler
from engine.runtime.io.buffer_debloater import BufferDebloater, DebloatSettings
from engine.runtime.io.events import (END_OF_DATA, END_OF_DATA_NO_DRAIN, END_OF_PARTITION, MAX_WATERMARK,
                                      CancelCheckpointMarker, CheckpointBarrier, LatencyMarker, TimestampedBatch,
                                      in_flight_state, is_buffer)
from engine.runtime.io.external_sort import DEFAULT_MEMORY_RECORDS, KeyGroupingSorter
from engine.runtime.io.hash_aggregate_input import DEFAULT_MAX_KEYS, HashAggregateInput
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.partitioner import create_partitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.io.stream_input import NetworkInput, SortingInput, SourceInput
from engine.runtime.kill_hooks import SimulatedFailure, maybe_kill
from engine.runtime.mailbox import MailboxClosedError, MailboxProcessor
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.projection import projected_fields
from engine.runtime.operators import OperatorContext, coordinator_factory, create_operator
from engine.runtime.operators.base import ConfigurationError, compile_expression_function
from engine.runtime.operators.joins.two_input import keeps_records_until_watermark
from engine.runtime.operators.source import DEFAULT_BATCH_SIZE
from engine.runtime.operators.windows.window_partials import PARTIAL_KEY, partials_for, pre_aggregated_window
from engine.runtime.state.key_groups import KeyGroupRange, key_group_for
from engine.runtime.state.restore import TaskRestore
from engine.runtime.tap import TapLimits, TapPoint, TapSender
from engine.runtime.subtask_checkpoint import (DECLINE_ALIGNMENT_LIMIT, DECLINE_CANCELED, DECLINE_FAILURE, DECLINE_NOT_RUNNING,  # noqa: F401
                                               DECLINE_SUBSUMED, SubtaskCheckpointCoordinator)
from engine.runtime.task_lifecycle import AwaitingFinalCheckpoint, Finished, HoldingForStop, Running, TaskLifecycleState
from engine.runtime.timer_service import ProcessingTimeService
from engine.runtime.watermark_alignment import KEEP_ALIVE_S, SourceAlignment, aligned_sources, chain_watermark
from engine.runtime.columnar import compile_int_key
from engine.spec.expressions import compile_batch_expression, compile_batch_router

NO_INPUT_WATERMARK = -(2**63)
"""What the input's watermark valve holds before any watermark arrived."""

logger = logging.getLogger(__name__)

METRICS_INTERVAL_S = 1.0
OUTPUT_BARRIER_CHECK_S = 0.01
"""How often an aligned checkpoint with a timeout looks whether its barriers left the output queues."""

class TaskCanceled(Exception):
    """The subtask was canceled; not a failure."""


def _now_ms() -> float:
    return time.time() * 1000.0


MAX_RECORD_TEXT = 500
"""Characters of the failing record a failure shows: its JSON, cut short."""


def _failing_record(error: BaseException) -> str | None:
    """The record an expression was evaluating when ``error`` came out of it (its compiled code's file
    name is ``<expression: ...>``, its record the frame's one public local, ``x`` most often), as JSON
    cut at ``MAX_RECORD_TEXT``; None when no expression raised it."""
    found = None
    frame_tb = error.__traceback__
    while frame_tb is not None:
        frame = frame_tb.tb_frame
        if frame.f_code.co_filename.startswith("<expression"):
            values = {name: value for name, value in frame.f_locals.items() if not name.startswith(("_", "."))}
            found = values or found
        frame_tb = frame_tb.tb_next
    if not found:
        return None
    record = next(iter(found.values())) if len(found) == 1 else found
    try:
        text = json.dumps(record, default=repr, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(record)
    return text if len(text) <= MAX_RECORD_TEXT else text[:MAX_RECORD_TEXT] + "…"


def _failing_operator(error: BaseException):
    """The innermost operator on the traceback of ``error``, or None."""
    from engine.runtime.operators.base import StreamOperator

    found = None
    frame_tb = error.__traceback__
    while frame_tb is not None:
        candidate = frame_tb.tb_frame.f_locals.get("self")
        if isinstance(candidate, StreamOperator):
            found = candidate
        frame_tb = frame_tb.tb_next
    return found


class StreamTask:
    """One subtask: operator chain, input (gate or source), writers, mailbox thread."""

    def __init__(self, *, job_graph, vertex, index: int, network, gateway: JobMasterGateway,
                 config: dict, restore: dict | None = None, snapshot_executor=None, kill_hook=None,
                 tap_sender: TapSender | None = None):
        self.job_graph = job_graph
        self.tap_sender = tap_sender
        self.vertex = vertex
        self.index = index
        self.task_id: TaskId = (vertex.id, index)
        self.name = f"{vertex.id}#{index}"
        self.gateway = gateway
        self.config = dict(config)
        self.config.setdefault("checkpointing_enabled", job_graph.takes_checkpoints)
        self.batch_mode = config.get("mode") == "batch"
        self.restore_metadata = restore
        self.snapshot_executor = snapshot_executor
        self.kill_hook = kill_hook
        self.processor = MailboxProcessor(self._default_action)
        self.mailbox = self.processor.mailbox
        self.executor = self.processor.main_executor()
        self.timer_service = ProcessingTimeService(self.executor)
        self.is_source = vertex.is_source
        self.key_group_range = KeyGroupRange.for_subtask(vertex.max_parallelism, vertex.parallelism, index)
        self._output_channels = self._create_output_channels(network)
        self.gate = self._create_input_gate(network)
        self.chain: OperatorChain | None = None
        self.input = None
        self._alignment: SourceAlignment | None = None
        """A source's side of watermark alignment, when its chain aligns it (``_create_alignment``)."""
        self._alignment_node: str | None = None
        self._canceled = False
        self._failure: str | None = None
        self.state: TaskLifecycleState = Running()
        """Where the subtask is in its life (``engine.runtime.task_lifecycle``); mailbox thread."""
        self._pending_trigger: tuple | None = None  # a coordinator trigger kept for the end of input
        self._unaligned_input: tuple[int, dict] | None = None  # (checkpoint id, channel -> items) being recorded
        self.checkpoints = SubtaskCheckpointCoordinator(
            task_id=self.task_id, name=self.name, key_group_range=self.key_group_range, gateway=gateway,
            config=self.config, report_throwable=self.processor.report_throwable,
            snapshot_executor=snapshot_executor, kill_hook=kill_hook)
        self._metrics_state = {"at": time.monotonic(), "idle": 0.0, "backpressured": 0.0}
        batch_size = int(self.config.get("batch_size", DEFAULT_BATCH_SIZE))
        self.debloat = DebloatSettings.from_config(self.config.get("debloat"), batch_size)
        if self.batch_mode:
            self.debloat = DebloatSettings.from_config({"enabled": False}, batch_size)
        self._debloater: BufferDebloater | None = None
        self._debloat_sample = (0.0, 0, 0.0)
        interval_ms = 0 if self.batch_mode else float(self.config.get("latency_interval_ms") or 0)
        self.latency_interval_s = max(0.0, interval_ms) / 1000.0
        """How often this subtask, a source, emits a latency marker (0: never)."""
        self.done = threading.Event()
        """Set when ``invoke`` returned, however it ended."""

    # -- wiring (constructor thread) ------------------------------------------------------
    def _create_output_channels(self, network) -> list[tuple]:
        outputs = []
        for edge in self.job_graph.outputs_of(self.vertex.id):
            consumers = self.job_graph.vertex(edge.target).parallelism
            ids = output_channel_ids(edge, self.index, self.vertex.parallelism, consumers)
            outputs.append((edge, [network.output_channel(channel_id) for channel_id in ids]))
        return outputs

    def _create_input_gate(self, network) -> InputGate | None:
        channels, infos = [], []
        for edge in self.job_graph.inputs_of(self.vertex.id):
            producers = self.job_graph.vertex(edge.source).parallelism
            for channel_id in input_channel_ids(edge, self.index, producers, self.vertex.parallelism):
                channels.append(network.input_channel(channel_id))
                infos.append(channel_id)
        return InputGate(channels, infos) if channels else None

    # -- thread entry ------------------------------------------------------------------------
    def invoke(self) -> None:
        """Run the subtask to its end in the calling thread (the mailbox thread)."""
        with collector_tuned_for_batches():
            self._invoke()

    def _invoke(self) -> None:
        self.mailbox.bind_to_current_thread()
        try:
            self._before_invoke()
            if isinstance(self.state, Finished):  # the checkpoint says this vertex had finished: skip it
                self.chain.broadcast_event(END_OF_DATA)
            else:
                self._schedule_metrics()
                self._schedule_debloat_sample()
                self._schedule_latency_marker()
                self.processor.run_mailbox_loop()
            if self._canceled:
                raise TaskCanceled()
            self._after_invoke()
            self._wait_until_outputs_sent()
            self.checkpoints.wait_for_asynchronous_parts()
            self._report_metrics(finished=True)
            self.gateway.task_finished(self.task_id, self.chain.result())
        except TaskCanceled:
            pass
        except BaseException as error:  # every failure ends here and is reported
            if self._canceled:
                logger.debug("error while canceling %s: %s", self.name, error)
            else:
                self._failure = self._describe(error)
                self.gateway.task_failed(self.task_id, self._failure)
        finally:
            self._clean_up()
            self.done.set()

    def _describe(self, error: BaseException) -> str:
        """The error on one line, naming the operator and subtask it came from (found in the
        traceback, so the per-batch path needs no try/except, and not the chain's head, whose
        name the task has); then ``record: ...``, the record an expression failed on; then the
        last frames of the traceback."""
        if isinstance(error, (SimulatedFailure, ConfigurationError)):
            return str(error)
        message = " ".join("".join(traceback.format_exception_only(type(error), error)).split("\n")).strip()
        operator = _failing_operator(error)
        if operator is not None:
            message = (f"operator '{operator.node_id}' ({operator.node.get('type')}), subtask {self.index}, "
                       f"failed: {message}")
        record = _failing_record(error)
        if record is not None:
            message += f"\nrecord: {record}"
        return message + "\n" + "".join(traceback.format_tb(error.__traceback__)[-5:])

    @property
    def failure(self) -> str | None:
        return self._failure

    def before_invoke(self) -> None:
        """Build the chain, restore, open (called by ``invoke``; tests call it, then step)."""
        self._before_invoke()

    def run_mailbox_step(self) -> bool:
        """For tests: run the queued mail and one input step in the calling thread, never blocking."""
        self.mailbox.bind_to_current_thread()
        return self.processor.run_mailbox_step()

    def _before_invoke(self) -> None:
        restore = None
        if self.restore_metadata is not None:
            restore = TaskRestore(self.restore_metadata, self.index, self.vertex.parallelism,
                                  TaskRestore.aliases_of(self.vertex.operators))
        self._restore = restore
        writers, port_writers = self._create_writers()
        if restore is not None:
            self._replay_channel_state(restore, [writer for node_writers in writers.values() for writer in node_writers]
                                       + [writer for ports in port_writers.values() for port in ports.values()
                                          for writer in port])
        operators = [create_operator(node, self._operator_context(node, position, restore))
                     for position, node in enumerate(self.vertex.operators)]
        # a tap's samples name the operator whose output they are, not the chain's head
        self.chain = OperatorChain(operators, writers, {node["id"]: TapPoint(node["id"], (node["id"], self.index),
                                                                             self.tap_sender)
                                                        for node in self.vertex.operators}, port_writers,
                                    self.vertex.chain_inputs)
        if self.chain.buffers_output:
            self.mailbox.before_waiting = self.chain.flush_outputs
        if self.config.get("projection", True):
            fields = projected_fields(self.job_graph, self.vertex)
            if fields is not None and self.chain.head.project_records(fields, self.chain.tap_points.values()) \
                    and self.config.get("json_fields", True):
                self.chain.take_json_fields(fields)
        if restore is not None and restore.is_finished(self.vertex.operators[0]["id"]):
            self.state = self.state.restored_finished()
            if self.is_source:
                self._alignment = self._create_alignment()
                if self._alignment is not None:
                    self._alignment.finish()  # its group must not wait for its first report
            return  # nothing to initialise or open: it only ends its outputs (close still runs)
        self.chain.initialize_state()
        self.chain.open()
        head = self.chain.head
        if self.is_source:
            pacing = (self.config.get("source_pacing") or {}) if self.config["checkpointing_enabled"] else {}
            self._alignment = self._create_alignment()
            self.input = SourceInput(head, head.emit, self.timer_service, kill_hook=self.kill_hook,
                                     task=self.task_id, records_per_checkpoint=pacing.get("records_per_checkpoint", 0),
                                     flush_outputs=self.chain.flush_outputs if self.chain.buffers_output else None,
                                     alignment=self._alignment)
            if self.debloat.enabled or self.input.is_paced:
                head.context.poll_budget = self._poll_budget
        elif self.gate is not None:
            self.input = self._create_network_input(head)
            if self.debloat.enabled:
                capacity = max(getattr(channel, "capacity", 1) for channel in self.gate.channels)
                self._debloater = BufferDebloater(self.debloat, self.gate.number_of_channels, capacity)
        else:
            raise ValueError(f"vertex '{self.vertex.id}' is neither a source nor has inputs")

    def _create_alignment(self) -> SourceAlignment | None:
        """This source subtask's side of watermark alignment: when a watermark node of its chain
        aligns it with other subtasks (``engine.runtime.watermark_alignment``) and the gateway
        carries operator events; else None."""
        send = getattr(self.gateway, "send_operator_event", None)
        if send is None or self.batch_mode:
            return None
        member = next((group[self.task_id] for group in aligned_sources(self.job_graph).values()
                       if self.task_id in group), None)
        if member is None:
            return None
        node_id, settings = member
        operator = next(operator for operator in self.chain.operators if operator.node_id == node_id)
        task = self.task_id
        alignment = SourceAlignment(settings, chain_watermark(operator), lambda: bool(operator.idle),
                                    lambda event: send(task, node_id, event))
        self._alignment_node = node_id
        self.timer_service.schedule(KEEP_ALIVE_S, self._keep_alignment_alive, "watermark alignment report")
        return alignment

    def _keep_alignment_alive(self) -> None:
        """Timer mail: the alignment's periodic report, until its data ended."""
        alignment = self._alignment
        if alignment is None or alignment.finished:
            return
        if self.state.data_ended or self.is_stopping:
            alignment.finish()  # a stopped or drained source holds nobody back
            return
        alignment.keep_alive()
        self.timer_service.schedule(KEEP_ALIVE_S, self._keep_alignment_alive, "watermark alignment report")

    def _replay_channel_state(self, restore: TaskRestore, writers: list[RecordWriter]) -> None:
        """Put an unaligned checkpoint's in-flight data back, ahead of any new data.

        An edge whose two vertices kept their parallelism gets its channels' state back as it
        was: the producer pushes what its barriers overtook, the consumer puts what it had read
        after its snapshot back at the head of the channel. An edge rescaled at either end has
        other channels now: each new consumer takes the edge's whole channel state and keeps
        its share -- by key group on a hash edge, every n-th buffer otherwise -- in front of
        its first channel of the edge (the producers replay nothing on it)."""
        vertex_id = self.vertex.id
        kept = restore.old_parallelism(vertex_id) == self.vertex.parallelism
        rescaled = {edge.id for edge in self.job_graph.inputs_of(vertex_id) + self.job_graph.outputs_of(vertex_id)
                    if restore.old_parallelism(edge.source) != self.job_graph.vertex(edge.source).parallelism
                    or restore.old_parallelism(edge.target) != self.job_graph.vertex(edge.target).parallelism}
        own = restore.channel_state(vertex_id, self.index) if kept else {"input": {}, "output": {}}
        outputs = {channel.channel_id: channel for writer in writers for channel in writer.channels}
        for channel_id, items in own["output"].items():
            channel = outputs.get(channel_id)
            if channel is not None and channel_id.edge not in rescaled:  # rescaled: the consumers replay it
                for item in items:
                    channel.push(item)
        if self.gate is None:
            return
        indexes = {channel_id: index for index, channel_id in enumerate(self.gate.channel_infos)}
        for channel_id, items in own["input"].items():
            if channel_id in indexes and channel_id.edge not in rescaled:
                self.gate.channels[indexes[channel_id]].prepend(items)
        for edge in self.job_graph.inputs_of(vertex_id):
            if edge.id not in rescaled:
                continue
            channels = {channel_id.producer: index for channel_id, index in indexes.items()
                        if channel_id.edge == edge.id}
            for producer, items in self._rescaled_channel_state(restore, edge).items():
                # behind the data of the same producer, if it still exists: a key's records stay in order
                index = channels.get(producer, next(iter(channels.values()), None))
                if items and index is not None:
                    self.gate.channels[index].prepend(items)

    def _rescaled_channel_state(self, restore: TaskRestore, edge) -> dict[tuple, list]:
        """This subtask's share of a rescaled edge's in-flight data, by old producer subtask:
        what the old consumers had read after their snapshot, then what the producer's
        barriers overtook, channel by channel."""
        gathered: dict[tuple, list] = {}
        for side, vertex in (("input", edge.target), ("output", edge.source)):
            for channel_id, items in sorted(restore.channel_state(vertex)[side].items()):
                if channel_id.edge == edge.id:
                    gathered.setdefault(channel_id.producer, []).extend(item for item in items if is_buffer(item))
        return {producer: self._share_of(edge, buffers) for producer, buffers in gathered.items()}

    def _share_of(self, edge, buffers: list) -> list:
        """Of a rescaled edge's in-flight buffers, the records this subtask would have received:
        its key groups on a hash edge, every n-th buffer otherwise (watermarks come again)."""
        if not buffers:
            return []
        if edge.partitioning == "broadcast":
            raise ValueError(f"subtask {self.name} cannot restore the in-flight data of broadcast edge '{edge.id}' "
                             f"at a new parallelism: restore it at the old parallelism, or from a savepoint")
        if edge.partitioning != "hash":
            return buffers[self.index::self.vertex.parallelism]
        window = pre_aggregated_window(edge, self.vertex, self.job_graph, self.config)
        key_of = compile_expression_function(PARTIAL_KEY if window is not None else edge.key)
        max_parallelism, mine = self.vertex.max_parallelism, self.key_group_range
        share = []
        for buffer in buffers:
            keep = [i for i, record in enumerate(buffer) if key_group_for(key_of(record), max_parallelism) in mine]
            if not keep:
                continue
            if type(buffer) is TimestampedBatch:
                share.append(TimestampedBatch([buffer[i] for i in keep], [buffer.timestamps[i] for i in keep]))
            else:
                share.append([buffer[i] for i in keep])
        return share

    def _create_network_input(self, head):
        """The input of a task that reads channels, built one way for one input and two.

        A two-input head (a join) gets each channel's batches on its side's ``process_<side>``.
        In batch mode a keyed head reads its whole input sorted by key first (a join's two
        sides together, each record tagged with its side), an aggregation into a hash table
        as it comes; otherwise batches are read as they come, through the checkpointing
        mode's barrier handler."""
        sides = self._channel_sides() if getattr(head, "input_sides", None) else None
        if self.batch_mode and (sides is not None or head.context.key_function is not None):
            if sides is None and self.config.get("batch_aggregation", "hash") == "hash" \
                    and getattr(head, "aggregates_by_hash", False):
                return self._create_hash_aggregate_input(head)
            return self._create_sorting_input(head, sides)
        checkpointing = self.config.get("checkpointing") or {}
        handler = create_barrier_handler(checkpointing.get("mode", "exactly_once"), self, self.gate.number_of_channels,
                                         max_aligned_bytes=int(checkpointing.get("max_aligned_bytes") or 0))
        return NetworkInput(self.gate, handler, head.process_batch, head.process_watermark,
                            self._on_barrier_arrival, kill_hook=self.kill_hook, task=self.task_id,
                            process_watermark_status=head.process_watermark_status,
                            channel_targets=None if sides is None else [getattr(head, f"process_{side}")
                                                                         for side in sides],
                            process_latency_marker=self._on_latency_marker)

    def _create_sorting_input(self, head, sides: list[str] | None):
        key_function, tags = head.context.key_function, None
        if sides is not None:
            key_function, tags = self._tagged_keys(sides)
        sorter = KeyGroupingSorter(key_function, int(self.config.get("sort_buffer_records", DEFAULT_MEMORY_RECORDS)),
                                   self.config.get("spill_directory"))

        def keys_finished() -> None:
            head.finish_keys()
            head.context.clear_keyed_state()

        batch_size = int(self.config.get("batch_size", DEFAULT_BATCH_SIZE))
        return SortingInput(self.gate, head.process_batch, head.process_watermark, keys_finished, sorter,
                            batch_size, kill_hook=self.kill_hook, task=self.task_id, channel_tags=tags)

    def _create_hash_aggregate_input(self, head):
        """Batch mode's aggregation (``engine.runtime.io.hash_aggregate_input``): a hash table, no sort."""
        def create_sorter() -> KeyGroupingSorter:
            return KeyGroupingSorter(head.context.key_function,
                                     int(self.config.get("sort_buffer_records", DEFAULT_MEMORY_RECORDS)),
                                     self.config.get("spill_directory"))

        def keys_finished() -> None:
            head.finish_keys()
            head.context.clear_keyed_state()

        return HashAggregateInput(self.gate, head.process_batch, head.process_watermark, keys_finished,
                                  head.hash_table(), int(self.config.get("hash_aggregate_keys", DEFAULT_MAX_KEYS)),
                                  create_sorter, head.context.key_function,
                                  int(self.config.get("batch_size", DEFAULT_BATCH_SIZE)),
                                  kill_hook=self.kill_hook, task=self.task_id,
                                  fold_int_array=head.fold_int_array if getattr(head, "folds_int_arrays", False)
                                  else None)

    def _tagged_keys(self, sides: list[str]):
        """A join sorted in batch mode: the key of a ``(side tag, record)``, and each channel's side tag."""
        from engine.runtime.operators.joins.two_input import LEFT, RIGHT

        keys = {LEFT: compile_expression_function(self._side_edge("left").key),
                RIGHT: compile_expression_function(self._side_edge("right").key)}
        return (lambda tagged: keys[tagged[0]](tagged[1])), [LEFT if side == "left" else RIGHT for side in sides]

    def _channel_sides(self) -> list[str]:
        """Per input channel, the side of its edge (two-input head operators)."""
        side_of_edge = {edge.id: edge.side for edge in self.job_graph.inputs_of(self.vertex.id)}
        return [side_of_edge[info.edge] for info in self.gate.channel_infos]

    def _side_edge(self, side: str):
        for edge in self.job_graph.inputs_of(self.vertex.id):
            if edge.side == side:
                return edge
        raise ValueError(f"'{self.vertex.operators[0]['id']}' has no {side} input edge")

    def _poll_budget(self) -> int | None:
        """The records one source poll may produce: what a paced source may still read before its next
        checkpoint, and with debloating the smallest budget of the writers."""
        budgets = [budget for writer in self.chain.writers if (budget := writer.step_budget()) is not None] \
            if self.debloat.enabled else []
        if self.input.is_paced:
            budgets.append(self.input.records_before_checkpoint)
        return min(budgets) if budgets else None

    def _join_buffer_min_records(self) -> int:
        """Records an output buffer into a join holds before a watermark sends it (``record_writer``,
        ``watermark_send_min_records``): the deployment setting ``"join_buffer_min_records"``, by default a
        quarter of the batch size (0: every watermark sends them)."""
        value = self.config.get("join_buffer_min_records")
        if value is None:
            return int(self.config.get("batch_size", DEFAULT_BATCH_SIZE)) // 4
        return int(value)

    def _create_writers(self) -> tuple[dict[str, list[RecordWriter]], dict[str, dict[str, list[RecordWriter]]]]:
        """The record writers of the main outputs (node -> writers) and of named ports (node -> port -> writers)."""
        writers: dict[str, list[RecordWriter]] = {}
        port_writers: dict[str, dict[str, list[RecordWriter]]] = {}
        for edge, channels in self._output_channels:
            target = self.job_graph.vertex(edge.target)
            hashed = edge.partitioning == "hash"
            window = pre_aggregated_window(edge, target, self.job_graph, self.config)
            key = PARTIAL_KEY if window is not None else edge.key
            partitioner = create_partitioner(
                edge.partitioning, len(channels), max_parallelism=target.max_parallelism, producer_index=self.index,
                key_function=compile_expression_function(key) if hashed else None,
                batch_key_function=compile_batch_expression(key) if hashed else None,
                router=compile_batch_router(key) if hashed else None,
                columnar_key=compile_int_key(key) if hashed and window is None else None)
            writer = RecordWriter(
                edge.id, channels, partitioner, debloat=self.debloat.enabled,
                buffer_records=int(self.config.get("batch_size", DEFAULT_BATCH_SIZE)),
                buffer_timeout_s=float(self.config.get("buffer_timeout_ms", 100)) / 1000,
                inline_watermarks=self.config.get("mode") != "batch",
                watermarks_send_buffers=(self.config.get("join_buffers_per_watermark", True) is not False
                                         and keeps_records_until_watermark(edge, target)),
                watermark_send_min_records=self._join_buffer_min_records())
            if window is not None:
                writer.pre_aggregate_with(partials_for(window, edge.key))
            if edge.source_port is None:
                writers.setdefault(edge.source_node, []).append(writer)
            else:
                port_writers.setdefault(edge.source_node, {}).setdefault(edge.source_port, []).append(writer)
        return writers, port_writers

    def _operator_context(self, node: dict, position: int, restore) -> OperatorContext:
        key_function = batch_key_function = key_expression = None
        pre_aggregated = False
        side_keys = {edge.side: compile_batch_expression(edge.key) for edge in self.job_graph.inputs_of(self.vertex.id)
                     if position == 0 and edge.side and edge.partitioning == "hash" and edge.key}
        if position == 0 and not side_keys:
            for edge in self.job_graph.inputs_of(self.vertex.id):
                if edge.partitioning == "hash" and edge.key and edge.target_node == node["id"]:
                    key_function = compile_expression_function(edge.key)
                    batch_key_function = compile_batch_expression(edge.key)
                    key_expression = edge.key
                    pre_aggregated = pre_aggregated_window(edge, self.vertex, self.job_graph, self.config) is not None
                    break
        return OperatorContext(
            task=self.task_id, node_id=node["id"], parallelism=self.vertex.parallelism,
            max_parallelism=self.vertex.max_parallelism, config=self.config,
            key_group_range=self.key_group_range, key_function=key_function,
            batch_key_function=batch_key_function, key_expression=key_expression, restore=restore,
            mailbox_executor=self.executor, timer_service=self.timer_service, kill_hook=self.kill_hook,
            pre_aggregated_input=pre_aggregated, side_key_functions=side_keys or None,
            send_operator_event=self._operator_event_sender(node))

    def _after_invoke(self) -> None:
        if not self.state.input_finished:
            raise RuntimeError(f"subtask {self.name} left its mailbox loop before its input ended")
        self.chain.broadcast_event(END_OF_PARTITION)

    def _wait_until_outputs_sent(self) -> None:
        """Report finished only once remote channels sent everything (a slot whose subtasks all
        finished closes its connections); canceling ends the wait."""
        for writer in self.chain.writers:
            for channel in writer.channels:
                wait = getattr(channel, "wait_until_sent", None)
                while wait is not None and not wait(0.1):
                    if self._canceled:
                        raise TaskCanceled()

    def _clean_up(self) -> None:
        self.timer_service.close()
        self.mailbox.close()
        close_input = getattr(self.input, "close", None)
        if close_input is not None:
            close_input()
        if self.chain is not None:
            for error in self.chain.close():
                logger.warning("closing an operator of %s failed: %s", self.name, error)

    # -- the default action --------------------------------------------------------------------
    def _default_action(self, controller) -> None:
        before = self.state
        after = before.run_default_action(self, controller)
        if after is not before:  # unchanged: keep what a mail during the step may have moved on to
            self.state = after

    def suspend_if_backpressured(self, controller) -> None:
        for writer in self.chain.writers:
            if not writer.is_available():
                writer.when_available(controller.suspend_default_action("backpressured").resume)
                return

    def end_data(self, drain: bool) -> None:
        """No record follows: with drain, finish the operators (a source emits the maximum
        watermark first); tell downstream either way.

        ``finish`` may yield to the mailbox (async I/O draining its queue), so a checkpoint
        can run in the middle of it: the lifecycle state calling this (``EndingData``) makes
        that an ordinary checkpoint, taken before the end of data.
        """
        if self._alignment is not None:
            self._alignment.finish()  # no record follows: it holds the group back no more
        if drain:
            if self.is_source:
                self.chain.head.emit_watermark(MAX_WATERMARK)
            self.chain.finish()
        self.chain.broadcast_event(END_OF_DATA if drain else END_OF_DATA_NO_DRAIN)

    @property
    def needs_final_checkpoint(self) -> bool:
        """A two-phase-commit sink in a job that takes checkpoints finishes only after one
        covering its last data completed."""
        return self.chain.requires_final_checkpoint and self.config["checkpointing_enabled"]

    def take_pending_trigger(self) -> None:
        """Take a coordinator trigger that came while the input had not quite ended."""
        trigger, self._pending_trigger = self._pending_trigger, None
        if trigger is None:
            return
        checkpoint_id, timestamp_ms, options = trigger
        if self.checkpoints.is_new(checkpoint_id):
            self.take_triggered_checkpoint((checkpoint_id, timestamp_ms, options,
                                            {"start_delay": max(0.0, _now_ms() - timestamp_ms),
                                             "alignment_duration": 0.0}))

    # -- checkpoints: entry points (any thread) ------------------------------------------------
    def trigger_checkpoint_from_coordinator(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None:
        """The coordinator's trigger. Taken by sources and by subtasks whose inputs all ended."""
        self._send_mail(lambda: self._on_coordinator_trigger(checkpoint_id, timestamp_ms, options),
                        f"trigger checkpoint {checkpoint_id}")

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        self._send_mail(lambda: self._on_checkpoint_complete(checkpoint_id),
                        f"checkpoint {checkpoint_id} complete")

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        self._send_mail(lambda: self._on_checkpoint_aborted(checkpoint_id),
                        f"checkpoint {checkpoint_id} aborted")

    def open_tap(self, tap_id: str, node_id: str, limits: TapLimits) -> None:
        """Start sampling what ``node_id`` emits for tap ``tap_id`` (``engine.runtime.tap``). Any thread."""
        self._send_mail(lambda: self._on_open_tap(tap_id, node_id, limits), f"open tap {tap_id}")

    def close_tap(self, tap_id: str) -> None:
        """Stop sampling for tap ``tap_id``. Any thread."""
        self._send_mail(lambda: self._on_close_tap(tap_id), f"close tap {tap_id}")

    def _on_open_tap(self, tap_id: str, node_id: str, limits: TapLimits) -> None:
        point = self.chain.tap_points.get(node_id) if self.chain is not None else None
        if point is not None:
            point.add(tap_id, limits)

    def _on_close_tap(self, tap_id: str) -> None:
        for point in self.chain.tap_points.values() if self.chain is not None else ():
            point.remove(tap_id)

    def deliver_operator_event(self, node_id: str, event: dict) -> None:
        """An event from operator ``node_id``'s coordinator in the JobMaster. Any thread."""
        self._send_mail(lambda: self._on_operator_event(node_id, event), f"operator event for {node_id}")

    def _on_operator_event(self, node_id: str, event: dict) -> None:
        if self._alignment is not None and node_id == self._alignment_node:
            if event.get("kind") == "watermark_bound":
                self._alignment.on_bound(event.get("bound"))
                return
            if event.get("kind") == "error":
                raise RuntimeError(f"subtask {self.name}: {event.get('message')}")
        for operator in self.chain.operators if self.chain is not None else ():
            if operator.node_id == node_id:
                operator.handle_operator_event(event)

    def _operator_event_sender(self, node: dict):
        """How operator ``node`` sends events to its coordinator; None when it has none, or when
        the gateway carries none (a test's stand-in), so it works without (file sources then
        deal their files out statically)."""
        send = getattr(self.gateway, "send_operator_event", None)
        if send is None or coordinator_factory(node) is None:
            return None
        task, node_id = self.task_id, node["id"]
        return lambda event: send(task, node_id, event)

    def cancel(self) -> None:
        """Stop the subtask as soon as possible. Any thread."""
        self._canceled = True
        self.checkpoints.canceled = True
        self.processor.stop()

    @property
    def is_triggered_by_coordinator(self) -> bool:
        """Sources, and subtasks whose inputs all ended, take checkpoints without barriers."""
        return self.is_source or self.state.input_finished

    @property
    def is_stopping(self) -> bool:
        """Whether this (source) subtask polls no more because of a stop-with-savepoint."""
        return isinstance(self.state, HoldingForStop)

    def _send_mail(self, action, description: str) -> None:
        try:
            self.executor.execute(action, description)
        except MailboxClosedError:
            pass  # the subtask already ended; the coordinator learns that from task_finished

    # -- checkpoints: in the mailbox thread ----------------------------------------------------
    def _on_coordinator_trigger(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None:
        if not self.is_triggered_by_coordinator:
            # barriers will bring it -- unless the upstream finished and only its end of
            # partition is still on the way: then take it at the end of input
            self._pending_trigger = (checkpoint_id, timestamp_ms, options)
            return
        if not self.state.takes_checkpoints or checkpoint_id <= self.checkpoints.latest_performed:
            return
        trigger = (checkpoint_id, timestamp_ms, options,
                   {"start_delay": max(0.0, _now_ms() - timestamp_ms), "alignment_duration": 0.0})
        if options.get("stop"):  # whether and how the subtask stops is its lifecycle state's decision
            self.state = self.state.stop_requested(self, trigger)
        else:
            self.take_triggered_checkpoint(trigger)

    def take_triggered_checkpoint(self, trigger: tuple) -> bool:
        """Perform a coordinator's ``(checkpoint_id, timestamp_ms, options, alignment)`` trigger."""
        checkpoint_id, timestamp_ms, options, alignment = trigger
        return self._perform_checkpoint(checkpoint_id, timestamp_ms, options, alignment=alignment)

    def _on_barrier_arrival(self, barrier: CheckpointBarrier, aligning: bool) -> None:
        maybe_kill(self.kill_hook, "barrier", self.task_id, {"checkpoint_id": barrier.id, "aligning": aligning})

    # BarrierHandlerController
    def block_channel(self, channel: int) -> None:
        self.gate.block(channel)

    def unblock_all_channels(self) -> None:
        self.gate.unblock_all()

    def trigger_checkpoint_on_barrier(self, barrier: CheckpointBarrier, alignment: dict) -> None:
        self._perform_checkpoint(barrier.id, barrier.timestamp, barrier.options, alignment)

    def abort_checkpoint_on_barrier(self, checkpoint_id: int, reason: str) -> None:
        if reason.startswith(DECLINE_ALIGNMENT_LIMIT):
            code, reason = DECLINE_ALIGNMENT_LIMIT, reason.split(":", 1)[1].strip()
        else:
            code = DECLINE_CANCELED if "canceled" in reason else DECLINE_SUBSUMED
        if self._unaligned_input is not None and self._unaligned_input[0] == checkpoint_id:
            self._unaligned_input = None
            self.input.stop_recording()
        self.checkpoints.discard_deferred(checkpoint_id)
        self.chain.broadcast_event(CancelCheckpointMarker(checkpoint_id))
        self.checkpoints.decline(checkpoint_id, f"{code}: {reason}")
        self._on_checkpoint_aborted(checkpoint_id)

    def trigger_unaligned_checkpoint(self, barrier: CheckpointBarrier, alignment: dict, received: set[int]) -> None:
        pending = {channel for channel in range(self.gate.number_of_channels)
                   if channel not in received and not self.input.channel_finished[channel]}
        input_state: dict[int, list] = {}
        if self._perform_checkpoint(barrier.id, barrier.timestamp, barrier.options, alignment, unaligned=True,
                                    input_state=input_state, awaiting_barriers=True):
            self._unaligned_input = (barrier.id, input_state)
            self.input.record_channels(pending, input_state)
            # a barrier of this checkpoint already queued here (an aligned one, sent before the
            # switch) overtakes what is ahead of it now: that becomes channel state
            overtaking = CheckpointBarrier(barrier.id, barrier.timestamp, {**barrier.options, "unaligned": True})
            for channel in pending:
                overtaken = self.gate.channels[channel].overtake_barrier(overtaking)
                if overtaken:
                    input_state[channel].extend(in_flight_state(overtaken))

    def unaligned_barrier_received(self, channel: int, barrier: CheckpointBarrier) -> None:
        self.input.stop_recording(channel)
        overtaken = self.gate.channels[channel].take_overtaken(barrier.id)
        if self._unaligned_input is not None and self._unaligned_input[0] == barrier.id and overtaken:
            self._unaligned_input[1].setdefault(channel, []).extend(overtaken)

    def unaligned_checkpoint_aligned(self, checkpoint_id: int) -> None:
        self.input.stop_recording()
        self._unaligned_input = None
        self.checkpoints.channel_state_complete(checkpoint_id)

    def schedule_alignment_check(self, checkpoint_id: int, delay_ms: float) -> None:
        handler = self.input.barrier_handler
        self.timer_service.schedule(max(0.0, delay_ms) / 1000.0, lambda: handler.check_alignment(checkpoint_id),
                                    f"check alignment of checkpoint {checkpoint_id}")

    def held_back_bytes(self) -> int:
        return sum(channel.queued_bytes() for channel in self.gate.channels if channel.is_blocked)

    def _perform_checkpoint(self, checkpoint_id: int, timestamp_ms: int, options: dict, alignment: dict, *,
                            unaligned: bool | None = None, input_state: dict | None = None,
                            awaiting_barriers: bool = False) -> bool:
        """Take the checkpoint (``SubtaskCheckpointCoordinator``) if this subtask still runs.

        A subtask triggered by the coordinator (a source) takes an unaligned checkpoint when
        the trigger says so: its barriers overtake its output queues."""
        running = self.processor.is_running or isinstance(self.state, AwaitingFinalCheckpoint)
        if self._canceled or not running:
            self.checkpoints.decline_not_running(self.chain, checkpoint_id)
            return False
        if unaligned is None:
            unaligned = bool(options.get("unaligned"))
        watch_outputs = not unaligned and bool(options.get("aligned_timeout_ms")) and bool(self.chain.writers)
        self.checkpoints.perform(self.chain, checkpoint_id, timestamp_ms, options, alignment, unaligned=unaligned,
                                 input_channels=input_state,
                                 input_channel_ids=self.gate.channel_infos if self.gate is not None else (),
                                 awaiting_barriers=awaiting_barriers or watch_outputs)
        self.state = self.state.checkpoint_performed(checkpoint_id, options)
        if self.is_source and isinstance(self.input, SourceInput):
            self.input.checkpoint_taken()
        if watch_outputs:
            self._watch_output_barriers(checkpoint_id, timestamp_ms, options)
        return True

    def _watch_output_barriers(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None:
        """Aligned timeout, output side (Flink's timeoutable barriers): an aligned barrier still
        queued in an output channel when the timeout passes overtakes the buffers ahead of it
        as an unaligned one, and they become output channel state. The checkpoint is written
        once every barrier left the queues either way. Mailbox thread; re-schedules itself."""
        if not self.checkpoints.is_deferred(checkpoint_id):
            return  # aborted meanwhile
        waiting = [channel for writer in self.chain.writers for channel in writer.channels
                   if channel.holds_barrier(checkpoint_id)]
        remaining = options["aligned_timeout_ms"] - (_now_ms() - timestamp_ms)
        if waiting and remaining <= 0:
            barrier = CheckpointBarrier(checkpoint_id, timestamp_ms, {**options, "unaligned": True})
            state = {}
            for channel in waiting:
                overtaken = in_flight_state(channel.overtake_barrier(barrier) or [])
                if overtaken:
                    state[channel.channel_id] = overtaken
            self.checkpoints.add_output_state(checkpoint_id, state)
            waiting = []
        if not waiting:
            self.checkpoints.channel_state_complete(checkpoint_id)
            return
        self.timer_service.schedule(min(OUTPUT_BARRIER_CHECK_S, max(0.0, remaining) / 1000.0),
                                    lambda: self._watch_output_barriers(checkpoint_id, timestamp_ms, options),
                                    f"watch the barriers of checkpoint {checkpoint_id}")

    def _on_checkpoint_complete(self, checkpoint_id: int) -> None:
        maybe_kill(self.kill_hook, "before_commit", self.task_id, {"checkpoint_id": checkpoint_id})
        self.chain.notify_checkpoint_complete(checkpoint_id)
        maybe_kill(self.kill_hook, "after_commit", self.task_id, {"checkpoint_id": checkpoint_id})
        self.checkpoints.completed(checkpoint_id)
        self.state = self.state.checkpoint_completed(self, checkpoint_id)

    def _on_checkpoint_aborted(self, checkpoint_id: int) -> None:
        self.checkpoints.aborted(checkpoint_id)
        self.checkpoints.discard_deferred(checkpoint_id)
        self.chain.notify_checkpoint_aborted(checkpoint_id)
        self.state = self.state.checkpoint_aborted(self, checkpoint_id)

    # -- latency markers ---------------------------------------------------------------------
    def _schedule_latency_marker(self) -> None:
        if self.is_source and self.latency_interval_s > 0:
            self.timer_service.schedule(self.latency_interval_s, self._emit_latency_marker, "emit a latency marker")

    def _emit_latency_marker(self) -> None:
        """A source's marker, behind what it emitted so far; the next one is scheduled while data flows."""
        if self.state.data_ended or self.is_stopping or self.chain is None:
            return
        now = _now_ms()
        self.chain.process_latency_marker(LatencyMarker(now, f"{self.vertex.operators[0]['id']}#{self.index}", now),
                                          now, first=1)
        self._schedule_latency_marker()

    def _on_latency_marker(self, marker: LatencyMarker) -> None:
        self.chain.process_latency_marker(marker, _now_ms())

    # -- buffer debloating ---------------------------------------------------------------------
    def _schedule_debloat_sample(self) -> None:
        if self._debloater is None or self.state.data_ended:
            return
        self._debloat_sample = (time.monotonic(), self.input.records_in, self.processor.waiting_ms.get("idle", 0.0))
        self.timer_service.schedule(self.debloat.period_ms / 1000.0, self._sample_throughput, "buffer debloating")

    def _sample_throughput(self) -> None:
        """One period's throughput into the debloater; announce a new buffer size to the producers."""
        at, records, idle = self._debloat_sample
        elapsed_ms = (time.monotonic() - at) * 1000.0
        busy_ms = elapsed_ms - (self.processor.waiting_ms.get("idle", 0.0) - idle)
        size = self._debloater.on_sample(self.input.records_in - records, busy_ms)
        if size is not None:
            for channel in self.gate.channels:
                channel.announce_buffer_size(size)
        self._schedule_debloat_sample()

    # -- metrics -------------------------------------------------------------------------------
    def _schedule_metrics(self) -> None:
        self.timer_service.schedule(METRICS_INTERVAL_S, self._report_metrics_and_reschedule, "report metrics")

    def _report_metrics_and_reschedule(self) -> None:
        self._report_metrics()
        self._schedule_metrics()

    def _input_watermark(self) -> int | None:
        """The combined watermark of the task's input channels; a source's own (None before the first)."""
        valve = getattr(self.input, "valve", None)
        if valve is None:
            return self.chain.counters[0].watermark_out
        return None if valve.current <= NO_INPUT_WATERMARK else valve.current

    def _report_metrics(self, finished: bool = False) -> None:
        """Report the metrics; a finished subtask's last report stays its latest, so it says the
        subtask works no more (idle, ``finished_subtasks`` 1) rather than how busy its last moments were."""
        try:
            metrics = self.metrics()
            if finished:
                metrics.update(busy_ms_per_second=0.0, idle_ms_per_second=1000.0, backpressured_ms_per_second=0.0,
                               finished_subtasks=1)
            self.gateway.report_metrics(self.task_id, metrics)
        except Exception:
            logger.debug("metrics of %s not delivered", self.name)

    def metrics(self) -> dict:
        """Counters and per-second time shares since the last call. Mailbox thread."""
        now = time.monotonic()
        state = self._metrics_state
        elapsed_ms = max(1e-6, (now - state["at"]) * 1000)
        idle = self.processor.waiting_ms.get("idle", 0.0)
        backpressured = self.processor.waiting_ms.get("backpressured", 0.0)
        idle_share = (idle - state["idle"]) / elapsed_ms
        backpressured_share = (backpressured - state["backpressured"]) / elapsed_ms
        self._metrics_state = {"at": now, "idle": idle, "backpressured": backpressured}
        busy_share = max(0.0, 1.0 - idle_share - backpressured_share)
        result = {
            "records_in": self.input.records_in if self.input is not None else 0,
            "records_out": self.chain.records_out if self.chain is not None else 0,
            "busy_ms_per_second": round(busy_share * 1000, 1),
            "idle_ms_per_second": round(idle_share * 1000, 1),
            "backpressured_ms_per_second": round(backpressured_share * 1000, 1),
        }
        if self.chain is not None:
            result.update(self.chain.operator_metrics())
            result["operators"] = self.chain.per_operator_metrics(result["records_in"], self._input_watermark())
        input_metrics = getattr(self.input, "metrics", None)
        if input_metrics is not None:
            result.update(input_metrics())
        if self._debloater is not None:
            result["buffer_size"] = self._debloater.announced or self.debloat.max_buffer_records
            result["throughput_per_ms"] = round(self._debloater.throughput, 3)
        return result
