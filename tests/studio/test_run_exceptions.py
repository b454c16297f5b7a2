"""REST: a run's exceptions history (subtask failures with their tracebacks) and its restarts."""
import pytest

from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db

TRACEBACK = '  File "engine/runtime/operators/map.py", line 30, in process_batch\n    out = [f(x) for x in batch]\n'


@pytest.fixture
def run_id(api):
    pipeline = api.post("/api/pipelines", {"name": "failing", "definition": simple_pipeline()}, format="json").json()
    return api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]


def fail(run_id, task, attempt, message):
    record_event(run_id, "task_failed", {"task": task, "region": "r0", "attempt": attempt,
                                         "error": f"task {task} failed: {message}\n{TRACEBACK}"})


def test_failures_and_restarts_newest_first_with_vertex_subtask_attempt_and_traceback(api, run_id):
    set_status(run_id, "RUNNING")
    fail(run_id, "double#1", 0, "operator 'double' (transform.map) failed: ZeroDivisionError: division by zero")
    set_status(run_id, "RESTARTING", cause="task double#1 failed: ZeroDivisionError\nTraceback ...",
               details={"regions": ["r0"], "delay_ms": 1000})
    set_status(run_id, "RUNNING")
    fail(run_id, "gen#0", 1, "ConnectionError: lost")
    set_status(run_id, "FAILED", cause="task gen#0 failed: ConnectionError: lost\nTraceback ...")

    body = api.get(f"/api/runs/{run_id}/exceptions").json()
    assert body["root"] == "task gen#0 failed: ConnectionError: lost"
    newest, oldest = body["exceptions"]
    assert (newest["vertex"], newest["subtask"], newest["attempt"], newest["operator"]) == ("gen", 0, 1, None)
    assert (oldest["task"], oldest["vertex"], oldest["subtask"], oldest["attempt"]) == ("double#1", "double", 1, 0)
    assert oldest["operator"] == "double" and oldest["region"] == "r0"
    assert oldest["message"] == ("task double#1 failed: operator 'double' (transform.map) failed: "
                                 "ZeroDivisionError: division by zero")
    assert oldest["traceback"] == TRACEBACK.rstrip()
    assert newest["ts"] >= oldest["ts"] and newest["seq"] > oldest["seq"]
    [restart] = body["restarts"]
    assert (restart["cause"], restart["regions"], restart["delay_ms"]) == ("task double#1 failed: ZeroDivisionError",
                                                                          ["r0"], 1000)


def test_the_record_an_operator_failed_on_is_shown_apart_from_its_traceback(api, run_id):
    record_event(run_id, "task_failed", {
        "task": "gen#0", "region": "r0", "attempt": 0,
        "error": "operator 'double' (transform.map), subtask 0, failed: ZeroDivisionError: division by zero\n"
                 f"record: {{\"n\": 20}}\n{TRACEBACK}"})
    [entry] = api.get(f"/api/runs/{run_id}/exceptions").json()["exceptions"]
    assert (entry["operator"], entry["record"]) == ("double", '{"n": 20}')
    assert entry["traceback"] == TRACEBACK.rstrip() and "record" not in entry["message"]


def test_a_run_without_failures_has_an_empty_history(api, run_id):
    assert api.get(f"/api/runs/{run_id}/exceptions").json() == {"root": None, "exceptions": [], "restarts": []}
    assert api.get("/api/runs/999999/exceptions").status_code == 404
