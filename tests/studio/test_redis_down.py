"""With Redis down: health says degraded, control calls answer 503 + Retry-After and change nothing.

Before: /api/health said ok, and stop/savepoint/cancel answered 500 after writing
CANCELING or IN_PROGRESS rows that no driver would ever answer. The test stops a Redis of
its own (commands, health, channel layer; the launch queue is sent there too), checks
every call, then starts it again and checks that the same calls work.
"""
import pytest
from rest_framework.test import APIClient

from studio.celery import app as celery_app
from studio.models import Pipeline, PipelineVersion, Run, RunEvent, SavepointRequest
from studio.runs.events import set_status
from tests.studio.openapi_contract import as_httpx, case_of, mismatches
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def running(user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get())
    for status in ("CREATED", "SCHEDULING", "RUNNING"):
        set_status(run.id, status)
    return run


@pytest.fixture
def launch_queue_on(monkeypatch):
    """Send ``launch_run`` to the given Redis (the suite's worker listens elsewhere)."""
    from studio.runs.tasks import launch_run

    def use(redis_url: str):
        def delay(run_id):
            with celery_app.connection_for_write(redis_url) as connection:
                return launch_run.apply_async((run_id,), connection=connection, queue="redis-down-test",
                                              retry_policy={"max_retries": 1, "interval_start": 0})
        monkeypatch.setattr(launch_run, "delay", delay)
    return use


def rows(run: Run) -> tuple:
    run.refresh_from_db()
    return (run.status, list(run.status_history), RunEvent.objects.filter(run=run).count(),
            SavepointRequest.objects.filter(run=run).count(), Run.objects.count())


OPERATIONS = {"cancel": ("POST", "/api/runs/{id}/cancel/"), "savepoint": ("POST", "/api/runs/{id}/savepoints/"),
              "stop": ("POST", "/api/runs/{id}/stop/"), "start": ("POST", "/api/pipelines/{id}/runs/")}


def undocumented(answers: dict) -> list[str]:
    """What in the control calls' answers their operations' schema does not document."""
    found = []
    for name, response in answers.items():
        method, path = OPERATIONS[name]
        found += mismatches(case_of(method, path), as_httpx(method, response.request["PATH_INFO"], response))
    return found


def control_calls(api, run: Run) -> dict:
    return {
        "cancel": api.post(f"/api/runs/{run.id}/cancel"),
        "savepoint": api.post(f"/api/runs/{run.id}/savepoints", {}, format="json"),
        "stop": api.post(f"/api/runs/{run.id}/stop", {"drain": False}, format="json"),
        "start": api.post(f"/api/pipelines/{run.pipeline_id}/runs", {}, format="json"),
    }


def test_control_calls_fail_with_503_and_leave_nothing_half_written(redis_server, api, running, launch_queue_on):
    launch_queue_on(redis_server.url)
    before = rows(running)
    redis_server.stop()

    health = APIClient().get("/api/health")
    assert health.status_code == 503 and health.json()["status"] == "degraded"
    assert health.json()["dependencies"]["redis"].startswith("down") and health.json()["dependencies"]["database"] == "ok"

    answers = control_calls(api, running)
    assert {name: response.status_code for name, response in answers.items()} == dict.fromkeys(answers, 503)
    assert all(response["Retry-After"] and response.json()["detail"] for response in answers.values())
    assert not undocumented(answers)  # 503, Retry-After and the body as the schema documents them
    assert rows(running) == before  # no CANCELING, no IN_PROGRESS savepoint, no CREATED run

    redis_server.start()
    assert APIClient().get("/api/health").json()["status"] == "ok"
    started = api.post(f"/api/pipelines/{running.pipeline_id}/runs", {}, format="json")
    assert started.status_code == 201 and Run.objects.get(pk=started.json()["id"]).status == "CREATED"
    assert api.post(f"/api/runs/{running.id}/savepoints", {}, format="json").status_code == 202
    assert api.post(f"/api/runs/{running.id}/cancel").status_code == 202
    assert rows(running)[0] == "CANCELING"
