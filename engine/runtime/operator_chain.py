"""The operator chain of a subtask: operators calling each other, then the record writers.

Operators joined by a forward edge of equal parallelism run in one subtask (the JobGraph's
chaining). Each operator's ``emit`` is bound straight to the next operator's
``process_batch`` -- one Python call per batch, no queue, no copy -- and the chain's last
operator (or any operator with job edges leaving it) emits into record writers. When an
operator has several targets, its ``emit`` calls each with the same list, which is why
operators never mutate their input.

Fan-out: a chain may be a tree (``chain_inputs``: per operator the position of the one that
feeds it; the JobGraph's "Fan-out chaining"), operators listed parent before child. An
operator then calls each chained successor's ``process_batch`` (and its watermark and status
methods) in their order, then its writers; everything else -- barriers, snapshots, finishing
(parent first), opening and closing (children first) -- goes over the operator list as for a
linear chain, so a snapshot is still one consistent cut of the whole subtask. The fused runs
below never take a fan-out inside their run, and the columnar and JSON-fields paths (which
need one line from the head to one writer) only linear chains. An operator whose output feeds something emits through its
tap point (``engine.runtime.tap``): one check per batch while no tap is open.

Named output ports (``port_writers``: node -> port -> writers, the job edges with a
``from_port``) are bound into the operator's ``side_outputs``; their writers also get the
operator's watermarks and statuses, and every event the chain broadcasts, as the main
output's writers do.

Per-operator metrics: each operator's ``emit`` (and each side output) is wrapped once by a
counter, so counting costs one addition per *batch* per operator, never per record. An
operator's records out are what it emitted on every port; the records in of an operator
inside the chain are what its predecessor emitted on the main output (the only thing that
calls its ``process_batch``), the head's are the task input's. Each operator's input
watermark is the last watermark its predecessor emitted; the head's is the task input's.

Fused maps and filters: a run of maps (each feeding nothing but the next operator),
optionally ending with a filter, is applied by one comprehension with every expression
inline (``compile_batch_steps``; not when a map needs the expression guards'
temporaries), the first operator's ``process_batch`` replaced by it: no list between
them. The maps' records out are counted for them (a map emits what it takes); the run's
last operator emits as usual. A batch with event times, a batch while a tap is open
inside the run, and a batch whose fused step raised go through the operators one by one
instead (the failing expression then raises again, from its own operator).

Columnar batches: when the chain is a source of plain integers followed by a run of maps
and filters that compile to numpy (``engine.runtime.columnar``) ending in one writer, the
source emits int64 arrays and the run computes them a whole array at once, handing the
result to the writer -- routed as an array on a hash edge that takes one, else as a list.
The counters are kept as above; an open tap in the run, or a batch whose values could
leave the exact range, takes the Python path with the array's records as a list.

Latency markers (``process_latency_marker``) bypass the operators' logic: every operator of
the chain from the given position records the marker's age (``engine.runtime.latency_stats``),
the first of them also the hop it came over (and each is told: ``latency_marker_reached``,
which a two-phase-commit sink times until its commit), and each writer sends it on to one random
channel, stamped with the moment it left. Per marker, never per record or batch.

Threading model: the subtask's mailbox thread.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from engine.runtime.columnar import compile_int_steps
from engine.runtime.io.events import LatencyMarker, RuntimeEvent
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.json_fields import FieldDecoder, FieldsChain
from engine.runtime.latency_stats import LatencyStats
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.source_lag import measured_lag
from engine.runtime.operators.watermark import bind_split_source
from engine.runtime.tap import TapPoint, tapped
from engine.spec.expressions import compile_batch_steps


def _fan_out(targets: list[Callable]) -> Callable:
    if len(targets) == 1:
        return targets[0]
    if not targets:
        return lambda _item: None

    def emit_to_all(item) -> None:
        for target in targets:
            target(item)

    return emit_to_all


def _step_kind(operator: StreamOperator) -> str | None:
    step = operator.record_wise_step()
    return step[0] if step is not None else None


def _fused_run(run: list[StreamOperator], steps: Callable[[list], list], map_counters: list[OperatorCounters],
               points: list[TapPoint]) -> Callable:
    """The ``process_batch`` of ``run``'s first operator that applies the whole run with ``steps``."""
    one_by_one = run[0].process_batch
    last = run[-1]

    def process_fused(batch) -> None:
        if type(batch) is not list or any(point.open for point in points):
            one_by_one(batch)
            return
        try:
            result = steps(batch)
        except Exception:
            one_by_one(batch)  # raises again, from the operator whose expression failed
            return
        taken = len(batch)
        for counters in map_counters:
            counters.records_out += taken
        last.emit(result)

    return process_fused


