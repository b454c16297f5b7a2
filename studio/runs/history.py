"""A run's bounded history: what is kept in detail, and what is folded into rollups and markers.

A run that checkpoints every 100 ms at parallelism 2 reports about a hundred events and ten
checkpoints a second. Kept as they come, its rows grow without end and every answer that
reads them grows with them. :func:`fold_run` (called by the retention loop,
``studio.retention``) keeps, per run:

Checkpoints in detail (every field, the per-subtask statistics):
    the newest ``settings.HISTORY_DETAILED_CHECKPOINTS`` (what the history and the timeline
    show), every savepoint, the newest ``settings.HISTORY_FAILED_CHECKPOINTS`` failed ones,
    every completed one whose files are still there (``discarded`` false: what a restart may
    use) and every one a run was restored from. Older plain checkpoints are folded into
    :class:`~studio.models.CheckpointRollup` rows: one per minute and one per hour of their
    trigger times, and one for the whole run, each with the counts and, per summarised figure,
    a :class:`~studio.runs.rollups.Figure` (exact count/sum/min/max, percentiles within
    ``RELATIVE_ACCURACY``). Minute rollups older than ``settings.HISTORY_MINUTE_ROLLUPS_HOURS``
    are dropped: the hours hold the same. So the summary (``checkpoint_stats.overview``) adds
    one rollup row to a bounded set of detailed rows, whatever the run's age.

Events:
    the audit trail for good (``status``, ``savepoint``, ``rescale``, ``task_failed``,
    ``finished``, a savepoint's ``checkpoint`` events, any type a feature adds), the failed
    checkpoints' events up to the same cap, and everything of the last
    ``settings.HISTORY_EVENTS_SECONDS`` and the newest ``settings.HISTORY_RECENT_EVENTS`` events
    (what a reconnecting page catches up with). Older ``metrics``, ``savepoint_progress`` and
    plain checkpoints' ``checkpoint`` events age out: a consecutive range of them becomes one
    ``folded`` event at the range's last seq, ``{"first_seq", "last_seq", "count", "types":
    {type: count}}``, so a page catching up ``after=<seq>`` sees no hole it cannot explain
    (``studio.realtime.consumers``, ``GET /api/runs/<id>/events``). Adjacent ranges merge into
    one marker.

Work is done in small transactions (``BATCH`` rows), oldest first, so a run's driver, which
writes its events meanwhile, never waits long for the database (SQLite has one writer).
"""
from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.db.models.fields.json import KT
from django.utils import timezone

from studio.models import (
    TERMINAL_STATUSES, Checkpoint, CheckpointRollup, RollupResolution, Run, RunEvent, RunHistory, now_ms,
)
from studio.runs.rollups import Figure, figures_from_json, figures_to_json

logger = logging.getLogger(__name__)

SUMMARISED = ("end_to_end_duration", "state_size", "alignment_duration", "persisted_data")
"""The figures the summary shows, rolled up per checkpoint (``checkpoint_stats.SUMMARISED``)."""
FOLDED = "folded"
AGING_TYPES = ("metrics", "savepoint_progress", "checkpoint")
"""Event types that age out (``checkpoint`` only for plain checkpoints that did not fail)."""
BATCH = 2000
MINUTE_MS = 60_000
HOUR_MS = 3_600_000
_ROLLUP_FIELDS = ("pk", "checkpoint_id", "status", "trigger_timestamp", "unaligned", *SUMMARISED)


@dataclass
class Folded:
    """What one pass folded, for the logs and the tests."""

    checkpoints: int = 0
    events: int = 0
    minute_rollups_dropped: int = 0
    types: Counter = field(default_factory=Counter)


def fold_run(run_id: int, now: int | None = None) -> Folded:
    """Fold whatever of run ``run_id`` is past keeping (see the module doc); return what was folded."""
    now = now_ms() if now is None else now
    folded = Folded()
    ended = Run.objects.filter(pk=run_id, status__in=TERMINAL_STATUSES).exists()
    folded.checkpoints = fold_checkpoints(run_id)
    folded.minute_rollups_dropped = drop_old_minute_rollups(run_id, now)
    fold_events(run_id, now, folded, ended=ended)
    RunHistory.objects.filter(run_id=run_id).update(folded_at=timezone.now())
    return folded


# -- checkpoints ---------------------------------------------------------------------------------------------
def foldable_checkpoints(run_id: int):
    """The run's checkpoint rows past keeping, oldest first (a queryset)."""
    plain = Checkpoint.objects.filter(run_id=run_id, kind="checkpoint")
    newest = list(plain.order_by("-checkpoint_id").values_list("checkpoint_id", flat=True)
                  [settings.HISTORY_DETAILED_CHECKPOINTS - 1:settings.HISTORY_DETAILED_CHECKPOINTS])
    if not newest:
        return Checkpoint.objects.none()
    below = newest[0]
    failed_kept = list(plain.filter(status="FAILED").order_by("-checkpoint_id").values_list("checkpoint_id", flat=True)
                       [settings.HISTORY_FAILED_CHECKPOINTS - 1:settings.HISTORY_FAILED_CHECKPOINTS])
    failed_below = min(below, failed_kept[0]) if failed_kept else 0
    completed = plain.filter(status="COMPLETED", checkpoint_id__lt=below, discarded=True)
    failed = plain.filter(status="FAILED", checkpoint_id__lt=failed_below)
    restored_from = Run.objects.filter(restored_from__run_id=run_id).values("restored_from_id")
    return (completed | failed).exclude(pk__in=restored_from).order_by("checkpoint_id")


