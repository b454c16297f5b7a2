"""The Prometheus exposition of the studio and of every running job a user may view.

Families (all prefixed ``pipeline_studio_``):

- ``runs`` (gauge, ``status``): the runs the scraper may view, by status; ``pipelines`` (gauge);
- per subtask of each running run (labels ``pipeline``, ``run``, ``vertex``, ``subtask``):
  ``subtask_busy_ratio``, ``subtask_idle_ratio``, ``subtask_backpressured_ratio`` (0..1);
- per operator of each subtask (labels plus ``operator``): ``operator_records_in_total``,
  ``operator_records_out_total`` (counters), ``operator_watermark_milliseconds`` (gauge, absent before
  the first watermark), ``operator_watermark_lag_seconds`` (the scrape's time minus the watermark,
  for event times that are epoch milliseconds); once the run's sources send latency markers,
  ``operator_latency_seconds`` (source to the operator) and, at the head of a job vertex,
  ``operator_hop_latency_seconds`` (the channel into it), each with ``quantile`` 0.5 and 0.99 over
  the subtask's latest markers, and ``operator_latency_markers_total``;
- at an exactly-once (two-phase-commit) sink, its visible latency: ``operator_visible_latency_seconds``
  (a record's arrival at the sink to its transaction's commit) and, with latency markers,
  ``operator_source_visible_latency_seconds`` (a marker's source to that commit), by ``quantile``;
- what the sources have left to read, per split, and the emit delay of windows
  (``studio.observability.lag_families``);
- per checked node or edge (labels ``pipeline``, ``run``, ``operator`` = the node or edge id,
  ``scope`` = node | edge, ``expectation``): ``expectation_records_total``,
  ``expectation_violations_total``;
- per run: ``checkpoints_total`` (``status`` completed | failed), ``checkpoint_duration_milliseconds``
  and ``checkpoint_size_bytes`` of the latest completed one.

The job figures are the run's latest ``metrics`` event (what its driver reported last, about every
second), read from the event store: one query per running run, nothing kept in memory between
scrapes. Pipelines are labelled by name, runs by id.
"""
from __future__ import annotations

import time
from typing import Iterable

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from studio.access import pipelines_visible_to, runs_visible_to
from studio.models import Checkpoint, RunEvent
from studio.observability.lag_families import LagFamilies

PREFIX = "pipeline_studio_"
LIVE_STATUSES = ("SCHEDULING", "RUNNING", "RESTARTING", "CANCELING", "STOPPING")
EPOCH_MS_FROM = 1e11
"""Below this a watermark is a plain event-time number, not epoch milliseconds: it has no lag."""


