"""A run's bounded history (``studio.runs.history``): rollups say what the rows they replace said, savepoints
and failures stay, and a page catching up after retention sees every seq accounted for. On SQLite here, and
the same tests again on PostgreSQL (``test_the_same_on_postgresql``)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.db import connections
from django.test import override_settings
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from studio.asgi import application
from studio.models import ApiToken, Checkpoint, CheckpointRollup, Pipeline, PipelineVersion, Run, RunEvent
from studio.runs import checkpoint_stats
from studio.runs.events import record_event, set_status
from studio.runs.history import (
    HOUR_MS, MINUTE_MS, SUMMARISED, fold_checkpoints, fold_events, fold_run, run_rollup,
)
from studio.runs.rollups import RELATIVE_ACCURACY
from tests.support import simple_pipeline, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
START = 1_700_000_000_000


@pytest.fixture
def history_settings(settings):
    settings.HISTORY_DETAILED_CHECKPOINTS = 5
    settings.HISTORY_FAILED_CHECKPOINTS = 3
    settings.HISTORY_RECENT_EVENTS = 4
    settings.HISTORY_EVENTS_SECONDS = 0
    return settings


def new_run(user) -> Run:
    pipeline = Pipeline.objects.create(name="history", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    return Run.objects.create(pipeline=pipeline, version=version, created_by=user)


def checkpoint_row(run, checkpoint_id: int, trigger: int, *, status="COMPLETED", kind="checkpoint", duration=40,
                   size=4096, alignment=1.5, persisted=0, discarded=True) -> Checkpoint:
    return Checkpoint(run=run, checkpoint_id=checkpoint_id, kind=kind, status=status, trigger_timestamp=trigger,
                      end_to_end_duration=duration if status == "COMPLETED" else None, state_size=size,
                      alignment_duration=alignment, persisted_data=persisted, discarded=discarded,
                      num_subtasks=2, num_acknowledged_subtasks=2, external_path=f"/x/chk-{checkpoint_id}",
                      subtasks=[{"index": 0, "vertex": "v", "status": "completed"}])


def nearest_rank(values: list, percent: float):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


def close_enough(estimate, exact) -> bool:
    return abs(estimate - exact) <= abs(exact) * RELATIVE_ACCURACY + 1e-9


checkpoint_rows = st.lists(st.tuples(
    st.integers(min_value=0, max_value=5 * HOUR_MS // 1000),  # seconds after START
    st.booleans(),  # failed
    st.integers(min_value=0, max_value=600_000),  # end-to-end duration ms
    st.integers(min_value=0, max_value=10 ** 9),  # state size
    st.one_of(st.none(), st.floats(min_value=0, max_value=10_000, allow_nan=False)),  # alignment
    st.integers(min_value=0, max_value=10 ** 6),  # persisted data
), min_size=1, max_size=60)


# found by this property on 2026-11-29: a value of 1 (1 ms, 1 byte) shared the bucket of zeros, p90 of [0, 0, 1] read 0
@example(rows=[(0, False, 0, 0, 0.0, 0), (1, False, 0, 0, 0.0, 0), (2, False, 1, 1, 1.0, 1)], kept=1, passes=1)
@given(rows=checkpoint_rows, kept=st.integers(min_value=1, max_value=10), passes=st.integers(min_value=1, max_value=3))
@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_rollups_say_what_the_rows_they_replace_said(user, rows, kept, passes):
    """Counts, min, max and avg over every checkpoint are exact after folding; percentiles within the stated
    accuracy; per minute and per hour the timeline counts what the rows counted.

    Settings are overridden per example and undone at its end (``override_settings``), not through
    pytest-django's ``settings`` fixture: that one lives for the whole test, so every example's overrides
    nested on the last ones until a shrinking run (hundreds of examples) hit Python's recursion limit
    reading any setting, and that RecursionError hid what the failing example had found."""
    with override_settings(HISTORY_DETAILED_CHECKPOINTS=kept, HISTORY_FAILED_CHECKPOINTS=1):
        run = new_run(user)
        rows = sorted(rows, key=lambda row: row[0])
        objects = [checkpoint_row(run, number, START + seconds * 1000, status="FAILED" if failed else "COMPLETED",
                                  duration=duration, size=size, alignment=alignment, persisted=persisted)
                   for number, (seconds, failed, duration, size, alignment, persisted) in enumerate(rows, start=1)]
        Checkpoint.objects.bulk_create(objects)
        completed = [row for row in objects if row.status == "COMPLETED"]
        chunk = max(1, len(objects) // passes)
        for index in range(passes):  # folded in several passes, as the loop does while the run goes on
            last_pass = index == passes - 1
            detailed = kept if last_pass else max(kept, len(objects) - chunk * (index + 1))
            with override_settings(HISTORY_DETAILED_CHECKPOINTS=detailed):
                fold_checkpoints(run.id)

        overview = checkpoint_stats.overview(Run.objects.get(pk=run.id))
        assert overview["counts"]["total"] == len(objects)
        assert overview["counts"]["completed"] == len(completed)
        assert overview["counts"]["failed"] == len(objects) - len(completed)
        assert Checkpoint.objects.filter(run=run, status="COMPLETED").count() <= kept
        fields = ("end_to_end_duration", "state_size", "alignment_duration", "persisted_data")
        for name, field in zip(SUMMARISED, fields):
            values = [getattr(row, field) for row in completed if getattr(row, field) is not None]
            summary = overview["summary"][name]
            if not values:
                assert summary["min"] is None and summary["max"] is None
                continue
            assert (summary["min"], summary["max"]) == (min(values), max(values)), name
            assert summary["avg"] == pytest.approx(sum(values) / len(values), rel=1e-9), name
            for percent in (50, 90, 99):
                assert close_enough(summary[f"p{percent}"], nearest_rank(values, percent)), (name, percent)
        if overview["folded"] is not None:
            assert overview["folded"]["completed"] + overview["folded"]["failed"] == \
                len(objects) - Checkpoint.objects.filter(run=run).count()

        for resolution, width in (("minute", MINUTE_MS), ("hour", HOUR_MS)):
            expected: dict[int, list] = {}
            for row in objects:
                expected.setdefault(row.trigger_timestamp - row.trigger_timestamp % width, []).append(row)
            answer = checkpoint_stats.timeline(run, resolution, limit=1000)
            assert [bucket["start"] for bucket in answer["buckets"]] == sorted(expected, reverse=True)
            for bucket in answer["buckets"]:
                rows_there = expected[bucket["start"]]
                assert bucket["completed"] == sum(row.status == "COMPLETED" for row in rows_there)
                assert bucket["failed"] == sum(row.status == "FAILED" for row in rows_there)
                assert (bucket["first_id"], bucket["last_id"]) == (min(r.checkpoint_id for r in rows_there),
                                                                  max(r.checkpoint_id for r in rows_there))
                durations = [row.end_to_end_duration for row in rows_there if row.status == "COMPLETED"]
                if durations:
                    assert bucket["summary"]["end_to_end_duration"]["max"] == max(durations)
                    assert close_enough(bucket["summary"]["end_to_end_duration"]["p50"], nearest_rank(durations, 50))


def test_savepoints_failures_restorable_and_restored_from_checkpoints_are_never_folded(user, history_settings):
    run = new_run(user)
    rows = []
    for number in range(1, 41):
        kind = "savepoint" if number % 10 == 0 else "checkpoint"
        status = "FAILED" if number % 7 == 0 else "COMPLETED"
        rows.append(checkpoint_row(run, number, START + number * 1000, kind=kind, status=status,
                                   discarded=number not in (3, 38, 39, 40)))
    Checkpoint.objects.bulk_create(rows)
    restored = new_run(user)
    restored.restored_from = Checkpoint.objects.get(run=run, checkpoint_id=4)
    restored.save()

    fold_run(run.id)

    left = set(Checkpoint.objects.filter(run=run).values_list("checkpoint_id", flat=True))
    assert {10, 20, 30, 40} <= left  # every savepoint
    assert {35, 36, 37, 38, 39, 40} <= left  # the newest five of all, and more
    assert {21, 28, 35} <= left and 14 not in left and 7 not in left  # the newest three failed ones
    assert 3 in left  # its files are still there: a restart may use it
    assert 4 in left  # a run was restored from it
    assert Run.objects.get(pk=restored.id).restored_from.checkpoint_id == 4
    overview = checkpoint_stats.overview(run)
    assert overview["counts"]["total"] == 40
    assert overview["latest"]["savepoint"]["id"] == 40
    assert overview["latest"]["failed"]["id"] == 35
    assert overview["folded"]["failed"] == 2 and overview["summary_exact"] is False


def test_two_workers_folding_at_once_count_each_checkpoint_once(user, history_settings):
    """Every Celery worker runs the retention loop: two passes over one run at once fold each row once."""
    run = new_run(user)
    Checkpoint.objects.bulk_create([checkpoint_row(run, number, START + number * 1000) for number in range(1, 301)])
    barrier = threading.Barrier(2)
    errors = []

    def fold():
        try:
            barrier.wait(10)
            fold_checkpoints(run.id)
        except Exception as error:  # reported below: an assertion in a thread would go unseen
            errors.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=fold) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not errors
    assert run_rollup(run.id).completed == 295
    assert checkpoint_stats.overview(run)["counts"]["completed"] == 300


def record_many(run_id: int) -> None:
    """A run's life: status changes, metrics and checkpoint events, a savepoint, a failure, a failed checkpoint."""
    for status in ("CREATED", "SCHEDULING", "RUNNING"):
        set_status(run_id, status)
    for number in range(1, 31):
        record_event(run_id, "metrics", {"vertices": {"v": {"records_out": number}}})
        record_event(run_id, "checkpoint", {"event": "triggered", "id": number, "kind": "checkpoint",
                                            "trigger_timestamp": START + number})
        outcome = "failed" if number % 6 == 0 else "completed"
        record_event(run_id, "checkpoint", {"event": outcome, "id": number, "kind": "checkpoint",
                                            "trigger_timestamp": START + number, "end_to_end_duration": 5})
        if number == 12:
            record_event(run_id, "savepoint", {"request_id": "r1", "status": "IN_PROGRESS", "kind": "savepoint"})
            record_event(run_id, "checkpoint", {"event": "completed", "id": 100, "kind": "savepoint",
                                                "trigger_timestamp": START + number})
        if number == 20:
            record_event(run_id, "task_failed", {"task": "v#0", "region": 0, "attempt": 0, "error": "boom"})
            set_status(run_id, "RESTARTING", "boom")
            set_status(run_id, "RUNNING")