def fold_checkpoints(run_id: int) -> int:
    """Fold the run's checkpoints past keeping into its rollups, ``BATCH`` at a time; return how many."""
    total = 0
    while True:
        with transaction.atomic():
            _locked_history(run_id)  # one folder per run at a time: several workers may pass at once
            rows = list(foldable_checkpoints(run_id).values_list(*_ROLLUP_FIELDS)[:BATCH])
            if not rows:
                return total
            _add_to_rollups(run_id, rows)
            # a QuerySet delete: no per-row save hooks; the run's answers change, so its token too
            Checkpoint.objects.filter(pk__in=[row[0] for row in rows]).delete()
        total += len(rows)
        if len(rows) < BATCH:
            return total


def rollup_of(rows) -> dict:
    """The rollup of checkpoint rows (``values_list(*_ROLLUP_FIELDS)`` tuples) as the model's fields."""
    entry = {"completed": 0, "failed": 0, "unaligned": 0, "first_checkpoint_id": None, "last_checkpoint_id": None,
             "first_trigger_timestamp": None, "last_trigger_timestamp": None,
             "figures": {name: Figure() for name in SUMMARISED}}
    for _, checkpoint_id, status, trigger, unaligned, *values in rows:
        _widen(entry, checkpoint_id, trigger)
        if status == "FAILED":
            entry["failed"] += 1
            continue
        entry["completed"] += 1
        entry["unaligned"] += 1 if unaligned else 0
        for name, value in zip(SUMMARISED, values):
            entry["figures"][name].add(value)
    return entry


def _widen(entry: dict, checkpoint_id: int, trigger: int) -> None:
    for key, value, pick in (("first_checkpoint_id", checkpoint_id, min), ("last_checkpoint_id", checkpoint_id, max),
                             ("first_trigger_timestamp", trigger, min), ("last_trigger_timestamp", trigger, max)):
        entry[key] = value if entry[key] is None else pick(entry[key], value)


def _add_to_rollups(run_id: int, rows: list[tuple]) -> None:
    """Add the rows to their minute's, their hour's and the run's rollup (created when missing)."""
    buckets: dict[tuple[str, int], list[tuple]] = {}
    for row in rows:
        trigger = row[3]
        buckets.setdefault((RollupResolution.MINUTE, trigger - trigger % MINUTE_MS), []).append(row)
        buckets.setdefault((RollupResolution.HOUR, trigger - trigger % HOUR_MS), []).append(row)
        buckets.setdefault((RollupResolution.RUN, 0), []).append(row)
    existing = {(rollup.resolution, rollup.bucket_start): rollup for rollup in CheckpointRollup.objects.select_for_update()
                .filter(run_id=run_id, resolution__in=[key[0] for key in buckets],
                        bucket_start__in=[key[1] for key in buckets])}
    for key, bucket_rows in buckets.items():
        entry = rollup_of(bucket_rows)
        rollup = existing.get(key)
        if rollup is None:
            CheckpointRollup.objects.create(run_id=run_id, resolution=key[0], bucket_start=key[1],
                                            **{**entry, "figures": figures_to_json(entry["figures"])})
            continue
        merge_into(rollup, entry)
        rollup.save()


def merge_into(rollup: CheckpointRollup, entry: dict) -> None:
    """Add ``entry`` (a :func:`rollup_of`) into the ``rollup`` row (not saved)."""
    for name in ("completed", "failed", "unaligned"):
        setattr(rollup, name, getattr(rollup, name) + entry[name])
    rollup.first_checkpoint_id = min(rollup.first_checkpoint_id, entry["first_checkpoint_id"])
    rollup.last_checkpoint_id = max(rollup.last_checkpoint_id, entry["last_checkpoint_id"])
    rollup.first_trigger_timestamp = min(rollup.first_trigger_timestamp, entry["first_trigger_timestamp"])
    rollup.last_trigger_timestamp = max(rollup.last_trigger_timestamp, entry["last_trigger_timestamp"])
    figures = figures_from_json(rollup.figures, SUMMARISED)
    for name in SUMMARISED:
        figures[name].merge(entry["figures"][name])
    rollup.figures = figures_to_json(figures)


def drop_old_minute_rollups(run_id: int, now: int) -> int:
    """Minute rollups older than ``settings.HISTORY_MINUTE_ROLLUPS_HOURS`` go: their hours hold the same."""
    cutoff = now - int(settings.HISTORY_MINUTE_ROLLUPS_HOURS * HOUR_MS)
    deleted, _ = CheckpointRollup.objects.filter(run_id=run_id, resolution=RollupResolution.MINUTE,
                                                 bucket_start__lt=cutoff - cutoff % HOUR_MS).delete()
    return deleted