def exposition(user) -> bytes:
    """The text format for what ``user`` may view."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_StudioCollector(user))
    return generate_latest(registry)


class _StudioCollector:
    def __init__(self, user):
        self.user = user

    def collect(self) -> Iterable:
        runs = runs_visible_to(self.user)
        by_status = GaugeMetricFamily(PREFIX + "runs", "Runs the scraper may view, by status", labels=["status"])
        counts: dict[str, int] = {}
        for status in runs.values_list("status", flat=True):
            counts[status] = counts.get(status, 0) + 1
        for status, count in sorted(counts.items()):
            by_status.add_metric([status], count)
        yield by_status
        pipelines = GaugeMetricFamily(PREFIX + "pipelines", "Pipelines the scraper may view")
        pipelines.add_metric([], pipelines_visible_to(self.user).count())
        yield pipelines
        yield from _job_families(runs.filter(status__in=LIVE_STATUSES).select_related("pipeline").order_by("id"))


def _job_families(runs) -> Iterable:
    task_labels = ["pipeline", "run", "vertex", "subtask"]
    operator_labels = task_labels[:3] + ["operator", "subtask"]
    ratios = {name: GaugeMetricFamily(PREFIX + f"subtask_{name}_ratio", f"Share of the last second the subtask's "
                                      f"thread was {name}", labels=task_labels)
              for name in ("busy", "idle", "backpressured")}
    records_in = CounterMetricFamily(PREFIX + "operator_records_in", "Records into the operator", labels=operator_labels)
    records_out = CounterMetricFamily(PREFIX + "operator_records_out", "Records out of the operator",
                                      labels=operator_labels)
    watermark = GaugeMetricFamily(PREFIX + "operator_watermark_milliseconds", "The operator's input watermark",
                                  labels=operator_labels)
    watermark_lag = GaugeMetricFamily(PREFIX + "operator_watermark_lag_seconds",
                                      "Processing time minus the operator's input watermark", labels=operator_labels)
    latency = GaugeMetricFamily(PREFIX + "operator_latency_seconds", "Latency markers: source to the operator, "
                                "over the subtask's latest markers", labels=operator_labels + ["quantile"])
    hop_latency = GaugeMetricFamily(PREFIX + "operator_hop_latency_seconds", "Latency markers: the time spent in "
                                    "the channel into the operator", labels=operator_labels + ["quantile"])
    markers = CounterMetricFamily(PREFIX + "operator_latency_markers", "Latency markers that reached the operator",
                                  labels=operator_labels)
    visible = GaugeMetricFamily(PREFIX + "operator_visible_latency_seconds", "Exactly-once sinks: a record's "
                                "arrival to its transaction's commit", labels=operator_labels + ["quantile"])
    source_visible = GaugeMetricFamily(PREFIX + "operator_source_visible_latency_seconds", "Exactly-once sinks: "
                                       "a latency marker's source to its transaction's commit",
                                       labels=operator_labels + ["quantile"])
    quality_labels = ["pipeline", "run", "operator", "scope", "expectation"]
    checked = CounterMetricFamily(PREFIX + "expectation_records", "Records an expectation checked",
                                  labels=quality_labels)
    violated = CounterMetricFamily(PREFIX + "expectation_violations", "Records that violated an expectation",
                                   labels=quality_labels)
    checkpoints = CounterMetricFamily(PREFIX + "checkpoints", "Checkpoints of the run", labels=["pipeline", "run",
                                                                                                 "status"])
    duration = GaugeMetricFamily(PREFIX + "checkpoint_duration_milliseconds",
                                 "End-to-end duration of the latest completed checkpoint", labels=["pipeline", "run"])
    size = GaugeMetricFamily(PREFIX + "checkpoint_size_bytes", "State size of the latest completed checkpoint",
                             labels=["pipeline", "run"])
    lag = LagFamilies(PREFIX, operator_labels)
    now_ms = time.time() * 1000
    for run in runs:
        pipeline, run_id = run.pipeline.name, str(run.id)
        latest = (RunEvent.objects.filter(run=run, type="metrics").order_by("-seq").values_list("data", flat=True)
                  .first()) or {}
        for task, report in sorted((latest.get("tasks") or {}).items()):
            vertex, _, subtask = task.rpartition("#")
            labels = [pipeline, run_id, vertex, subtask]
            for name, family in ratios.items():
                value = report.get(f"{name}_ms_per_second")
                if isinstance(value, (int, float)):
                    family.add_metric(labels, max(0.0, min(1.0, value / 1000.0)))
            for operator, figures in sorted((report.get("operators") or {}).items()):
                if "::" in operator:
                    continue  # the planner's expectation checks: counted as expectations below
                operator_labels_values = [pipeline, run_id, vertex, operator, subtask]
                records_in.add_metric(operator_labels_values, float(figures.get("records_in") or 0))
                records_out.add_metric(operator_labels_values, float(figures.get("records_out") or 0))
                mark = figures.get("watermark")
                if isinstance(mark, (int, float)) and mark < 2**62:
                    watermark.add_metric(operator_labels_values, float(mark))
                    if mark >= EPOCH_MS_FROM:
                        watermark_lag.add_metric(operator_labels_values, max(0.0, (now_ms - mark) / 1000.0))
                _add_latency(operator_labels_values, figures, latency, hop_latency, markers, visible, source_visible)
                lag.add_operator(operator_labels_values, figures)
        lag.add_enumerators(pipeline, run_id, latest.get("enumerators"))
        for scope, counts in sorted((latest.get("expectations") or {}).items()):
            kind, _, name = scope.partition(":")
            for rule, figures in sorted((counts.get("rules") or {}).items()):
                labels = [pipeline, run_id, name, kind, rule]
                checked.add_metric(labels, float(counts.get("records") or 0))
                violated.add_metric(labels, float(figures.get("violated") or 0))
        for status in ("COMPLETED", "FAILED"):
            checkpoints.add_metric([pipeline, run_id, status.lower()],
                                   Checkpoint.objects.filter(run=run, kind="checkpoint", status=status).count())
        last = (Checkpoint.objects.filter(run=run, status="COMPLETED").order_by("-checkpoint_id")
                .values("end_to_end_duration", "state_size").first())
        if last:
            if last["end_to_end_duration"] is not None:
                duration.add_metric([pipeline, run_id], float(last["end_to_end_duration"]))
            if last["state_size"] is not None:
                size.add_metric([pipeline, run_id], float(last["state_size"]))
    yield from (*ratios.values(), records_in, records_out, watermark, watermark_lag, latency, hop_latency, markers,
                visible, source_visible, checked, violated, checkpoints, duration, size)
    yield from lag.families()


def _add_latency(labels: list[str], figures: dict, latency, hop_latency, markers, visible, source_visible) -> None:
    """An operator's latency-marker figures (``engine.runtime.latency_stats``) and an exactly-once sink's visible
    latency, in seconds, by quantile."""
    for name, family in (("latency", latency), ("hop_latency", hop_latency), ("visible_latency", visible),
                         ("source_visible_latency", source_visible)):
        measured = figures.get(name)
        if not isinstance(measured, dict):
            continue
        for quantile, key in (("0.5", "p50_ms"), ("0.99", "p99_ms")):
            if isinstance(measured.get(key), (int, float)):
                family.add_metric(labels + [quantile], measured[key] / 1000.0)
        if name == "latency":
            markers.add_metric(labels, float(measured.get("markers") or 0))
