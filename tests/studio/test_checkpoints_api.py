"""REST: checkpoint counts, summary with percentiles, latest, history, details per vertex and subtask, config."""
import pytest

from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def subtask(vertex, index, ack, alignment, state_size=100):
    return {"task": f"{vertex}#{index}", "vertex": vertex, "index": index, "status": "completed",
            "ack_timestamp": ack, "end_to_end_duration": ack - 1000, "start_delay": 1.5, "alignment_duration": alignment,
            "sync_duration": 0.5, "async_duration": 3.0, "state_size": state_size, "processed_data": 0}


@pytest.fixture
def run(api):
    pipeline = api.post("/api/pipelines", {"name": "p", "definition": simple_pipeline(parallelism=2)},
                        format="json").json()
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    from studio.models import Run

    Run.objects.filter(pk=run["id"]).update(plan={"job_vertices": [
        {"id": "v1", "name": "gen -> double -> out", "operators": ["gen", "double", "out"], "parallelism": 2}]})
    return run


def complete(run_id, checkpoint_id, duration, alignments, kind="checkpoint"):
    trigger = checkpoint_id * 1000
    record_event(run_id, "checkpoint", {"event": "triggered", "id": checkpoint_id, "kind": kind,
                                        "trigger_timestamp": trigger, "num_subtasks": 2})
    subtasks = [subtask("v1", index, trigger + duration, alignment) for index, alignment in enumerate(alignments)]
    record_event(run_id, "checkpoint", {"event": "completed", "id": checkpoint_id, "kind": kind,
                                        "trigger_timestamp": trigger, "latest_ack_timestamp": trigger + duration,
                                        "end_to_end_duration": duration, "state_size": 200,
                                        "num_acknowledged_subtasks": 2, "num_subtasks": 2,
                                        "external_path": f"/tmp/x/chk-{checkpoint_id}", "subtasks": subtasks})


def test_overview_counts_summary_latest_and_history(api, run):
    for checkpoint_id in range(1, 11):
        complete(run["id"], checkpoint_id, duration=checkpoint_id * 10, alignments=[checkpoint_id, 0.5])
    complete(run["id"], 11, duration=500, alignments=[2, 2], kind="savepoint")
    record_event(run["id"], "checkpoint", {"event": "triggered", "id": 12, "trigger_timestamp": 12000})
    record_event(run["id"], "checkpoint", {"event": "failed", "id": 12, "failure_message": "declined by gen#0"})
    record_event(run["id"], "checkpoint", {"event": "triggered", "id": 13, "trigger_timestamp": 13000})
    record_event(run["id"], "checkpoint", {"event": "discarded", "id": 1})

    body = api.get(f"/api/runs/{run['id']}/checkpoints").json()
    assert body["counts"] == {"restored": 0, "total": 13, "in_progress": 1, "completed": 11, "failed": 1}
    durations = body["summary"]["end_to_end_duration"]
    assert (durations["min"], durations["max"], durations["p50"], durations["p90"], durations["p99"]) == (
        10, 500, 60, 100, 500)
    assert durations["avg"] == pytest.approx((550 + 500) / 11)
    assert body["summary"]["alignment_duration"]["max"] == 10  # the slowest subtask of each checkpoint
    assert body["summary"]["state_size"]["min"] == 200
    latest = body["latest"]
    assert latest["completed"]["id"] == 10 and latest["savepoint"]["id"] == 11
    assert latest["savepoint"]["is_savepoint"] is True and latest["failed"]["failure_message"] == "declined by gen#0"
    assert latest["restored"] is None
    history = body["history"]
    assert [row["id"] for row in history] == list(range(13, 0, -1))
    first = history[-1]
    assert first["discarded"] is True and first["status"] == "COMPLETED" and first["pk"] > 0
    assert first["external_path"] == "/tmp/x/chk-1" and history[0]["external_path"] is None
    assert [row["id"] for row in api.get(f"/api/runs/{run['id']}/checkpoints?limit=2").json()["history"]] == [13, 12]
    assert api.get(f"/api/runs/{run['id']}/checkpoints?limit=5000").status_code == 400


def test_overview_of_a_run_without_checkpoints(api, run):
    body = api.get(f"/api/runs/{run['id']}/checkpoints/").json()
    assert body["counts"] == {"restored": 0, "total": 0, "in_progress": 0, "completed": 0, "failed": 0}
    assert body["summary"]["end_to_end_duration"] == {"min": None, "max": None, "avg": None, "p50": None,
                                                      "p90": None, "p99": None}
    assert body["latest"] == {"completed": None, "savepoint": None, "failed": None, "restored": None}
    assert body["history"] == []


def test_restarts_count_as_restores(api, run):
    for status in ("SCHEDULING", "RUNNING", "RESTARTING", "RUNNING"):
        set_status(run["id"], status)
    assert api.get(f"/api/runs/{run['id']}/checkpoints").json()["counts"]["restored"] == 1


