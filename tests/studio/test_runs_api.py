"""REST: runs list and filter, status history, restore from a checkpoint or path, metrics."""
import json

import pytest

from studio.models import Checkpoint, Pipeline, Run
from studio.runs.events import record_event, set_status
from tests.support import signed_snapshot, simple_pipeline

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipeline(api):
    response = api.post("/api/pipelines", {"name": "doubler", "definition": simple_pipeline()}, format="json")
    return response.json()


def start(api, pipeline, **body):
    response = api.post(f"/api/pipelines/{pipeline['id']}/runs", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def write_checkpoint(directory, pipeline, operators=("gen",)) -> str:
    """A completed checkpoint of ``pipeline`` on disk: signed, its state naming ``operators``."""
    return signed_snapshot(directory, Pipeline.objects.get(pk=pipeline["id"]), operators=operators)


def test_runs_are_listed_paginated_and_filtered_by_pipeline_and_status(api, pipeline):
    other = api.post("/api/pipelines", {"name": "other", "definition": simple_pipeline()}, format="json").json()
    runs = [start(api, pipeline), start(api, pipeline), start(api, other)]
    set_status(runs[0]["id"], "RUNNING")
    set_status(runs[1]["id"], "FAILED", cause="boom")
    page = api.get("/api/runs").json()
    assert page["count"] == 3 and page["previous"] is None and page["next"] is None
    assert [r["id"] for r in page["results"]] == [runs[2]["id"], runs[1]["id"], runs[0]["id"]]
    assert "definition" not in page["results"][0]  # lists carry summaries
    assert [r["id"] for r in api.get(f"/api/runs?pipeline={pipeline['id']}").json()["results"]] == [
        runs[1]["id"], runs[0]["id"]]
    filtered = api.get("/api/runs?status=RUNNING,FAILED").json()["results"]
    assert [(r["id"], r["status"], r["failure_cause"]) for r in filtered] == [
        (runs[1]["id"], "FAILED", "boom"), (runs[0]["id"], "RUNNING", None)]
    second = api.get("/api/runs?page_size=2&page=2").json()
    assert [r["id"] for r in second["results"]] == [runs[0]["id"]] and second["previous"]
    assert api.get("/api/runs?status=SLEEPING").status_code == 400
    assert api.get("/api/runs?status=running").status_code == 400  # as the schema's pattern says
    assert api.get("/api/runs?page_size=0").status_code == 400 and api.get("/api/runs?page_size=x").status_code == 400
    assert api.get("/api/runs?pipeline=x").status_code == 400
    assert api.get("/api/runs?page=9").status_code == 404


def test_run_status_has_a_timestamp_for_every_transition(api, pipeline):
    run = start(api, pipeline)
    for status in ("SCHEDULING", "RUNNING", "RESTARTING", "RUNNING", "FAILING"):
        set_status(run["id"], status)
    set_status(run["id"], "FAILED", cause="task gen#0 failed: boom")
    set_status(run["id"], "RUNNING")  # a late report after the end changes nothing
    body = api.get(f"/api/runs/{run['id']}").json()
    history = body["status_history"]
    assert [h["status"] for h in history] == ["CREATED", "SCHEDULING", "RUNNING", "RESTARTING", "RUNNING",
                                               "FAILING", "FAILED"]
    assert all(isinstance(h["ts"], int) for h in history)
    assert [h["ts"] for h in history] == sorted(h["ts"] for h in history)
    assert history[-1]["cause"] == "task gen#0 failed: boom"
    assert (body["status"], body["failure_cause"]) == ("FAILED", "task gen#0 failed: boom")
    assert body["started_at"] and body["ended_at"] and body["restored_from"] is None
    assert body["savepoint_requests"] == []
    conflict = api.post(f"/api/runs/{run['id']}/cancel")
    assert conflict.status_code == 409 and conflict.json()["detail"] == f"run {run['id']} already ended with status FAILED"


def test_start_from_a_completed_checkpoint_by_pk(api, pipeline, granted_tmp_path):
    first = start(api, pipeline)
    location = write_checkpoint(granted_tmp_path / "chk-7", pipeline)
    checkpoint = Checkpoint.objects.create(run_id=first["id"], checkpoint_id=7, kind="savepoint",
                                           status="COMPLETED", trigger_timestamp=1, external_path=location)
    run = start(api, pipeline, restore_from={"pk": checkpoint.pk})
    assert run["restored_from"] == {"pk": checkpoint.pk, "checkpoint_id": 7, "run": first["id"], "kind": "savepoint",
                                    "path": location, "allow_non_restored_state": False}
    assert Run.objects.get(pk=run["id"]).restore_path == location
    overview = api.get(f"/api/runs/{run['id']}/checkpoints").json()
    assert overview["counts"]["restored"] == 1
    assert overview["latest"]["restored"]["external_path"] == location
    assert overview["latest"]["restored"]["is_savepoint"] is True


def test_start_from_a_path_and_the_restore_errors(api, pipeline, granted_tmp_path):
    location = write_checkpoint(granted_tmp_path / "sp", pipeline)
    run = start(api, pipeline, restore_from={"path": location})
    assert run["restored_from"]["path"] == location and run["restored_from"]["pk"] is None

    def refused(body, status):
        response = api.post(f"/api/pipelines/{pipeline['id']}/runs", body, format="json")
        assert response.status_code == status, response.content
        return response.json()["detail"]

    assert "no completed checkpoint" in refused({"restore_from": {"path": str(granted_tmp_path / "missing")}}, 400)
    assert "not allowed" in refused({"restore_from": {"path": "http://example.com/sp"}}, 400)
    assert "absolute" in refused({"restore_from": {"path": "relative/dir"}}, 400)
    assert "exactly one" in refused({"restore_from": {}}, 400)
    assert "exactly one" in refused({"restore_from": {"path": location, "checkpoint": 1}}, 400)
    assert "no checkpoint" in refused({"restore_from": {"pk": 424242}}, 400)
    failed = Checkpoint.objects.create(run_id=run["id"], checkpoint_id=1, status="FAILED", trigger_timestamp=1)
    assert "only a completed one" in refused({"restore_from": {"pk": failed.pk}}, 409)
    gone = Checkpoint.objects.create(run_id=run["id"], checkpoint_id=2, status="COMPLETED", trigger_timestamp=1,
                                     external_path=location, discarded=True)
    assert "was deleted: its files are gone" in refused({"restore_from": {"pk": gone.pk}}, 409)


def test_start_from_the_checkpoint_id_users_see(api, pipeline, tmp_path):
    """``{"checkpoint": 7}`` is the #7 the run page shows, not a database key; ``run`` picks among runs."""
    first, second = start(api, pipeline), start(api, pipeline)
    location = write_checkpoint(tmp_path / "chk-7", pipeline)
    Checkpoint.objects.create(run_id=first["id"], checkpoint_id=3, status="COMPLETED", trigger_timestamp=1,
                              external_path=location)
    mine = Checkpoint.objects.create(run_id=second["id"], checkpoint_id=7, kind="savepoint", status="COMPLETED",
                                     trigger_timestamp=1, external_path=location)
    assert mine.pk != 7
    assert start(api, pipeline, restore_from={"checkpoint": 7})["restored_from"]["pk"] == mine.pk

    def refused(body):
        response = api.post(f"/api/pipelines/{pipeline['id']}/runs", {"restore_from": body}, format="json")
        assert response.status_code == 400, response.content
        return response.json()["detail"]

    Checkpoint.objects.create(run_id=first["id"], checkpoint_id=7, status="COMPLETED", trigger_timestamp=1,
                              external_path=location)
    ambiguous = refused({"checkpoint": 7})
    assert "ambiguous" in ambiguous and str(first["id"]) in ambiguous and str(second["id"]) in ambiguous
    assert "run" in ambiguous
    restored = start(api, pipeline, restore_from={"checkpoint": 7, "run": second["id"]})["restored_from"]
    assert (restored["pk"], restored["run"], restored["checkpoint_id"]) == (mine.pk, second["id"], 7)
    assert f"run {first['id']} has no checkpoint or savepoint #9" in refused({"checkpoint": 9, "run": first["id"]})
    assert "no run of this pipeline has a checkpoint or savepoint #99" in refused({"checkpoint": 99})
    assert "give checkpoint with it" in str(refused({"run": first["id"]}))


def test_state_of_removed_operators_needs_allow_non_restored_state(api, pipeline, granted_tmp_path):
    location = write_checkpoint(granted_tmp_path / "old", pipeline, operators=("gen", "dropped_window"))
    response = api.post(f"/api/pipelines/{pipeline['id']}/runs", {"restore_from": {"path": location}}, format="json")
    assert response.status_code == 400
    assert "dropped_window" in response.json()["detail"] and "allow_non_restored_state" in response.json()["detail"]
    run = start(api, pipeline, restore_from={"path": location}, allow_non_restored_state=True)
    assert run["restored_from"]["allow_non_restored_state"] is True


def test_an_invalid_saved_version_cannot_run(api, pipeline):
    from studio.models import PipelineVersion

    broken = simple_pipeline()
    broken["nodes"][1]["type"] = "transform.retired"
    PipelineVersion.objects.create(pipeline_id=pipeline["id"], number=2, definition=broken)
    response = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["node"] == "double" and "version 2" in response.json()["detail"]


def test_metrics_latest_per_vertex_and_the_last_samples(api, pipeline):
    run = start(api, pipeline)
    for number in range(5):
        record_event(run["id"], "metrics", {"vertices": {"v": {"records_out": number * 10, "busy_ratio": 0.5}},
                                            "collected": {}})
    body = api.get(f"/api/runs/{run['id']}/metrics?samples=3").json()
    assert body["vertices"] == {"v": {"records_out": 40, "busy_ratio": 0.5}}
    assert [s["vertices"]["v"]["records_out"] for s in body["samples"]] == [20, 30, 40]
    assert [s["seq"] for s in body["samples"]] == sorted(s["seq"] for s in body["samples"])
    assert len(api.get(f"/api/runs/{run['id']}/metrics").json()["samples"]) == 5
    assert api.get(f"/api/runs/{run['id']}/metrics?samples=-1").status_code == 400
    empty = start(api, pipeline)
    assert api.get(f"/api/runs/{empty['id']}/metrics").json() == {"vertices": {}, "nodes": {}, "expectations": {},
                                                                 "samples": []}


def test_metrics_carry_the_latest_per_node_figures(api, pipeline):
    run = start(api, pipeline)
    nodes = {"even": {"vertex": "gen", "parallelism": 1, "records_in": 10.0, "records_out": 5.0,
                      "records_in_per_second": None, "records_out_per_second": None, "watermark": 7,
                      "busy_ratio": 0.5, "idle_ratio": 0.5, "backpressured_ratio": 0.0,
                      "subtasks": [{"subtask": 0, "records_in": 10.0, "records_out": 5.0,
                                    "records_in_per_second": None, "records_out_per_second": None,
                                    "watermark": 7, "busy_ratio": 0.5, "idle_ratio": 0.5,
                                    "backpressured_ratio": 0.0, "checkpoint": None}]}}
    record_event(run["id"], "metrics", {"vertices": {}, "nodes": {}, "collected": {}})
    record_event(run["id"], "metrics", {"vertices": {}, "nodes": nodes, "collected": {}})
    assert api.get(f"/api/runs/{run['id']}/metrics").json()["nodes"] == nodes


def two_subtask_report(gen_out: int, even_out: list[int], busy: list[float]) -> dict:
    """What the engine reports for gen -> even (a filter), chained, parallelism 2."""
    return {f"gen#{i}": {"records_in": gen_out, "records_out": even_out[i], "busy_ms_per_second": busy[i],
                         "idle_ms_per_second": 1000 - busy[i], "backpressured_ms_per_second": 0,
                         "operators": {"gen": {"records_in": gen_out, "records_out": gen_out, "watermark": 100 + i},
                                       "even": {"records_in": gen_out, "records_out": even_out[i],
                                                "watermark": 90 + i}}}
            for i in range(2)}


def test_metrics_tracker_aggregates_each_operator_over_its_subtasks():
    from studio.runs.vertex_metrics import VertexMetricsTracker

    tracker = VertexMetricsTracker({"gen": {"parallelism": 2, "operators": ["gen", "even"]}})
    first = tracker.enrich_nodes(two_subtask_report(100, [50, 40], [500, 300]), now_s=10.0)
    assert set(first) == {"gen", "even"}
    even = first["even"]
    assert (even["vertex"], even["parallelism"], even["records_in"], even["records_out"]) == ("gen", 2, 200, 90)
    assert first["gen"]["records_out"] == 200  # not the chain's output: the source's own
    assert even["watermark"] == 90 and first["gen"]["watermark"] == 100  # the lowest subtask's
    assert even["busy_ratio"] == 0.4 and even["records_out_per_second"] is None
    assert [(s["subtask"], s["records_out"], s["busy_ratio"], s["watermark"], s["checkpoint"])
            for s in even["subtasks"]] == [(0, 50, 0.5, 90, None), (1, 40, 0.3, 91, None)]

    tracker.checkpoint_completed({"id": 3, "subtasks": [
        {"task": "gen#0", "status": "completed", "state_size": 2048, "processed_data": 0, "persisted_data": 0,
         "sync_duration": 1, "async_duration": 4, "alignment_duration": 0},
        {"task": "gen#1", "status": "pending", "state_size": None}]})
    second = tracker.enrich_nodes(two_subtask_report(300, [150, 60], [500, 300]), now_s=12.0)
    even = second["even"]
    assert [s["records_out_per_second"] for s in even["subtasks"]] == [50.0, 10.0]
    assert even["records_out_per_second"] == 60.0 and even["records_in_per_second"] == 200.0
    assert even["subtasks"][0]["checkpoint"] == {"id": 3, "state_size": 2048, "processed_data": 0,
                                                 "persisted_data": 0, "sync_duration": 1, "async_duration": 4,
                                                 "alignment_duration": 0}
    assert even["subtasks"][1]["checkpoint"] is None  # it has not acknowledged one yet


def test_a_node_has_no_watermark_while_one_of_its_subtasks_has_none():
    from studio.runs.vertex_metrics import VertexMetricsTracker

    report = two_subtask_report(10, [5, 5], [0, 0])
    report["gen#1"]["operators"]["even"]["watermark"] = None
    assert VertexMetricsTracker({"gen": {"parallelism": 2}}).enrich_nodes(report, now_s=1.0)["even"]["watermark"] is None
    del report["gen#1"]  # a subtask that has not reported yet holds the watermark back too
    assert VertexMetricsTracker({"gen": {"parallelism": 2}}).enrich_nodes(report, now_s=1.0)["even"]["watermark"] is None


def test_metrics_tracker_turns_sums_into_rates_and_ratios():
    from studio.runs.vertex_metrics import VertexMetricsTracker

    tracker = VertexMetricsTracker({"src": {"parallelism": 2, "operators": ["gen", "double"]}})
    first = tracker.enrich({"src": {"records_in": 0, "records_out": 1000, "busy_ms_per_second": 1500,
                                    "idle_ms_per_second": 300, "backpressured_ms_per_second": 200}}, now_s=100.0)
    assert first["src"] == {"records_in": 0.0, "records_out": 1000.0, "records_in_per_second": None,
                            "records_out_per_second": None, "busy_ratio": 0.75, "idle_ratio": 0.15,
                            "backpressured_ratio": 0.1, "operators": ["gen", "double"], "parallelism": 2}
    second = tracker.enrich({"src": {"records_out": 3000, "busy_ms_per_second": 2000}}, now_s=102.0)
    assert second["src"]["records_out_per_second"] == 1000.0 and second["src"]["busy_ratio"] == 1.0
    assert tracker.enrich({"unknown": {"records_out": 1}}, now_s=103.0)["unknown"]["busy_ratio"] is None


def test_a_nodes_late_records_and_the_partials_it_was_fed_are_summed_over_its_subtasks():
    from studio.runs.vertex_metrics import VertexMetricsTracker

    report = {f"win#{i}": {"records_in": 10 + i, "records_out": 3, "operators": {
        "win": {"records_in": 500 + i, "records_out": 3, "watermark": 5, "late_records": 2 * i, "partials_in": 10 + i}}}
        for i in range(2)}
    window = VertexMetricsTracker({"win": {"parallelism": 2}}).enrich_nodes(report, now_s=1.0)["win"]
    assert (window["records_in"], window["late_records"], window["partials_in"]) == (1001, 2, 21)
    assert [(s["late_records"], s["partials_in"]) for s in window["subtasks"]] == [(0, 10), (2, 11)]
    plain = VertexMetricsTracker({"gen": {"parallelism": 2}}).enrich_nodes(two_subtask_report(1, [1, 1], [0, 0]), 1.0)
    assert "late_records" not in plain["even"] and "late_records" not in plain["even"]["subtasks"][0]
