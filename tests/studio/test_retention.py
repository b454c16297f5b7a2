"""Retention (``studio.retention``): old checkpoints of ended runs, logs and orphaned workspaces are swept
(savepoints never, nothing outside its root), each run's disk use is measured and served, and one pass folds
the histories of the runs going on."""
from __future__ import annotations

import os
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from studio.models import Checkpoint, CheckpointRollup, Pipeline, PipelineVersion, Run, RunEvent
from studio.retention import files
from studio.retention.loop import RetentionLoop, retain_once
from studio.retention.models import RunDiskUsage
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db(transaction=True)
OLD = time.time() - 40 * 24 * 3600


def new_run(user, status="RUNNING", ended_days_ago: float | None = None) -> Run:
    pipeline = Pipeline.objects.create(name="kept", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user, status=status)
    if ended_days_ago is not None:
        Run.objects.filter(pk=run.pk).update(ended_at=timezone.now() - timedelta(days=ended_days_ago))
    return Run.objects.get(pk=run.pk)


def snapshot(directory: Path, size: int = 1000) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "v-0.state").write_bytes(b"x" * size)
    (directory / "_metadata").write_text("{}")
    return directory


def with_checkpoints(run: Run, settings) -> dict[str, Path]:
    root = Path(settings.CHECKPOINT_ROOT) / f"run-{run.pk}"
    paths = {"retained": snapshot(root / "chk-7"), "leftover": snapshot(root / "chk-8"),
             "savepoint": snapshot(root / "savepoints" / "savepoint-5-abcd", 3000)}
    Run.objects.filter(pk=run.pk).update(checkpoint_dir=str(root))
    Checkpoint.objects.create(run=run, checkpoint_id=7, status="COMPLETED", trigger_timestamp=1,
                              external_path=str(paths["retained"]))
    Checkpoint.objects.create(run=run, checkpoint_id=5, kind="savepoint", status="COMPLETED", trigger_timestamp=1,
                              external_path=str(paths["savepoint"]))
    return paths


def test_checkpoints_of_long_ended_runs_go_savepoints_stay(user, settings):
    settings.RETENTION_ENDED_RUN_CHECKPOINTS_DAYS = 7
    ended = new_run(user, "FINISHED", ended_days_ago=8)
    recent = new_run(user, "FINISHED", ended_days_ago=1)
    old_paths, recent_paths = with_checkpoints(ended, settings), with_checkpoints(recent, settings)

    assert files.sweep_ended_checkpoints() == 2

    assert not old_paths["retained"].exists() and not old_paths["leftover"].exists()
    assert old_paths["savepoint"].exists()
    assert all(path.exists() for path in recent_paths.values())
    assert Checkpoint.objects.get(run=ended, checkpoint_id=7).discarded
    assert not Checkpoint.objects.get(run=ended, checkpoint_id=5).discarded
    told = RunEvent.objects.filter(run=ended, type="checkpoint").last()
    assert told.data["event"] == "discarded" and "retention" in told.data["reason"]
    usage = RunDiskUsage.objects.get(run=ended)
    assert usage.checkpoints_swept_at is not None and usage.checkpoint_bytes == 0
    assert (usage.savepoint_bytes, usage.savepoint_count) == (3002, 1)
    assert files.sweep_ended_checkpoints() == 0  # swept once


def test_nothing_outside_the_checkpoint_root_is_deleted(user, settings, tmp_path):
    settings.RETENTION_ENDED_RUN_CHECKPOINTS_DAYS = 1
    run = new_run(user, "FAILED", ended_days_ago=3)
    elsewhere = snapshot(tmp_path / "elsewhere" / "chk-1")
    Run.objects.filter(pk=run.pk).update(checkpoint_dir=str(tmp_path / "elsewhere"))
    Checkpoint.objects.create(run=run, checkpoint_id=1, status="COMPLETED", trigger_timestamp=1,
                              external_path=str(elsewhere))
    inside = Path(settings.CHECKPOINT_ROOT) / f"run-{run.pk}-link"
    inside.parent.mkdir(parents=True, exist_ok=True)
    inside.symlink_to(tmp_path / "elsewhere")  # a link inside the root to a directory outside it
    files.sweep_ended_checkpoints()
    Run.objects.filter(pk=run.pk).update(checkpoint_dir=str(inside))
    RunDiskUsage.objects.filter(run=run).update(checkpoints_swept_at=None)
    files.sweep_ended_checkpoints()
    assert elsewhere.exists() and not Checkpoint.objects.get(run=run).discarded