def catch_up(run_id: int, after: int) -> list[dict]:
    events = RunEvent.objects.filter(run_id=run_id, seq__gt=after).order_by("seq")
    return [{"seq": event.seq, "type": event.type, "data": event.data} for event in events]


def assert_accounted(after: int, events: list[dict], last: int) -> None:
    """Every seq after ``after`` up to ``last`` is an event or inside a folded event's range, in order."""
    expected = after + 1
    for event in events:
        first = event["data"]["first_seq"] if event["type"] == "folded" else event["seq"]
        assert first <= expected <= event["seq"], (expected, event)
        if event["type"] == "folded":
            assert event["data"]["count"] == event["seq"] - event["data"]["first_seq"] + 1
        expected = event["seq"] + 1
    assert expected == last + 1


def test_events_fold_into_markers_that_account_for_every_seq(user, history_settings):
    run = new_run(user)
    record_many(run.id)
    last = RunEvent.objects.filter(run=run).order_by("-seq").first().seq
    audit_before = [(event.seq, event.type) for event in RunEvent.objects.filter(run=run).exclude(
        type__in=("metrics", "checkpoint", "savepoint_progress"))]

    folded = fold_events(run.id, now=START * 2)
    fold_events(run.id, now=START * 2)  # a second pass finds nothing more

    left = list(RunEvent.objects.filter(run=run).order_by("seq"))
    assert folded.events > 0 and folded.types["metrics"] == 29  # the 30th is among the newest four
    assert [(event.seq, event.type) for event in left if event.type not in ("metrics", "checkpoint", "folded")] == \
        audit_before  # status changes, the savepoint, the failure, the restart: all there
    assert any(event.type == "checkpoint" and event.data["id"] == 100 for event in left)  # the savepoint's
    failed = [event.data["id"] for event in left if event.type == "checkpoint" and event.data.get("event") == "failed"]
    # the newest three of those that aged (6 went), and 30 among the newest events anyway
    assert failed == [12, 18, 24, 30]
    for after in range(0, last + 1):  # wherever a page left off, what it catches up with has no hole
        assert_accounted(after, catch_up(run.id, after), last)
    markers = [event for event in left if event.type == "folded"]
    assert sum(marker.data["count"] for marker in markers) == last - len(left) + len(markers)