def _columnar_run(int_steps: Callable, python_path: Callable, run_counters: list[OperatorCounters],
                  points: list[TapPoint], writer: RecordWriter) -> Callable:
    """The ``process_batch`` of a run's first operator that applies the run to an int64 array and
    hands the result to its writer, routed as an array where the writer takes one."""
    columnar_writer = writer.takes_columnar()
    inner, last = run_counters[:-1], run_counters[-1]
    bounded = int_steps.bounded

    def process_columnar(batch) -> None:
        if type(batch) is not np.ndarray:
            python_path(batch)
            return
        computed = bounded(batch) if not any(point.open for point in points) else None
        if computed is None:  # a tap looks at the records, or they could leave the exact range
            python_path(batch.tolist())
            return
        result, bounds = computed
        taken = len(batch)
        for counters in inner:  # maps: what they take they emit
            counters.records_out += taken
        last.records_out += len(result)
        if not (columnar_writer and writer.emit_columnar(result, bounds)):
            writer.emit(result.tolist())

    return process_columnar


class OperatorCounters:
    """One operator's counters in its subtask. Written and read by the mailbox thread only."""

    __slots__ = ("records_out", "side_records_out", "watermark_out")

    def __init__(self):
        self.records_out = 0
        """Records emitted on the main output (the next operator's records in)."""
        self.side_records_out = 0
        """Records emitted on named output ports (they leave the chain)."""
        self.watermark_out: int | None = None


def _counted(emit: Callable, counters: OperatorCounters) -> Callable:
    def emit_and_count(batch) -> None:
        counters.records_out += len(batch)
        emit(batch)

    return emit_and_count


def _side_counted(emit: Callable, counters: OperatorCounters) -> Callable:
    def emit_and_count(batch) -> None:
        counters.side_records_out += len(batch)
        emit(batch)

    return emit_and_count


def _watermark_noted(emit_watermark: Callable, counters: OperatorCounters) -> Callable:
    def emit_and_note(watermark) -> None:
        counters.watermark_out = watermark.timestamp
        emit_watermark(watermark)

    return emit_and_note


