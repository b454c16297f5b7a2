"""A run's checkpoint statistics from the stored rows, shaped like Flink's REST answers.

``overview`` is ``/jobs/:id/checkpoints`` (counts, summary with min/avg/max and
percentiles, latest completed / savepoint / failed / restored, history newest first),
``details`` is ``/jobs/:id/checkpoints/details/:cid`` with per-vertex and per-subtask
statistics, ``config`` is ``/jobs/:id/checkpoints/config``. Times are epoch
milliseconds, durations milliseconds, sizes bytes.

The history endpoint is read while a run checkpoints every second, so the overview
reads each column it summarises once (``values_list``), builds rows as plain dicts, and
leaves the per-subtask statistics to ``details`` (like Flink's history): a row's size
does not grow with the parallelism.

Older checkpoints are folded into rollups (``studio.runs.history``): the counts and the
summary add the run's rollup to the detailed rows, so they still cover every checkpoint the
run took; ``folded`` says how many were folded and which, and ``summary_exact`` whether the
percentiles are exact (only detailed rows) or read from the rollup's sketch (within
``studio.runs.rollups.RELATIVE_ACCURACY``, relative; min, max and avg stay exact). The
long-range view is :func:`timeline`: per minute or hour, rollups and detailed rows together.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

from django.db.models import Count, Max, Q

from engine.api import CHECKPOINTING_DEFAULTS
from studio.models import Checkpoint, CheckpointRollup, RollupResolution, Run, RunStatus
from studio.runs.history import HOUR_MS, MINUTE_MS, rollup_of, run_rollup
from studio.runs.rollups import RELATIVE_ACCURACY, Figure, figures_from_json

HISTORY_DEFAULT = 100
HISTORY_MAX = 1000
SUMMARISED = ("end_to_end_duration", "state_size", "alignment_duration", "persisted_data")
ROW_FIELDS = ("pk", "checkpoint_id", "kind", "status", "trigger_timestamp", "latest_ack_timestamp",
              "end_to_end_duration", "alignment_duration", "state_size", "num_acknowledged_subtasks",
              "num_subtasks", "external_path", "failure_message", "discarded", "trigger", "unaligned",
              "persisted_data")
SUBTASK_TIMES = ("start_delay", "alignment_duration", "sync_duration", "async_duration")


def overview(run: Run, limit: int = HISTORY_DEFAULT) -> dict[str, Any]:
    checkpoints = Checkpoint.objects.filter(run=run)
    completed = Q(status="COMPLETED")
    facts = checkpoints.aggregate(  # one pass: the counts and the ids of the latest of each kind
        total=Count("pk"), in_progress=Count("pk", filter=Q(status="IN_PROGRESS")),
        completed=Count("pk", filter=completed), failed=Count("pk", filter=Q(status="FAILED")),
        latest_completed=Max("checkpoint_id", filter=completed & Q(kind="checkpoint")),
        latest_savepoint=Max("checkpoint_id", filter=completed & ~Q(kind="checkpoint")),
        latest_failed=Max("checkpoint_id", filter=Q(status="FAILED")))
    latest_ids = {name: facts.pop(f"latest_{name}") for name in ("completed", "savepoint", "failed")}
    restored = restore_info(run)
    rollup = run_rollup(run.pk)
    if rollup is not None:
        facts["total"] += rollup.completed + rollup.failed
        facts["completed"] += rollup.completed
        facts["failed"] += rollup.failed
    counts = {**facts, "restored": (1 if restored else 0) + _restarts(run)}
    columns = list(zip(*checkpoints.filter(completed).values_list(*SUMMARISED))) or [()] * len(SUMMARISED)
    if rollup is None:
        summary = {name: statistics(values) for name, values in zip(SUMMARISED, columns)}
    else:
        folded_figures = figures_from_json(rollup.figures, SUMMARISED)
        summary = {name: folded_figures[name].merge(Figure.of(values)).statistics()
                   for name, values in zip(SUMMARISED, columns)}
    history = [row(values) for values in checkpoints.order_by("-checkpoint_id").values_list(*ROW_FIELDS)[:limit]]
    by_id = {entry["id"]: entry for entry in history}
    missing = [cid for cid in latest_ids.values() if cid is not None and cid not in by_id]
    if missing:
        by_id.update((entry["id"], entry) for entry in map(
            row, checkpoints.filter(checkpoint_id__in=missing).values_list(*ROW_FIELDS)))
    return {
        "counts": counts,
        "summary": summary,
        "latest": {**{name: by_id.get(cid) if cid is not None else None for name, cid in latest_ids.items()},
                   "restored": restored},
        "history": history,
        "folded": folded_of(rollup),
        "summary_exact": rollup is None or rollup.completed == 0,
    }


def folded_of(rollup: CheckpointRollup | None) -> dict[str, Any] | None:
    """What of the run's checkpoints was folded into rollups (None: nothing yet)."""
    if rollup is None:
        return None
    return {"completed": rollup.completed, "failed": rollup.failed,
            "first_id": rollup.first_checkpoint_id, "last_id": rollup.last_checkpoint_id,
            "first_trigger_timestamp": rollup.first_trigger_timestamp,
            "last_trigger_timestamp": rollup.last_trigger_timestamp, "relative_accuracy": RELATIVE_ACCURACY}