def test_adjacent_folds_merge_into_one_marker(user, history_settings):
    run = new_run(user)
    set_status(run.id, "CREATED")
    for number in range(20):
        record_event(run.id, "metrics", {"vertices": {}, "n": number})
    history_settings.HISTORY_RECENT_EVENTS = 12
    fold_events(run.id, now=START * 2)
    history_settings.HISTORY_RECENT_EVENTS = 2
    fold_events(run.id, now=START * 2)
    markers = list(RunEvent.objects.filter(run=run, type="folded"))
    assert [(marker.data["first_seq"], marker.seq, marker.data["types"]) for marker in markers] == \
        [(2, 19, {"metrics": 18})]
    assert_accounted(0, catch_up(run.id, 0), 21)


def test_a_reconnecting_socket_after_retention_is_told_what_was_folded(user, history_settings):
    run = new_run(user)
    record_many(run.id)
    last = RunEvent.objects.filter(run=run).order_by("-seq").first().seq
    fold_events(run.id, now=START * 2)
    token = ApiToken.issue(user, "ws")[1]

    async def received(after: int) -> list[dict]:
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run.id}/?after={after}",
                                             headers=ws_headers(token))
        connected, _ = await communicator.connect(timeout=10)
        assert connected
        events = []
        while not await communicator.receive_nothing(timeout=0.5):
            events.append(json.loads(await communicator.receive_from(timeout=5)))
        await communicator.disconnect()
        return events

    for after in (0, 5, 40, last - 3):
        events = async_to_sync(received)(after)
        assert_accounted(after, events, last)
    assert any(event["type"] == "folded" for event in async_to_sync(received)(5))