class OperatorChain:
    """The operators of one subtask, head first, wired to each other and to the writers."""

    def __init__(self, operators: Sequence[StreamOperator], writers: dict[str, list[RecordWriter]],
                 tap_points: dict[str, TapPoint] | None = None,
                 port_writers: dict[str, dict[str, list[RecordWriter]]] | None = None,
                 chain_inputs: Sequence[int] | None = None):
        if not operators:
            raise ValueError("an operator chain needs at least one operator")
        self.operators = list(operators)
        self.inputs = (list(range(-1, len(self.operators) - 1)) if chain_inputs is None
                       else [int(feeder) for feeder in chain_inputs])
        """Per operator, the position of the operator feeding it in the chain (-1: the head)."""
        if len(self.inputs) != len(self.operators) or self.inputs[0] != -1 or any(
                not 0 <= feeder < position for position, feeder in enumerate(self.inputs) if position):
            raise ValueError(f"chain inputs {list(chain_inputs or ())} do not form a tree over "
                             f"{len(self.operators)} operators listed parent first")
        self.outputs: list[list[int]] = [[] for _ in self.operators]
        """Per operator, the positions of the operators it feeds in the chain, in order."""
        for position, feeder in enumerate(self.inputs[1:], start=1):
            self.outputs[feeder].append(position)
        self.is_linear = all(feeder == position - 1 for position, feeder in enumerate(self.inputs))
        self.tap_points: dict[str, TapPoint] = {}
        port_writers = port_writers or {}
        self._node_writers, self._port_writers = writers, port_writers
        self.writers = [writer for node_writers in writers.values() for writer in node_writers]
        self.writers += [writer for ports in port_writers.values() for port in ports.values() for writer in port]
        self.counters = [OperatorCounters() for _ in self.operators]
        self.latency = [LatencyStats() for _ in self.operators]
        self.json_fields: FieldDecoder | None = None
        """The head's decoder of projected JSON records into fields, when the chain runs on them."""
        """Per operator, what the latency markers that reached it measured."""
        bind_split_source(self.operators)
        self._fuse_record_wise_runs(writers, port_writers, tap_points or {})
        for position, operator in enumerate(self.operators):
            counters = self.counters[position]
            batch_targets: list[Callable] = []
            watermark_targets: list[Callable] = []
            status_targets: list[Callable] = []
            for successor in self.outputs[position]:
                following = self.operators[successor]
                batch_targets.append(following.process_batch)
                watermark_targets.append(following.process_watermark)
                status_targets.append(following.process_watermark_status)
            for writer in writers.get(operator.node_id, ()):
                batch_targets.append(writer.emit)
                watermark_targets.append(writer.broadcast_event)
                status_targets.append(writer.broadcast_event)
            for port, port_targets in port_writers.get(operator.node_id, {}).items():
                operator.side_outputs[port] = _side_counted(
                    _fan_out([writer.emit for writer in port_targets]), counters)
                watermark_targets += [writer.broadcast_event for writer in port_targets]
                status_targets += [writer.broadcast_event for writer in port_targets]
            operator.emit = _counted(_fan_out(batch_targets), counters)
            point = (tap_points or {}).get(operator.node_id)
            if point is not None and batch_targets:
                operator.emit = tapped(operator.emit, point)
                self.tap_points[operator.node_id] = point
            operator.emit_watermark = _watermark_noted(_fan_out(watermark_targets), counters)
            operator.emit_watermark_status = _fan_out(status_targets)

    def _fuse_record_wise_runs(self, writers: dict, port_writers: dict, tap_points: dict) -> None:
        """Replace the ``process_batch`` of the first operator of each run of maps (ending with at most
        one filter) by the fused one. Before wiring, so that what calls it gets the fused one."""
        operators = self.operators
        start = 0
        while start < len(operators):
            end = start
            while (end + 1 < len(operators) and _step_kind(operators[end]) == "map"
                   and self.outputs[end] == [end + 1]
                   and not writers.get(operators[end].node_id) and not port_writers.get(operators[end].node_id)
                   and _step_kind(operators[end + 1]) is not None):
                end += 1
                if _step_kind(operators[end]) == "filter":
                    break
            run = operators[start:end + 1]
            steps = compile_batch_steps([operator.record_wise_step() for operator in run]) if end > start else None
            if steps is not None:
                points = [tap_points[op.node_id] for op in run[:-1] if op.node_id in tap_points]
                run[0].process_batch = _fused_run(run, steps, self.counters[start:end], points)
            if start == 1 and end == len(operators) - 1 and self.is_linear and _step_kind(run[0]) is not None:
                self._take_int_arrays(run, writers, port_writers, tap_points)
            start = end + 1

    def _take_int_arrays(self, run: list[StreamOperator], writers: dict, port_writers: dict, tap_points: dict) -> None:
        """Let the head (a source of plain integers) emit int64 arrays when ``run`` -- the rest of the
        chain -- compiles to them and ends in exactly one writer."""
        head, last = self.operators[0], run[-1]
        if writers.get(head.node_id) or port_writers.get(head.node_id) or port_writers.get(last.node_id):
            return
        if len(writers.get(last.node_id, ())) != 1:
            return
        int_steps = compile_int_steps([operator.record_wise_step() for operator in run])
        if int_steps is None or not head.emit_int_arrays():
            return
        points = [tap_points[op.node_id] for op in run if op.node_id in tap_points]
        run[0].process_batch = _columnar_run(int_steps, run[0].process_batch, self.counters[1:], points,
                                             writers[last.node_id][0])

    def take_json_fields(self, fields: frozenset[str]) -> bool:
        """Let the head (a JSON source projecting its records to ``fields``) emit them decoded into
        fields, and run the rest of the chain and its writer's window partials over them
        (``engine.runtime.json_fields``), where the chain is one that path covers. Called after the
        head agreed to project (``project_records``), before anything ran."""
        head, last = self.operators[0], self.operators[-1]
        if len(self.operators) < 2 or self._port_writers or not self.is_linear:
            return False
        if any(self._node_writers.get(op.node_id) for op in self.operators[:-1]):
            return False
        writers = self._node_writers.get(last.node_id, ())
        if len(writers) != 1:
            return False
        points = list(self.tap_points.values())
        planned = FieldsChain.plan(self.operators, writers[0], self.counters, points, fields)
        if planned is None:
            return False
        chain, int_fields = planned
        projection = getattr(head, "projection", None)
        if projection is None:
            return False
        decoder = FieldDecoder(fields, int_fields, projection)
        if not head.decode_json_fields(decoder):
            return False
        chain.decoder = decoder
        self.json_fields = decoder
        emit = _counted(chain.process, self.counters[0])
        point = self.tap_points.get(head.node_id)
        head.emit = tapped(emit, point) if point is not None else emit
        return True

    @property
    def head(self) -> StreamOperator:
        return self.operators[0]

    @property
    def requires_final_checkpoint(self) -> bool:
        return any(operator.requires_final_checkpoint for operator in self.operators)

    def initialize_state(self) -> None:
        for operator in self.operators:
            operator.initialize_state()

    def open(self) -> None:
        # tail first, so an operator never emits into one that is not open yet
        for operator in reversed(self.operators):
            operator.open()

    def prepare_snapshot_pre_barrier(self, checkpoint_id: int) -> None:
        for operator in self.operators:
            operator.prepare_snapshot_pre_barrier(checkpoint_id)

    def broadcast_event(self, event: RuntimeEvent) -> None:
        for writer in self.writers:
            writer.broadcast_event(event)

    def process_latency_marker(self, marker: LatencyMarker, now_ms: float, first: int = 0) -> None:
        """Record ``marker`` at the operators from position ``first`` on (a source's head does
        not record its own), the hop at the first of them when it came over a channel (``first``
        0), and send it on through every writer."""
        age = now_ms - marker.marked_ms
        hop = now_ms - marker.forwarded_ms if first == 0 else None
        for stats, operator in zip(self.latency[first:], self.operators[first:]):
            stats.record(marker.source, age, hop)
            operator.latency_marker_reached(marker.source, marker.marked_ms)
            hop = None
        if self.writers:
            forwarded = LatencyMarker(marker.marked_ms, marker.source, now_ms)
            for writer in self.writers:
                writer.emit_latency_marker(forwarded)

    def broadcast_priority_event(self, event: RuntimeEvent) -> dict:
        """An unaligned barrier ahead of every queued buffer; ``{channel id: overtaken items}``."""
        state: dict = {}
        for writer in self.writers:
            state.update(writer.broadcast_priority_event(event))
        return state

    @property
    def buffers_output(self) -> bool:
        """Whether a writer keeps output buffers that ``flush_outputs`` must send when idle."""
        return any(writer.buffers_output for writer in self.writers)

    def flush_outputs(self) -> None:
        """Send what the writers' output buffers hold (the subtask is about to wait)."""
        for writer in self.writers:
            writer.flush()

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        for operator in self.operators:
            operator.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        for operator in self.operators:
            operator.notify_checkpoint_aborted(checkpoint_id)

    def finish(self) -> None:
        # head first: what a finishing operator flushes reaches the next before it finishes
        for operator in self.operators:
            operator.finish()

    def close(self) -> list[BaseException]:
        """Close every operator, tail first; return the errors instead of stopping at the first."""
        errors = []
        for operator in reversed(self.operators):
            try:
                operator.close()
            except Exception as error:  # keep closing the others
                errors.append(error)
        return errors

    @property
    def records_out(self) -> int:
        return sum(writer.records_out for writer in self.writers)

    def per_operator_metrics(self, head_records_in: int, head_watermark: int | None) -> dict[str, dict]:
        """``{node id: {"records_in", "records_out", "watermark"}}`` for every operator, head first,
        with the operator's own ``node_figures`` (late records; the records partial aggregates
        stand for; a window's emit delay), a source's ``lag`` per split (``source_lag``), and once
        latency markers reached it ``latency`` (and, at a head that read them from channels,
        ``hop_latency``; see ``engine.runtime.latency_stats``).

        ``head_records_in``/``head_watermark`` are the task input's (records read, combined input
        watermark; a source head's watermark is the one it emitted). Watermarks are event-time
        milliseconds, None before the first.
        """
        metrics: dict[str, dict] = {}
        for operator, counters, stats, feeder in zip(self.operators, self.counters, self.latency, self.inputs):
            if feeder < 0:
                records_in, watermark = head_records_in, head_watermark
            else:
                records_in, watermark = self.counters[feeder].records_out, self.counters[feeder].watermark_out
            entry = metrics[operator.node_id] = {"records_in": records_in,
                                                 "records_out": counters.records_out + counters.side_records_out,
                                                 "watermark": watermark, **operator.node_figures()}
            latency = stats.figures()
            if latency is not None:
                entry["latency"] = latency
                hop = stats.hop_figures()
                if hop is not None:
                    entry["hop_latency"] = hop
            lag = measured_lag(operator)
            if lag is not None:
                entry["lag"] = lag
        return metrics

    def result(self) -> dict:
        merged: dict = {}
        for operator in self.operators:
            for name, value in operator.result().items():
                if isinstance(value, dict):
                    merged.setdefault(name, {}).update(value)
                else:
                    merged[name] = value
        return merged

    def operator_metrics(self) -> dict:
        merged: dict = {}
        for operator in self.operators:
            for name, value in operator.metrics().items():
                if isinstance(value, dict):
                    merged.setdefault(name, {}).update(value)
                else:
                    merged[name] = value
        return merged
