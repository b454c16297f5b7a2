"""Environments and secrets on real runs: the run's driver (its own process, local Spark) runs with prod's
parameters, fills a secret in, and nothing it sends out holds the secret: not its events (the sockets'
catch-up included), statuses, failure cause, exceptions, log (the Spark JVM's and Python workers' output
included), nor any REST answer about the run or its pipeline, nor the pipeline's file and export. Searched
for the value, its URL-encoded and its base64 forms."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from urllib.parse import quote, quote_plus

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.db import connection

from studio.asgi import application
from studio.models import Run, RunEvent
from studio.secret_masking import MASK
from tests.conftest import ROOT, stop_process_tree
from tests.support import simple_pipeline, wait_until, ws_headers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark, pytest.mark.timeout(900)]

RUN_END_TIMEOUT = 300  # bounds a hang; Spark starts slowly on a loaded 2-core machine
SECRET_VALUE = "hunter2-S3cr3t/+value"
FORMS = {SECRET_VALUE, quote(SECRET_VALUE, safe=""), quote_plus(SECRET_VALUE),
         base64.b64encode(SECRET_VALUE.encode()).decode().rstrip("="),
         base64.urlsafe_b64encode(SECRET_VALUE.encode()).decode().rstrip("=")}


def leaks(text: str) -> list[str]:
    return [form for form in FORMS if form in text]


def drive(run_id: int, studio_data_dir) -> str:
    """Run the run's driver as the launching task would (a driver of its own), until it exits; its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STUDIO_DATA_DIR": str(studio_data_dir),
           "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}"}
    env.pop("STUDIO_DRIVER_TOKEN", None)
    log_path = studio_data_dir / f"environments-driver-{run_id}.log"
    with open(log_path, "wb") as log:
        driver = subprocess.Popen([sys.executable, "-m", "studio.runs.driver", str(run_id)], cwd=ROOT, env=env,
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            assert driver.wait(RUN_END_TIMEOUT) == 0
        finally:
            stop_process_tree(driver.pid)
    return log_path.read_text(errors="replace")


def streamed(run_id: int, token: str) -> str:
    """What a browser connecting to the run's socket now is told, from the first event on."""
    return async_to_sync(_streamed)(run_id, token, RunEvent.objects.filter(run_id=run_id).count())


async def _streamed(run_id: int, token: str, count: int) -> str:
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=ws_headers(token))
    assert (await communicator.connect(timeout=10))[0]
    texts = [await communicator.receive_from(timeout=10) for _ in range(count)]
    await communicator.disconnect()
    return "\n".join(texts)


def every_answer_about(api, run_id: int, pipeline_id: int) -> dict[str, str]:
    """Every GET of the schema about this run or pipeline that needs no other id, and the lists."""
    schema = api.get("/api/schema/", {"format": "json"}).json()
    paths = {path for path, operations in schema["paths"].items() if "get" in operations
             and path.count("{") == 1 and path.startswith(("/api/runs/{id}", "/api/pipelines/{id}"))}
    answers = {}
    for path in sorted(paths):
        concrete = path.replace("{id}", str(run_id if path.startswith("/api/runs/") else pipeline_id))
        answers[concrete] = api.get(concrete).content.decode(errors="replace")
    for listing in ("/api/runs", "/api/pipelines", "/api/secrets", "/api/environments", "/api/promotions",
                    "/api/jobs/overview"):
        answers[listing] = api.get(listing).content.decode(errors="replace")
    return answers


@pytest.fixture
def prod(api, monkeypatch):
    """A secret, and a prod environment whose parameters are not dev's; runs are driven by the test."""
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)
    assert api.post("/api/secrets", {"name": "token", "value": SECRET_VALUE}, format="json").status_code == 201
    api.post("/api/environments", {"name": "dev", "position": 0, "parameters": {"factor": 2, "count": 10}},
             format="json")
    return api.post("/api/environments", {"name": "prod", "position": 1, "parameters": {
        "factor": 5, "count": 30, "auth": "Bearer ${secret:token}"}}, format="json").json()


def started(api, definition: dict, environment: str) -> tuple[int, int]:
    pipeline = api.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert pipeline.status_code == 201, pipeline.content
    run = api.post(f"/api/pipelines/{pipeline.json()['id']}/runs", {"environment": environment}, format="json")
    assert run.status_code == 201, run.content
    return pipeline.json()["id"], run.json()["id"]


def test_a_run_in_prod_gets_prods_parameters_and_its_secret_inside_the_driver_only(api, prod, studio_data_dir):
    definition = simple_pipeline(count=None, expression="x * ${param:factor} if len('${param:auth}') > 7 else -1",
                                 name="prod-values")
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    pipeline_id, run_id = started(api, definition, "prod")

    log = drive(run_id, studio_data_dir)

    run = api.get(f"/api/runs/{run_id}").json()
    assert run["status"] == "FINISHED", run["failure_cause"]
    assert sorted(run["collected"]["out"]) == [5 * x for x in range(30)]  # prod's count and factor, the secret seen
    answers = every_answer_about(api, run_id, pipeline_id)
    found = {where: leaks(text) for where, text in {**answers, "log": log, "socket": streamed(run_id, api.token_key),
                                                   "events": json.dumps(list(RunEvent.objects.filter(
                                                       run_id=run_id).values_list("data", flat=True)))}.items()}
    assert {where: forms for where, forms in found.items() if forms} == {}
    assert "${param:auth}" in answers[f"/api/pipelines/{pipeline_id}/export/"]  # the export names, never holds


def test_a_failure_that_quotes_the_secret_is_masked_in_every_answer_event_and_log_line(api, prod, studio_data_dir):
    definition = simple_pipeline(count=20, expression="int('${secret:token}' + str(x))", name="quotes-the-secret")
    definition["restart"] = {"strategy": "none"}
    pipeline_id, run_id = started(api, definition, "prod")

    log = drive(run_id, studio_data_dir)

    run = Run.objects.get(pk=run_id)
    assert run.status == "FAILED"
    assert f"invalid literal for int() with base 10: '{MASK}0'" in run.failure_cause  # the cause, masked
    exceptions = api.get(f"/api/runs/{run_id}/exceptions").content.decode()
    assert MASK in exceptions
    texts = {**every_answer_about(api, run_id, pipeline_id), "log": log, "socket": streamed(run_id, api.token_key),
             "events": json.dumps(list(RunEvent.objects.filter(run_id=run_id).values_list("data", flat=True)))}
    assert {where: leaks(text) for where, text in texts.items() if leaks(text)} == {}
    assert "ValueError" in log  # the log is there, masked, not empty