def test_the_events_endpoint_after_retention_accounts_for_every_seq(user, api, history_settings):
    run = new_run(user)
    record_many(run.id)
    last = RunEvent.objects.filter(run=run).order_by("-seq").first().seq
    fold_run(run.id, now=START * 2)
    for after in (0, 9, 33):
        answer = api.get(f"/api/runs/{run.id}/events?after={after}")
        assert answer.status_code == 200
        assert_accounted(after, answer.json(), last)


def test_the_timeline_endpoint_pages_and_refuses_bad_input(user, api, other_api, history_settings):
    run = new_run(user)
    Checkpoint.objects.bulk_create([checkpoint_row(run, number, START + number * 20_000) for number in range(1, 31)])
    fold_run(run.id, now=START + HOUR_MS)
    assert CheckpointRollup.objects.filter(run=run, resolution="minute").exists()
    first = api.get(f"/api/runs/{run.id}/checkpoints/timeline?limit=4").json()
    assert len(first["buckets"]) == 4 and first["next_before"] == first["buckets"][-1]["start"]
    second = api.get(f"/api/runs/{run.id}/checkpoints/timeline?limit=100&before={first['next_before']}").json()
    assert second["next_before"] is None
    starts = [bucket["start"] for bucket in first["buckets"] + second["buckets"]]
    assert starts == sorted(set(starts), reverse=True)
    assert sum(bucket["completed"] for bucket in first["buckets"] + second["buckets"]) == 30
    hours = api.get(f"/api/runs/{run.id}/checkpoints/timeline?resolution=hour").json()
    assert sum(bucket["completed"] for bucket in hours["buckets"]) == 30
    bad = api.get(f"/api/runs/{run.id}/checkpoints/timeline?resolution=week")
    assert bad.status_code == 400 and "resolution" in bad.json()["detail"]
    assert api.get(f"/api/runs/{run.id}/checkpoints/timeline?limit=0").status_code == 400
    assert other_api.get(f"/api/runs/{run.id}/checkpoints/timeline").status_code == 404
    overview = api.get(f"/api/runs/{run.id}/checkpoints").json()
    assert overview["counts"]["completed"] == 30 and overview["folded"]["completed"] == 25

    fold_run(run.id, now=START + 3 * 24 * HOUR_MS)  # days later the minutes go, the hours stay
    assert not CheckpointRollup.objects.filter(run=run, resolution="minute").exists()
    hours = api.get(f"/api/runs/{run.id}/checkpoints/timeline?resolution=hour").json()
    assert sum(bucket["completed"] for bucket in hours["buckets"]) == 30


def test_the_same_on_postgresql(postgres_server, tmp_path):
    """Every test above, again with the studio's database on PostgreSQL (a server the tests started)."""
    env = {**os.environ, "DATABASE_URL": postgres_server.dsn("postgres"), "STUDIO_DATA_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", str(Path(__file__)),
                             "-k", "not test_the_same_on_postgresql"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout.splitlines()[-1]