TIMELINE_DEFAULT = 60
TIMELINE_MAX = 1000
BUCKET_MS = {RollupResolution.MINUTE: MINUTE_MS, RollupResolution.HOUR: HOUR_MS}


def timeline(run: Run, resolution: str, before: int | None = None, limit: int = TIMELINE_DEFAULT) -> dict[str, Any]:
    """The run's checkpoints per minute or hour of trigger time, newest bucket first, ``limit`` buckets
    starting before ``before`` (epoch ms; None: from the newest). A bucket adds the rollup of its
    folded checkpoints to its detailed rows: ``{"start", "completed", "failed", "first_id", "last_id",
    "unaligned", "summary": {figure: statistics}}``; ``next_before`` pages on (None at the end).
    Savepoints are not in it (the history lists every one)."""
    width = BUCKET_MS[resolution]
    rollups = CheckpointRollup.objects.filter(run=run, resolution=resolution)
    if before is not None:
        rollups = rollups.filter(bucket_start__lt=before)
    starts = set(rollups.order_by("-bucket_start").values_list("bucket_start", flat=True)[:limit + 1])
    detailed = Checkpoint.objects.filter(run=run, kind="checkpoint", status__in=("COMPLETED", "FAILED"))
    if before is not None:
        detailed = detailed.filter(trigger_timestamp__lt=before - before % width)
    # the detailed rows are few (studio.runs.history bounds them): their buckets are read whole
    rows_by_bucket: dict[int, list[tuple]] = {}
    for values in detailed.values_list("pk", "checkpoint_id", "status", "trigger_timestamp", "unaligned",
                                       *SUMMARISED):
        rows_by_bucket.setdefault(values[3] - values[3] % width, []).append(values)
    starts = sorted(starts | set(rows_by_bucket), reverse=True)
    page, more = starts[:limit], len(starts) > limit
    stored = {rollup.bucket_start: rollup for rollup in rollups.filter(bucket_start__in=page)}
    buckets = []
    for start in page:
        entry = rollup_of(rows_by_bucket.get(start, []))
        rollup = stored.get(start)
        figures = entry["figures"]
        counts = {name: entry[name] for name in ("completed", "failed", "unaligned")}
        ids = [entry["first_checkpoint_id"], entry["last_checkpoint_id"]]
        if rollup is not None:
            for name, figure in figures_from_json(rollup.figures, SUMMARISED).items():
                figures[name].merge(figure)
            for name in counts:
                counts[name] += getattr(rollup, name)
            ids = [min(filter(None, (ids[0], rollup.first_checkpoint_id))),
                   max(filter(None, (ids[1], rollup.last_checkpoint_id)))]
        buckets.append({"start": start, **counts, "first_id": ids[0], "last_id": ids[1],
                        "summary": {name: figure.statistics() for name, figure in figures.items()},
                        "summary_exact": rollup is None})
    return {"resolution": resolution, "buckets": buckets,
            "next_before": page[-1] if more and page else None}


def statistics(values: Iterable[float | int | None]) -> dict[str, float | None]:
    """min / max / avg and nearest-rank p50 / p90 / p99 of the values that are not None.

    >>> statistics([4, 1, 3, 2, None])
    {'min': 1, 'max': 4, 'avg': 2.5, 'p50': 2, 'p90': 4, 'p99': 4}
    """
    known = sorted(value for value in values if value is not None)
    if not known:
        return {"min": None, "max": None, "avg": None, "p50": None, "p90": None, "p99": None}
    return {"min": known[0], "max": known[-1], "avg": sum(known) / len(known),
            "p50": _percentile(known, 50), "p90": _percentile(known, 90), "p99": _percentile(known, 99)}


