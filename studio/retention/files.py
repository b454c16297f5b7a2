"""Files a studio leaves behind, swept; and each run's disk use, measured.

Every path deleted here is checked at the moment of use: it must resolve (symbolic links
followed) inside the root it belongs to (the checkpoint root, the run's own checkpoint
directory, the run log directory, the workspace root, the temporary directory), whatever
the database or the directory listing says. Savepoints are never deleted here.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from studio.models import TERMINAL_STATUSES, Checkpoint, Pipeline, Run
from studio.retention.models import RunDiskUsage
from studio.runs.events import record_discarded

logger = logging.getLogger(__name__)

RUN_LOG = re.compile(r"^run-(\d+)\.log$")
WARM_DRIVER_LOG = re.compile(r"^warm-driver-[0-9a-f]+\.log$")
CHECKPOINT_DIR = re.compile(r"^chk-\d+$")
PIPELINE_WORKSPACE = re.compile(r"^pipeline-(\d+)$")
DRAFT_WORKSPACE = re.compile(r"^draft-user-(\d+)$")
PREVIEW_PREFIX = "studio-preview-"
RUNS_PER_PASS = 50


def inside(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether ``path`` resolves (links followed) strictly inside ``root``."""
    try:
        resolved, base = os.path.realpath(path), os.path.realpath(root)
    except (OSError, ValueError):
        return False
    return resolved != base and resolved.startswith(base.rstrip(os.sep) + os.sep)


def local_path(location: str) -> str | None:
    """The local path of a checkpoint location (a path or ``file://``), or None for other filesystems."""
    if location.startswith("file://"):
        return location[len("file://"):]
    return location if location.startswith("/") else None