def test_details_per_vertex_and_per_subtask(api, run):
    complete(run["id"], 3, duration=40, alignments=[7.5, 1.0])
    body = api.get(f"/api/runs/{run['id']}/checkpoints/3").json()
    assert (body["id"], body["status"], body["end_to_end_duration"], body["alignment_duration"]) == (3, "COMPLETED", 40, 7.5)
    [vertex] = body["vertices"]
    assert vertex["id"] == "v1" and vertex["name"] == "gen -> double -> out"
    assert vertex["operators"] == ["gen", "double", "out"]
    assert (vertex["num_subtasks"], vertex["num_acknowledged_subtasks"], vertex["state_size"]) == (2, 2, 200)
    assert (vertex["end_to_end_duration"], vertex["alignment_duration"]) == (40, 7.5)
    assert vertex["subtasks"] == [
        {"index": 0, "status": "completed", "ack_timestamp": 3040, "end_to_end_duration": 2040, "start_delay": 1.5,
         "alignment_duration": 7.5, "sync_duration": 0.5, "async_duration": 3.0, "state_size": 100,
         "persisted_data": None, "unaligned": None},
        {"index": 1, "status": "completed", "ack_timestamp": 3040, "end_to_end_duration": 2040, "start_delay": 1.5,
         "alignment_duration": 1.0, "sync_duration": 0.5, "async_duration": 3.0, "state_size": 100,
         "persisted_data": None, "unaligned": None}]
    assert api.get(f"/api/runs/{run['id']}/checkpoints/99").status_code == 404


def test_acknowledged_events_fill_subtasks_while_in_progress(api, run):
    record_event(run["id"], "checkpoint", {"event": "triggered", "id": 1, "trigger_timestamp": 1000,
                                           "num_subtasks": 2, "subtasks": [
                                               {**subtask("v1", 0, 0, 0), "status": "pending", "ack_timestamp": None},
                                               {**subtask("v1", 1, 0, 0), "status": "pending", "ack_timestamp": None}]})
    acked = [subtask("v1", 0, 1010, 2.0), {**subtask("v1", 1, 0, 0), "status": "pending", "ack_timestamp": None}]
    record_event(run["id"], "checkpoint", {"event": "acknowledged", "id": 1, "num_acknowledged_subtasks": 1,
                                           "subtasks": acked, "subtask": acked[0]})
    body = api.get(f"/api/runs/{run['id']}/checkpoints/1").json()
    assert body["status"] == "IN_PROGRESS" and body["num_acknowledged_subtasks"] == 1
    assert [s["status"] for s in body["vertices"][0]["subtasks"]] == ["completed", "pending"]
    assert body["vertices"][0]["num_acknowledged_subtasks"] == 1


def test_config_reports_the_runs_checkpointing_settings(api, run):
    body = api.get(f"/api/runs/{run['id']}/checkpoints/config").json()
    assert body["enabled"] is True and body["interval"] == 200 and body["mode"] == "exactly_once"
    assert (body["timeout"], body["min_pause"], body["max_concurrent"], body["retained_checkpoints"]) == (
        600000, 0, 1, 3)
    assert body["tolerable_failed_checkpoints"] == 0 and body["unaligned_checkpoints"] is False
    assert body["settings"]["interval_ms"] == 200
    pipeline_id = run["pipeline"]
    batch = api.post(f"/api/pipelines/{pipeline_id}/runs", {"mode": "batch"}, format="json").json()
    assert api.get(f"/api/runs/{batch['id']}/checkpoints/config").json()["enabled"] is False


def test_history_and_details_say_which_checkpoints_were_unaligned_and_what_they_persisted(api, run):
    complete(run["id"], 1, duration=3000, alignments=[2500, 0])
    trigger = 2000
    subtasks = [{**subtask("v1", index, trigger + 40, 0), "unaligned": True, "persisted_data": size}
                for index, size in enumerate([4096, 0])]
    record_event(run["id"], "checkpoint", {"event": "completed", "id": 2, "kind": "checkpoint",
                                           "trigger_timestamp": trigger, "latest_ack_timestamp": trigger + 40,
                                           "end_to_end_duration": 40, "state_size": 200, "unaligned": True,
                                           "persisted_data": 4096, "num_acknowledged_subtasks": 2,
                                           "num_subtasks": 2, "subtasks": subtasks})
    history = {row["id"]: row for row in api.get(f"/api/runs/{run['id']}/checkpoints").json()["history"]}
    assert (history[1]["unaligned"], history[1]["persisted_data"], history[1]["alignment_duration"]) == (False, 0, 2500)
    assert (history[2]["unaligned"], history[2]["persisted_data"]) == (True, 4096)
    body = api.get(f"/api/runs/{run['id']}/checkpoints").json()
    assert body["summary"]["persisted_data"]["max"] == 4096
    details = api.get(f"/api/runs/{run['id']}/checkpoints/2").json()
    assert details["unaligned"] is True
    assert [(s["unaligned"], s["persisted_data"]) for s in details["vertices"][0]["subtasks"]] == [
        (True, 4096), (True, 0)]
