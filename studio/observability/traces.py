"""OpenTelemetry traces of checkpoints and of run lifecycles, built from the run's events as they are
recorded (``run_event_recorded``), in whichever process records them.

A completed or failed checkpoint becomes one trace: a span ``checkpoint <id>`` from its trigger to
its last acknowledgement, and per acknowledging subtask a child ``subtask <vertex#i>`` with three
children in the order a subtask works (seed 003): ``alignment`` (barrier alignment), ``sync`` (the
synchronous snapshot) and ``async`` (the upload), placed back from the subtask's acknowledgement
time with exactly the durations the checkpoint recorded. A run that ended becomes a span ``run
<id>`` from its creation to its end, with one span event per status it went through.

Export: over OTLP/HTTP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``..._TRACES_ENDPOINT``) is set in the
environment or the settings; tests hand in an exporter with :func:`use_exporter` (the SDK's
in-memory one). Without either nothing is built: a run event costs one attribute check.
"""
from __future__ import annotations

import logging
import os
import threading

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_tracer = None  # guarded by: _lock
_configured = False  # guarded by: _lock

TERMINAL = ("FINISHED", "FAILED", "CANCELED")
NS_PER_MS = 1_000_000


def use_exporter(exporter, *, simple: bool = True) -> None:
    """Export spans with ``exporter`` from now on (a test's ``InMemorySpanExporter``); None turns tracing off."""
    global _tracer, _configured
    with _lock:
        _configured = True
        _tracer = None if exporter is None else _build_tracer(exporter, simple)


def _build_tracer(exporter, simple: bool):
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "pipeline-studio"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter) if simple else BatchSpanProcessor(exporter))
    return provider.get_tracer("studio.observability")


def _configured_tracer():
    """The tracer, configured once per process from the environment; None when tracing is off."""
    global _tracer, _configured
    with _lock:
        if not _configured:
            _configured = True
            from django.conf import settings

            endpoint = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
                        or getattr(settings, "OTEL_EXPORTER_OTLP_ENDPOINT", ""))
            if endpoint:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

                traces = endpoint if endpoint.rstrip("/").endswith("/v1/traces") else endpoint.rstrip("/") + "/v1/traces"
                _tracer = _build_tracer(OTLPSpanExporter(endpoint=traces), simple=False)
        return _tracer


def on_run_event(run_id: int, pipeline_id: int, event: dict) -> None:
    """Trace what ``event`` ends (a checkpoint, a run); never raises."""
    tracer = _configured_tracer()
    if tracer is None:
        return
    try:
        data = event.get("data") or {}
        if event.get("type") == "checkpoint" and data.get("event") in ("completed", "failed"):
            checkpoint_trace(tracer, run_id, pipeline_id, data)
        elif event.get("type") == "status" and data.get("status") in TERMINAL:
            run_trace(tracer, run_id, pipeline_id, event)
    except Exception:
        logger.exception("tracing a %s event of run %s failed", event.get("type"), run_id)


def _ns(ms) -> int:
    """Milliseconds as nanoseconds; epoch timestamps are ints, and stay exact."""
    if isinstance(ms, int):
        return ms * NS_PER_MS
    return int(round(float(ms) * NS_PER_MS))


def checkpoint_trace(tracer, run_id: int, pipeline_id: int, data: dict) -> None:
    from opentelemetry import trace
    from opentelemetry.trace import Status, StatusCode

    trigger = data.get("trigger_timestamp")
    if trigger is None:
        return
    end = data.get("latest_ack_timestamp") or data.get("failure_timestamp") or data.get("completed_timestamp") or trigger
    root = tracer.start_span(f"checkpoint {data.get('id')}", start_time=_ns(trigger), attributes={
        "studio.run": run_id, "studio.pipeline": pipeline_id, "checkpoint.id": int(data.get("id") or 0),
        "checkpoint.kind": str(data.get("kind") or "checkpoint"), "checkpoint.status": str(data.get("status") or ""),
        "checkpoint.state_size": int(data.get("state_size") or 0),
        "checkpoint.end_to_end_duration_ms": float(data.get("end_to_end_duration") or 0)})
    if data.get("event") == "failed":
        root.set_status(Status(StatusCode.ERROR, str(data.get("failure_message") or "failed")))
    parent = trace.set_span_in_context(root)
    for subtask in data.get("subtasks") or ():
        ack = subtask.get("ack_timestamp")
        if subtask.get("status") != "completed" or not ack:
            continue
        asynchronous = float(subtask.get("async_duration") or 0)
        synchronous = float(subtask.get("sync_duration") or 0)
        alignment = float(subtask.get("alignment_duration") or 0)
        async_start = _ns(ack) - _ns(asynchronous)
        sync_start = async_start - _ns(synchronous)
        alignment_start = sync_start - _ns(alignment)
        span = tracer.start_span(f"subtask {subtask.get('task')}", context=parent, start_time=alignment_start,
                                 attributes={"subtask.task": str(subtask.get("task")),
                                             "subtask.vertex": str(subtask.get("vertex")),
                                             "subtask.index": int(subtask.get("index") or 0),
                                             "subtask.state_size": int(subtask.get("state_size") or 0),
                                             "subtask.unaligned": bool(subtask.get("unaligned"))})
        inner = trace.set_span_in_context(span)
        for name, start, stop in (("alignment", alignment_start, sync_start), ("sync", sync_start, async_start),
                                  ("async", async_start, _ns(ack))):
            tracer.start_span(name, context=inner, start_time=start).end(end_time=stop)
        span.end(end_time=_ns(ack))
    root.end(end_time=max(_ns(end), _ns(trigger)))


def run_trace(tracer, run_id: int, pipeline_id: int, event: dict) -> None:
    from opentelemetry.trace import Status, StatusCode

    from studio.models import Run, RunEvent

    run = Run.objects.filter(pk=run_id).values("created_at").first()
    if run is None:
        return
    data = event.get("data") or {}
    span = tracer.start_span(f"run {run_id}", start_time=int(run["created_at"].timestamp() * 1e9),
                             attributes={"studio.run": run_id, "studio.pipeline": pipeline_id,
                                         "run.status": str(data.get("status"))})
    for ts, status in RunEvent.objects.filter(run_id=run_id, type="status").order_by("seq").values_list("ts",
                                                                                                        "data"):
        span.add_event(str((status or {}).get("status")), timestamp=_ns(ts),
                       attributes={"cause": str((status or {}).get("cause") or "")[:300]})
    if data.get("status") == "FAILED":
        span.set_status(Status(StatusCode.ERROR, str(data.get("cause") or "failed").splitlines()[0][:300]))
    span.end(end_time=_ns(event.get("ts")))
