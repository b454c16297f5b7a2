"""Cached answers (``studio.api.caching``): a run, its checkpoints and a pipeline's run list.

Each staleness test caches the three answers, makes one kind of change the way the studio
makes it, and asserts the next GETs show it. The leak tests cache an answer as its owner
and ask for it as someone who may not see it. The bypass test counts the queries of a
repeated GET.
"""
import threading

import pytest
from django.contrib.auth.models import Group
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from studio.api.caching import Entry, LocalEntries
from studio.models import Checkpoint, Pipeline, PipelineShare, PipelineVersion, Run, SavepointRequest
from studio.runs.events import record_event, set_status
from studio.schedules.models import SavepointSchedule
from tests.support import simple_pipeline, token_client, wait_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipeline(user):
    pipeline = Pipeline.objects.create(name="doubler", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    return pipeline


def new_run(pipeline, user=None, **fields) -> Run:
    return Run.objects.create(pipeline=pipeline, version=pipeline.versions.get(number=1), created_by=user, **fields)


@pytest.fixture
def run(pipeline, user):
    run = new_run(pipeline, user)
    set_status(run.id, "RUNNING")
    return run


def paths(run: Run) -> dict[str, str]:
    return {"run": f"/api/runs/{run.id}", "checkpoints": f"/api/runs/{run.id}/checkpoints",
            "runs": f"/api/runs?pipeline={run.pipeline_id}"}


def get_all(api, run: Run) -> dict[str, dict]:
    """GET the three answers twice (the second from the cache when nothing changed in between)."""
    answers = {}
    for name, path in paths(run).items():
        first, second = api.get(path), api.get(path)
        assert first.status_code == second.status_code == 200, (path, first.content)
        assert first.content == second.content
        answers[name] = second.json()
    return answers


def checkpoint_event(run: Run, checkpoint_id: int, event: str, **data) -> None:
    record_event(run.id, "checkpoint", {"event": event, "id": checkpoint_id, "kind": "checkpoint",
                                        "trigger_timestamp": 1_700_000_000_000 + checkpoint_id, "num_subtasks": 2,
                                        "num_acknowledged_subtasks": 2 if event == "completed" else 0, **data})


def test_a_repeated_get_queries_only_what_authorization_needs(api, run):
    checkpoint_event(run, 1, "completed")
    SavepointRequest.objects.create(request_id="r1", run=run)
    for path in paths(run).values():
        assert api.get(path).status_code == 200  # cached now
        with CaptureQueriesContext(connection) as queries:
            answer = api.get(path)
        assert answer.status_code == 200
        tables = " ".join(query["sql"] for query in queries.captured_queries)
        assert len(queries.captured_queries) == 1, tables  # the permissions and the change tokens, together
        for body_only in ("studio_checkpoint", "studio_savepointrequest", "studio_pipelineversion", "auth_user"):
            assert body_only not in tables, (path, tables)


def test_a_new_status_shows_at_once(api, run):
    get_all(api, run)
    set_status(run.id, "FAILED", cause="boom")
    answers = get_all(api, run)
    assert (answers["run"]["status"], answers["run"]["failure_cause"]) == ("FAILED", "boom")
    assert answers["run"]["status_history"][-1]["status"] == "FAILED"
    assert answers["runs"]["results"][0]["status"] == "FAILED"


def test_checkpoint_events_show_at_once(api, run):
    get_all(api, run)
    checkpoint_event(run, 1, "triggered")
    answers = get_all(api, run)
    assert answers["checkpoints"]["counts"]["in_progress"] == 1 and answers["run"]["last_checkpoint"] is None
    checkpoint_event(run, 1, "completed")
    answers = get_all(api, run)
    assert answers["checkpoints"]["counts"]["completed"] == 1
    assert answers["run"]["last_checkpoint"]["id"] == 1
    assert answers["runs"]["results"][0]["last_checkpoint"]["id"] == 1
    checkpoint_event(run, 1, "discarded")  # a QuerySet.update() in record_event
    assert get_all(api, run)["checkpoints"]["history"][0]["discarded"] is True


def test_updates_around_save_show_at_once(api, run):
    """``QuerySet.update()``: a run's row, a savepoint's files deleted, a checkpoint deleted."""
    checkpoint_event(run, 1, "completed")
    checkpoint_event(run, 2, "completed")
    get_all(api, run)
    Run.objects.filter(pk=run.id).update(placement_reason="moved")
    assert get_all(api, run)["run"]["placement_reason"] == "moved"
    Checkpoint.objects.filter(run=run, checkpoint_id=2).update(discarded=True)
    assert get_all(api, run)["checkpoints"]["history"][0]["discarded"] is True
    Checkpoint.objects.filter(run=run, checkpoint_id=2).delete()
    answers = get_all(api, run)
    assert answers["checkpoints"]["counts"]["completed"] == 1 and answers["run"]["last_checkpoint"]["id"] == 1
    assert answers["runs"]["results"][0]["last_checkpoint"]["id"] == 1
    Checkpoint.objects.get(run=run, checkpoint_id=1).delete()
    assert get_all(api, run)["checkpoints"]["counts"]["completed"] == 0
    Checkpoint.objects.bulk_create([Checkpoint(run=run, checkpoint_id=3, status="COMPLETED", trigger_timestamp=3)])
    assert get_all(api, run)["checkpoints"]["counts"]["completed"] == 1


def tokens(run: Run) -> tuple[str, str]:
    return Run.objects.filter(pk=run.id).values_list("change_token", "pipeline__runs_change_token").get()


def test_a_heartbeat_keeps_the_cached_answers_and_a_change_renews_them(api, run):
    """A running run's driver beats every 2 s; nothing a cached answer shows changes with a beat, so the answers stay
    cached (one query: the tokens), until the run changes."""
    from studio.runs.heartbeats import Heartbeats

    Run.objects.filter(pk=run.id).update(driver_token="the-drivers")
    beats = Heartbeats(interval_s=3600)  # beaten here, not by its thread
    beats.add(run.id, "the-drivers", on_lost=lambda: None)
    before, shown = tokens(run), get_all(api, run)
    assert "heartbeat_at" not in shown["run"]
    assert beats.beat() == []
    assert Run.objects.get(pk=run.id).heartbeat_at is not None, "the beat is written: liveness reads it"
    assert tokens(run) == before
    for path in paths(run).values():
        with CaptureQueriesContext(connection) as queries:
            assert api.get(path).status_code == 200
        assert len(queries.captured_queries) == 1, path  # from the cache
    assert get_all(api, run) == shown
    set_status(run.id, "RESTARTING", driver_token="the-drivers")  # something the answers show
    assert tokens(run)[0] != before[0] and tokens(run)[1] != before[1]
    assert beats.beat() == []
    answers = get_all(api, run)
    assert answers["run"]["status"] == answers["runs"]["results"][0]["status"] == "RESTARTING"
    assert answers["run"]["restarts"] == 1


def test_savepoint_requests_show_at_once(api, user, run):
    get_all(api, run)
    request = SavepointRequest.objects.create(request_id="r1", run=run)
    assert [r["request_id"] for r in get_all(api, run)["run"]["savepoint_requests"]] == ["r1"]
    set_status(run.id, "CANCELED")  # fails the open request with a QuerySet.update()
    assert get_all(api, run)["run"]["savepoint_requests"][0]["status"] == "FAILED"
    schedule = SavepointSchedule.objects.create(run=run, interval_s=60, created_by=user)
    request.schedule = schedule
    request.save()
    assert get_all(api, run)["run"]["savepoint_requests"][0]["schedule"] == schedule.id
    schedule.delete()  # SET_NULL on the request
    assert get_all(api, run)["run"]["savepoint_requests"][0]["schedule"] is None
    request.delete()
    assert get_all(api, run)["run"]["savepoint_requests"] == []


def test_new_and_deleted_runs_show_at_once(api, user, pipeline, run):
    get_all(api, run)
    second = new_run(pipeline, user)
    assert [r["id"] for r in get_all(api, second)["runs"]["results"]] == [second.id, run.id]
    Run.objects.filter(pk=second.id).delete()
    assert [r["id"] for r in get_all(api, run)["runs"]["results"]] == [run.id]
    assert api.get(f"/api/runs/{second.id}").status_code == 404
    third = new_run(pipeline, user)
    get_all(api, third)
    third.delete()
    assert [r["id"] for r in get_all(api, run)["runs"]["results"]] == [run.id]
    assert api.get(f"/api/runs/{third.id}/checkpoints").status_code == 404


def test_renames_show_at_once(api, user, run):
    get_all(api, run)
    run.pipeline.name = "tripler"
    run.pipeline.save(update_fields=["name", "updated_at"])
    answers = get_all(api, run)
    assert answers["run"]["pipeline_name"] == answers["runs"]["results"][0]["pipeline_name"] == "tripler"
    user.username = "alicia"
    user.save()
    answers = get_all(api, run)
    assert answers["run"]["created_by"] == answers["runs"]["results"][0]["created_by"] == "alicia"


def test_the_restored_from_checkpoint_shows_its_changes(api, user, pipeline, run):
    checkpoint_event(run, 1, "completed", kind="savepoint", external_path="/sp/1")
    source = Checkpoint.objects.get(run=run, checkpoint_id=1)
    restored = new_run(pipeline, user, restored_from=source)
    get_all(api, restored)
    Checkpoint.objects.filter(pk=source.pk).update(kind="sync-savepoint")
    answers = get_all(api, restored)
    assert answers["run"]["restored_from"]["kind"] == "sync-savepoint"
    assert answers["checkpoints"]["latest"]["restored"]["is_savepoint"] is True
    source.delete()  # SET_NULL on the restored run
    answers = get_all(api, restored)
    assert answers["run"]["restored_from"] is None and answers["checkpoints"]["latest"]["restored"] is None


def test_a_cached_answer_is_not_served_to_someone_who_may_not_view_it(api, other_api, run):
    get_all(api, run)
    assert api.get(f"/api/runs/{run.id}").status_code == 200
    assert other_api.get(f"/api/runs/{run.id}").status_code == 404
    assert other_api.get(f"/api/runs/{run.id}/checkpoints").status_code == 404
    assert other_api.get(f"/api/runs?pipeline={run.pipeline_id}").json()["count"] == 0
    assert api.get("/api/runs/999999").status_code == 404


def test_a_share_shows_the_same_answer_and_its_removal_takes_it_away(api, other_api, other_user, run):
    owners = get_all(api, run)
    group = Group.objects.create(name="team")
    other_user.groups.add(group)
    share = PipelineShare.objects.create(pipeline=run.pipeline, group=group)
    assert get_all(other_api, run) == owners
    share.delete()
    assert other_api.get(f"/api/runs/{run.id}").status_code == 404
    assert other_api.get(f"/api/runs/{run.id}/checkpoints").status_code == 404
    assert other_api.get(f"/api/runs?pipeline={run.pipeline_id}").json()["count"] == 0


def test_a_deactivated_user_gets_no_cached_answer(api, user, run):
    get_all(api, run)
    user.is_active = False
    user.save()
    assert api.get(f"/api/runs/{run.id}").status_code == 401


def test_etags_answer_304_until_the_run_changes(api, run):
    for path in paths(run).values():
        first = api.get(path)
        etag = first["ETag"]
        unchanged = api.get(path, HTTP_IF_NONE_MATCH=etag)
        assert unchanged.status_code == 304 and unchanged.content == b"" and unchanged["ETag"] == etag
        assert api.get(path, HTTP_IF_NONE_MATCH=f"W/{etag}").status_code == 304
    etags = {path: api.get(path)["ETag"] for path in paths(run).values()}
    checkpoint_event(run, 1, "completed")
    for path, etag in etags.items():
        changed = api.get(path, HTTP_IF_NONE_MATCH=etag)
        assert changed.status_code == 200 and changed["ETag"] != etag


def test_each_spelling_of_the_list_gets_its_own_answer(api, user, pipeline, run):
    set_status(new_run(pipeline, user).id, "FAILED")
    base = f"/api/runs?pipeline={pipeline.id}"
    assert api.get(base).json()["count"] == 2
    assert api.get(f"{base}&status=FAILED").json()["count"] == 1
    assert api.get(f"{base}&status=RUNNING,FAILED").json()["count"] == 2
    page = api.get(f"{base}&page_size=1&page=2").json()
    assert page["count"] == 2 and page["next"] is None and "page_size=1" in page["previous"]
    assert api.get(f"/api/runs/{run.id}/checkpoints?limit=0").json()["history"] == []
    assert api.get(f"/api/runs/{run.id}/checkpoints?limit=01").status_code == 200  # answered, not kept
    assert api.get(f"/api/runs/{run.id}/checkpoints?limit=x").status_code == 400


def test_a_process_keeps_the_answers_it_used_last_within_its_byte_budget():
    kept = LocalEntries(maximum_bytes=10)
    kept.put("a", Entry(b"1234", "application/json"))
    kept.put("b", Entry(b"1234", "application/json"))
    assert kept.get("a").body == b"1234"  # now the most recently used
    kept.put("c", Entry(b"1234", "application/json"))  # 12 bytes: the least recently used goes
    assert (kept.get("a") is not None, kept.get("b"), kept.get("c") is not None) == (True, None, True)


@pytest.mark.django_db(transaction=True)
def test_requests_for_an_answer_being_built_wait_for_it_instead_of_building_it_too(user, run, monkeypatch):
    from studio.api import caching
    from studio.runs import checkpoint_stats

    builds, release = [], threading.Event()
    overview = checkpoint_stats.overview

    def held_overview(*args, **kwargs):  # holds the first build until the second request waits for it
        builds.append(threading.get_ident())
        release.wait(10)
        return overview(*args, **kwargs)

    monkeypatch.setattr(checkpoint_stats, "overview", held_overview)
    clients, answers = [token_client(user), token_client(user)], []

    def get(client):
        answers.append(client.get(f"/api/runs/{run.id}/checkpoints"))
        connections.close_all()

    threads = [threading.Thread(target=get, args=(client,)) for client in clients]
    threads[0].start()
    wait_until(lambda: builds, 10, "the first build")
    threads[1].start()
    wait_until(lambda: any(flight.waiters for flight in list(caching._flights.values())), 10, "a waiting request")
    release.set()
    for thread in threads:
        thread.join(10)
    assert len(builds) == 1
    assert [answer.status_code for answer in answers] == [200, 200] and answers[0].content == answers[1].content
