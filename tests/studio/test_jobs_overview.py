"""REST: what the jobs overview shows per run (restarts, last checkpoint) and each pipeline's latest run."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from studio.models import Checkpoint
from studio.runs.events import set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def create(api, name):
    return api.post("/api/pipelines", {"name": name, "definition": simple_pipeline()}, format="json").json()


def start(api, pipeline):
    return api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()


def test_runs_carry_restarts_and_their_last_completed_checkpoint(api):
    pipeline = create(api, "overview")
    first, second = start(api, pipeline), start(api, pipeline)
    for status in ("RUNNING", "RESTARTING", "RUNNING", "RESTARTING", "RUNNING"):
        set_status(first["id"], status)
    for checkpoint_id, state in ((1, "COMPLETED"), (2, "COMPLETED"), (3, "FAILED")):
        Checkpoint.objects.create(run_id=first["id"], checkpoint_id=checkpoint_id, status=state,
                                  trigger_timestamp=1000 * checkpoint_id)
    rows = {row["id"]: row for row in api.get("/api/runs").json()["results"]}
    assert rows[first["id"]]["restarts"] == 2
    assert rows[first["id"]]["last_checkpoint"] == {"id": 2, "kind": "checkpoint", "trigger_timestamp": 2000}
    assert (rows[second["id"]]["restarts"], rows[second["id"]]["last_checkpoint"]) == (0, None)
    assert api.get(f"/api/pipelines/{pipeline['id']}/runs").json()[1]["last_checkpoint"]["id"] == 2

    with CaptureQueriesContext(connection) as queries:
        api.get("/api/runs")
    for _ in range(5):
        start(api, pipeline)
    with CaptureQueriesContext(connection) as more_queries:
        api.get("/api/runs")
    assert len(more_queries) == len(queries), "one query per page, not per run"


def test_the_pipelines_list_shows_each_pipelines_latest_run_status(api):
    quiet, busy = create(api, "quiet"), create(api, "busy")
    start(api, busy)
    latest = start(api, busy)
    set_status(latest["id"], "FAILED", cause="boom")
    rows = {row["name"]: row for row in api.get("/api/pipelines").json()}
    assert rows["quiet"]["latest_run"] is None
    assert rows["busy"]["latest_run"] == {"id": latest["id"], "status": "FAILED"}
    assert quiet["id"] != busy["id"]



def test_run_lists_do_not_load_what_they_do_not_show(api):
    """A run's plan and collected records and its version's definition are not in a list's answer: loading and
    decoding them was most of the list's CPU with many live runs. The lists still answer in full."""
    pipeline = create(api, "lean")
    run = start(api, pipeline)
    set_status(run["id"], "RUNNING")
    for path in ("/api/runs", f"/api/pipelines/{pipeline['id']}/runs"):
        with CaptureQueriesContext(connection) as queries:
            answer = api.get(path).json()
        rows = answer["results"] if isinstance(answer, dict) else answer
        assert [(row["id"], row["status"], row["version"], row["pipeline_name"]) for row in rows] == [
            (run["id"], "RUNNING", 1, "lean")]
        read = " ".join(query["sql"] for query in queries)
        for column in ('"studio_run"."plan"', '"studio_run"."collected"', '"studio_pipelineversion"."definition"'):
            assert column not in read, f"{path} read {column}"