def _percentile(ordered: list, percent: float):
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def row(values: tuple) -> dict[str, Any]:
    """A history row from ``values_list(*ROW_FIELDS)``."""
    entry = dict(zip(ROW_FIELDS, values))
    entry["id"] = entry.pop("checkpoint_id")
    entry["is_savepoint"] = entry["kind"] != "checkpoint"
    entry["external_path"] = entry["external_path"] or None
    entry["trigger"] = entry["trigger"] or None
    return entry


def row_of(checkpoint: Checkpoint) -> dict[str, Any]:
    return row(tuple(getattr(checkpoint, field) for field in ROW_FIELDS))


def _restarts(run: Run) -> int:
    return sum(1 for change in run.status_history if change.get("status") == RunStatus.RESTARTING)


def restore_info(run: Run) -> dict[str, Any] | None:
    """What the run started from (Flink's ``latest.restored``), or None."""
    if not run.restore_path and run.restored_from_id is None:
        return None
    checkpoint = run.restored_from
    started = run.started_at or run.created_at
    return {"id": checkpoint.checkpoint_id if checkpoint else None, "pk": checkpoint.pk if checkpoint else None,
            "external_path": run.restore_path or (checkpoint.external_path if checkpoint else ""),
            "is_savepoint": checkpoint.is_savepoint if checkpoint else None,
            "restore_timestamp": int(started.timestamp() * 1000)}


def details(run: Run, checkpoint: Checkpoint) -> dict[str, Any]:
    """One checkpoint with per-vertex totals and per-subtask phases."""
    names = {vertex["id"]: vertex for vertex in (run.plan or {}).get("job_vertices", [])}
    by_vertex: dict[str, list[dict]] = {}
    for subtask in checkpoint.subtasks:
        by_vertex.setdefault(str(subtask.get("vertex")), []).append(subtask)
    vertices = []
    for vertex_id, subtasks in by_vertex.items():
        known = names.get(vertex_id, {})
        acknowledged = [s for s in subtasks if s.get("status") != "pending"]
        stamps = [s["ack_timestamp"] for s in subtasks if s.get("ack_timestamp") is not None]
        entry = {
            "id": vertex_id, "name": known.get("name", vertex_id), "operators": list(known.get("operators", [])),
            "num_subtasks": len(subtasks), "num_acknowledged_subtasks": len(acknowledged),
            "state_size": int(sum(s.get("state_size") or 0 for s in subtasks)),
            "latest_ack_timestamp": max(stamps) if stamps else None,
            "end_to_end_duration": (max(stamps) - checkpoint.trigger_timestamp) if stamps else None,
        }
        for name in SUBTASK_TIMES:  # the slowest subtask is the vertex's critical path
            values = [s.get(name) for s in subtasks if s.get(name) is not None]
            entry[name] = max(values) if values else None
        entry["subtasks"] = [_subtask(s) for s in sorted(subtasks, key=lambda s: s.get("index", 0))]
        vertices.append(entry)
    return {**row_of(checkpoint), "vertices": vertices}


def _subtask(subtask: dict) -> dict[str, Any]:
    keys = ("index", "status", "ack_timestamp", "end_to_end_duration", *SUBTASK_TIMES, "state_size",
            "persisted_data", "unaligned")
    return {key: subtask.get(key) for key in keys}


def config(run: Run) -> dict[str, Any]:
    """The run's checkpointing settings with Flink's names."""
    from studio.run_values import run_definition

    definition = run_definition(run)
    settings = {**CHECKPOINTING_DEFAULTS, **(definition.get("checkpointing") or {})}
    enabled = run.mode != "batch" and settings.get("enabled", True) is not False and bool(settings["interval_ms"])
    return {
        "enabled": enabled,
        "mode": settings["mode"],
        "interval": settings["interval_ms"],
        "timeout": settings["timeout_ms"],
        "min_pause": settings["min_pause_ms"],
        "max_concurrent": settings["max_concurrent"],
        "tolerable_failed_checkpoints": settings["tolerable_failures"],
        "unaligned_checkpoints": bool(settings["unaligned"]),
        "aligned_checkpoint_timeout": settings["aligned_timeout_ms"],
        "retained_checkpoints": settings["retained"],
        "checkpoints_after_tasks_finish": True,
        "checkpoint_storage": run.checkpoint_dir,
        "externalization": {"enabled": True, "delete_on_cancellation": False},
        "settings": settings,
    }