def tree_bytes(path: str | os.PathLike) -> int:
    """Bytes of the regular files under ``path`` (links not followed)."""
    total = 0
    stack = [str(path)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def run_checkpoint_root(run: Run) -> str | None:
    """The run's checkpoint directory when it lies inside the studio's checkpoint root, else None."""
    if not run.checkpoint_dir or not inside(run.checkpoint_dir, settings.CHECKPOINT_ROOT):
        return None
    return run.checkpoint_dir


def measure(run: Run, now: datetime | None = None) -> RunDiskUsage:
    """Measure and store the bytes ``run`` holds: retained checkpoints (its checkpoint directory, its
    savepoints left out), savepoints (wherever they were written, local ones), and its log."""
    now = now or timezone.now()
    savepoint_dirs = set()
    for location in (Checkpoint.objects.filter(run=run, status="COMPLETED", discarded=False)
                     .exclude(kind="checkpoint").values_list("external_path", flat=True)):
        path = local_path(location or "")
        if path and os.path.isdir(path):
            savepoint_dirs.add(os.path.realpath(path))
    savepoint_bytes = sum(tree_bytes(path) for path in savepoint_dirs)
    checkpoint_bytes = checkpoint_count = 0
    root = run_checkpoint_root(run)
    if root and os.path.isdir(root):
        inner = sum(tree_bytes(path) for path in savepoint_dirs if inside(path, root))
        checkpoint_bytes = max(0, tree_bytes(root) - inner)
        checkpoint_count = sum(1 for entry in os.scandir(root) if CHECKPOINT_DIR.match(entry.name) and entry.is_dir())
    log = Path(settings.RUN_LOG_DIR) / f"run-{run.pk}.log"
    log_bytes = log.stat().st_size if log.is_file() else 0
    usage, _ = RunDiskUsage.objects.update_or_create(run=run, defaults={
        "checkpoint_bytes": checkpoint_bytes, "checkpoint_count": checkpoint_count,
        "savepoint_bytes": savepoint_bytes, "savepoint_count": len(savepoint_dirs), "log_bytes": log_bytes,
        "measured_at": now})
    return usage


def measure_active(now: datetime | None = None) -> int:
    """Measure the runs that have not ended (and ended ones never measured); return how many."""
    runs = Run.objects.filter(Q(disk_usage__isnull=True) | ~Q(status__in=TERMINAL_STATUSES)).order_by("-id")
    count = 0
    for run in runs[:RUNS_PER_PASS]:
        measure(run, now)
        count += 1
    return count


def sweep_ended_checkpoints(now: datetime | None = None) -> int:
    """Delete the retained checkpoints of runs that ended more than ``RETENTION_ENDED_RUN_CHECKPOINTS_DAYS``
    ago (their rows say ``discarded``, a ``checkpoint`` event tells the pages), and leftover checkpoint
    directories without a completed row; never a savepoint, nor a checkpoint a running run was restored
    from. Return how many directories were deleted."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.RETENTION_ENDED_RUN_CHECKPOINTS_DAYS)
    runs = (Run.objects.filter(status__in=TERMINAL_STATUSES, ended_at__lt=cutoff)
            .filter(Q(disk_usage__isnull=True) | Q(disk_usage__checkpoints_swept_at__isnull=True)).order_by("id"))
    deleted = 0
    for run in runs[:RUNS_PER_PASS]:
        root = run_checkpoint_root(run)
        days = settings.RETENTION_ENDED_RUN_CHECKPOINTS_DAYS
        if root and os.path.isdir(root):
            deleted += _sweep_run_checkpoints(run, root, f"retention: the run ended more than {days:g} days ago")
        usage = measure(run, now)
        usage.checkpoints_swept_at = now
        usage.save(update_fields=["checkpoints_swept_at"])
    return deleted


def _sweep_run_checkpoints(run: Run, root: str, reason: str) -> int:
    from engine.api import discard_checkpoint

    deleted = 0
    in_use = Run.objects.exclude(status__in=TERMINAL_STATUSES).filter(restored_from__run=run).values("restored_from_id")
    kept = set()
    for checkpoint in Checkpoint.objects.filter(run=run, kind="checkpoint", status="COMPLETED", discarded=False):
        path = local_path(checkpoint.external_path or "")
        if checkpoint.pk in {row["restored_from_id"] for row in in_use}:
            kept.add(os.path.realpath(path)) if path else None
            continue
        if path and inside(path, root):
            try:
                discard_checkpoint(path)
                deleted += 1
            except OSError as error:
                logger.warning("run %s: could not delete checkpoint %s: %s", run.pk, checkpoint.checkpoint_id, error)
                continue
            record_discarded(checkpoint, reason)
    for entry in os.scandir(root):  # what no completed row names: attempts that never completed
        if CHECKPOINT_DIR.match(entry.name) and entry.is_dir(follow_symlinks=False) \
                and os.path.realpath(entry.path) not in kept and inside(entry.path, root):
            shutil.rmtree(entry.path, ignore_errors=True)
            deleted += 1
    return deleted


def sweep_logs(now: datetime | None = None) -> int:
    """Delete run logs of runs that ended (or were deleted) more than ``RETENTION_RUN_LOG_DAYS`` ago and warm
    drivers' logs as old; return how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.RETENTION_RUN_LOG_DAYS)
    directory = Path(settings.RUN_LOG_DIR)
    if not directory.is_dir():
        return 0
    old = {}
    for entry in os.scandir(directory):
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff.timestamp():
                old[entry.name] = entry.path
        except OSError:
            continue
    run_ids = {int(match.group(1)) for match in map(RUN_LOG.match, old) if match}
    live = set(Run.objects.filter(pk__in=run_ids).filter(Q(ended_at__isnull=True) | Q(ended_at__gte=cutoff))
               .values_list("pk", flat=True))
    removed = 0
    for name, path in old.items():
        match = RUN_LOG.match(name)
        if (match and int(match.group(1)) not in live) or WARM_DRIVER_LOG.match(name):
            if inside(path, directory):
                _unlink(path)
                removed += 1
    return removed


def sweep_orphans(now: datetime | None = None) -> int:
    """Delete workspaces nothing owns any more, untouched for ``RETENTION_ORPHAN_HOURS``: previews' temporary
    directories (a preview's worker killed at its budget leaves its own), and the workspaces of deleted
    pipelines and users. Return how many."""
    now = now or timezone.now()
    cutoff = (now - timedelta(hours=settings.RETENTION_ORPHAN_HOURS)).timestamp()
    removed = 0
    temporary = tempfile.gettempdir()
    for entry in _old_directories(temporary, cutoff):
        if entry.name.startswith(PREVIEW_PREFIX) and inside(entry.path, temporary):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    root = settings.STUDIO_WORKSPACE_ROOT
    candidates = {}
    for entry in _old_directories(root, cutoff):
        for pattern, kind in ((PIPELINE_WORKSPACE, "pipeline"), (DRAFT_WORKSPACE, "user")):
            match = pattern.match(entry.name)
            if match:
                candidates[entry.path] = (kind, int(match.group(1)))
    pipelines = set(Pipeline.objects.filter(pk__in=[key for kind, key in candidates.values() if kind == "pipeline"])
                    .values_list("pk", flat=True))
    users = set(get_user_model().objects.filter(pk__in=[key for kind, key in candidates.values() if kind == "user"])
                .values_list("pk", flat=True))
    for path, (kind, key) in candidates.items():
        if key not in (pipelines if kind == "pipeline" else users) and inside(path, root):
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def _old_directories(root: str, cutoff: float):
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                yield entry
        except OSError:
            continue


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError as error:
        logger.warning("could not delete %s: %s", path, error)