def test_a_checkpoint_a_running_run_was_restored_from_stays(user, settings):
    settings.RETENTION_ENDED_RUN_CHECKPOINTS_DAYS = 1
    ended = new_run(user, "CANCELED", ended_days_ago=2)
    paths = with_checkpoints(ended, settings)
    successor = new_run(user, "RUNNING")
    successor.restored_from = Checkpoint.objects.get(run=ended, checkpoint_id=7)
    successor.save()
    files.sweep_ended_checkpoints()
    assert paths["retained"].exists() and not paths["leftover"].exists()


def test_old_logs_of_ended_runs_go(user, settings, tmp_path):
    settings.RUN_LOG_DIR = tmp_path / "runs"
    settings.RUN_LOG_DIR.mkdir()
    settings.RETENTION_RUN_LOG_DAYS = 14
    ended, running = new_run(user, "FINISHED", ended_days_ago=30), new_run(user, "RUNNING")
    logs = {name: settings.RUN_LOG_DIR / name for name in
            (f"run-{ended.pk}.log", f"run-{running.pk}.log", "run-999999.log", "warm-driver-abc123.log",
             "notes.txt")}
    for path in logs.values():
        path.write_text("log")
        os.utime(path, (OLD, OLD))
    fresh = settings.RUN_LOG_DIR / "warm-driver-fff.log"
    fresh.write_text("new")
    assert files.sweep_logs() == 3
    assert sorted(path.name for path in settings.RUN_LOG_DIR.iterdir()) == sorted(
        ["notes.txt", f"run-{running.pk}.log", "warm-driver-fff.log"])


def test_orphaned_workspaces_go(user, settings, tmp_path):
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    kept_pipeline = Pipeline.objects.create(name="alive", owner=user)
    root = Path(settings.STUDIO_WORKSPACE_ROOT)
    directories = {name: root / name for name in (f"pipeline-{kept_pipeline.pk}", "pipeline-987654",
                                                  f"draft-user-{user.pk}", "draft-user-987654", "other")}
    preview = Path(tempfile.mkdtemp(prefix=files.PREVIEW_PREFIX))
    young_preview = Path(tempfile.mkdtemp(prefix=files.PREVIEW_PREFIX))
    for path in [*directories.values(), preview]:
        path.mkdir(parents=True, exist_ok=True)
        (path / "data.json").write_text("{}")
        os.utime(path, (OLD, OLD))
    try:
        assert files.sweep_orphans() == 3
        assert not preview.exists() and young_preview.exists()
        assert sorted(path.name for path in root.iterdir()) == sorted(
            [f"pipeline-{kept_pipeline.pk}", f"draft-user-{user.pk}", "other"])
    finally:
        young_preview.rmdir()


def test_disk_use_is_served_to_whoever_may_view_the_run(user, api, other_api, settings):
    run = new_run(user, "RUNNING")
    with_checkpoints(run, settings)
    Path(settings.RUN_LOG_DIR).mkdir(parents=True, exist_ok=True)
    (Path(settings.RUN_LOG_DIR) / f"run-{run.pk}.log").write_text("0123456789")
    answer = api.get(f"/api/runs/{run.pk}/disk")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["checkpoint_count"], body["checkpoint_bytes"]) == (2, 2 * 1002)
    assert (body["savepoint_count"], body["savepoint_bytes"], body["log_bytes"]) == (1, 3002, 10)
    assert body["total_bytes"] == 2 * 1002 + 3002 + 10
    assert other_api.get(f"/api/runs/{run.pk}/disk").status_code == 404
    assert api.get("/api/runs/987654/disk").status_code == 404


def test_a_pass_folds_the_runs_going_on_and_measures_them(user, settings):
    settings.HISTORY_DETAILED_CHECKPOINTS = 3
    settings.HISTORY_RECENT_EVENTS = 5
    settings.HISTORY_EVENTS_SECONDS = 0
    run = new_run(user, "CREATED")
    set_status(run.pk, "RUNNING")
    for number in range(1, 21):
        record_event(run.pk, "checkpoint", {"event": "completed", "id": number, "kind": "checkpoint",
                                            "trigger_timestamp": 1_700_000_000_000 + number, "end_to_end_duration": 9})
        record_event(run.pk, "checkpoint", {"event": "discarded", "id": number, "kind": "checkpoint",
                                            "discarded": True})
    done = retain_once(with_files=False)
    assert done.runs >= 1 and done.checkpoints == 17 and done.events > 0
    assert Checkpoint.objects.filter(run=run).count() == 3
    assert CheckpointRollup.objects.get(run=run, resolution="run").completed == 17
    assert RunDiskUsage.objects.filter(run=run).exists()
    call_command("retain", "--no-files")  # the command does the same pass: nothing left to fold
    assert Checkpoint.objects.filter(run=run).count() == 3


def test_the_loop_passes_until_stopped(settings):
    loop = RetentionLoop(interval=0.05).start()
    deadline = time.monotonic() + 20
    while loop.passes < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    loop.stop()
    assert loop.passes >= 2