def run_rollup(run_id: int) -> CheckpointRollup | None:
    """The rollup of every checkpoint of the run folded so far, or None."""
    return CheckpointRollup.objects.filter(run_id=run_id, resolution=RollupResolution.RUN).first()


# -- events ----------------------------------------------------------------------------------------------------
def fold_events(run_id: int, now: int, folded: Folded | None = None, *, ended: bool = False) -> Folded:
    """Fold the run's events past keeping into ``folded`` markers (see the module doc). Of a run that
    ``ended``, the newest ``HISTORY_RECENT_EVENTS`` are kept, however young."""
    folded = folded or Folded()
    history = _locked_history(run_id)
    last = RunEvent.objects.filter(run_id=run_id).aggregate(last=Max("seq"))["last"] or 0
    cutoff = last - settings.HISTORY_RECENT_EVENTS
    young = None if ended else (
        RunEvent.objects.filter(run_id=run_id, seq__gt=history.events_through, seq__lte=cutoff,
                                ts__gt=now - int(settings.HISTORY_EVENTS_SECONDS * 1000))
        .order_by("seq").values_list("seq", flat=True).first())
    if young is not None:
        cutoff = young - 1
    while True:
        with transaction.atomic():
            history = _locked_history(run_id)  # read again under the lock: another worker may have folded
            if history.events_through >= cutoff:
                break
            rows = list(RunEvent.objects.filter(run_id=run_id, seq__gt=history.events_through, seq__lte=cutoff)
                        .order_by("seq").values_list("seq", "type", KT("data__event"), KT("data__kind"))[:BATCH])
            if not rows:
                history.events_through = cutoff
                history.save(update_fields=["events_through"])
                break
            gone = {}
            for seq, event_type, event, kind in rows:
                if event_type not in AGING_TYPES or event_type == FOLDED:
                    continue
                if event_type == "checkpoint" and (kind or "checkpoint") != "checkpoint":
                    continue  # a savepoint's: the audit trail
                if event_type == "checkpoint" and event == "failed":
                    history.failed_event_seqs.append(seq)
                    continue
                gone[seq] = event_type
            excess = len(history.failed_event_seqs) - settings.HISTORY_FAILED_CHECKPOINTS
            if excess > 0:
                gone.update((seq, "checkpoint") for seq in history.failed_event_seqs[:excess])
                history.failed_event_seqs = history.failed_event_seqs[excess:]
            fold_event_seqs(run_id, gone)
            history.events_through = rows[-1][0] if len(rows) == BATCH else cutoff
            history.folded_at = timezone.now()
            history.save(update_fields=["events_through", "failed_event_seqs", "folded_at"])
        folded.events += len(gone)
        folded.types.update(gone.values())
    return folded


def _locked_history(run_id: int) -> RunHistory:
    """The run's ``RunHistory`` row (created when missing), locked until the transaction ends when there is one."""
    history, _ = RunHistory.objects.get_or_create(run_id=run_id)
    if not transaction.get_connection().in_atomic_block:
        return history
    return RunHistory.objects.select_for_update().get(run_id=run_id)


def fold_event_seqs(run_id: int, gone: dict[int, str]) -> None:
    """Delete the events at the seqs of ``gone`` (seq -> type) and account for them in ``folded`` markers:
    one per maximal range of consecutive missing seqs, at its last seq, merged with the markers around it.
    Call inside a transaction."""
    if not gone:
        return
    RunEvent.objects.filter(run_id=run_id, seq__in=list(gone)).delete()
    for first, last in _ranges(sorted(gone)):
        types = Counter(gone[seq] for seq in range(first, last + 1))
        before = RunEvent.objects.filter(run_id=run_id, type=FOLDED, seq=first - 1).first()
        if before is not None:  # a range ending just before: its marker's seq joins this range
            first = before.data["first_seq"]
            types.update(before.data["types"])
            before.delete()
        after = (RunEvent.objects.filter(run_id=run_id, type=FOLDED, seq__gt=last).order_by("seq").first())
        if after is not None and after.data.get("first_seq") == last + 1:  # a range starting just after
            types.update(after.data["types"])
            after.data = _marker(first, after.seq, types)
            after.save(update_fields=["data"])
            continue
        RunEvent.objects.create(run_id=run_id, seq=last, type=FOLDED, ts=now_ms(), data=_marker(first, last, types))


def _marker(first: int, last: int, types: Counter) -> dict:
    return {"first_seq": first, "last_seq": last, "count": sum(types.values()), "types": dict(sorted(types.items()))}


def _ranges(seqs: list[int]) -> list[tuple[int, int]]:
    """Maximal ranges of consecutive numbers.

    >>> _ranges([1, 2, 3, 7, 9, 10])
    [(1, 3), (7, 7), (9, 10)]
    """
    ranges: list[tuple[int, int]] = []
    for seq in seqs:
        if ranges and ranges[-1][1] == seq - 1:
            ranges[-1] = (ranges[-1][0], seq)
        else:
            ranges.append((seq, seq))
    return ranges
