"""The visible latency of exactly-once sinks from the engine's reports to what the studio serves: per node over
REST (combined over the sink's subtasks, each subtask's own in the drill-down) and on ``/metrics`` by quantile."""
from __future__ import annotations

import pytest

from studio.api.serializers.metrics import MetricsSerializer
from studio.runs.events import record_event
from studio.runs.vertex_metrics import VertexMetricsTracker
from tests.studio.test_alerts_api import running_run
from tests.studio.test_observability import samples

pytestmark = pytest.mark.django_db(transaction=True)


def visible(p50: float, p99: float, records: int) -> dict:
    return {"p50_ms": p50, "p99_ms": p99, "max_ms": p99 + 5, "records": records, "commits": 3}


def from_sources(p50: float, p99: float, markers: int) -> dict:
    return {"p50_ms": p50, "p99_ms": p99, "max_ms": p99, "markers": markers,
            "sources": {"gen#0": {"p50_ms": p50, "p99_ms": p99, "markers": markers}}}


TASKS = {f"out#{i}": {"operators": {"out": {
    "records_in": 100, "records_out": 0, "watermark": None,
    "latency": from_sources(5.0 + i, 9.0, 10),
    "visible_latency": visible(500.0 + 100 * i, 990.0 + i, 100),
    "source_visible_latency": from_sources(520.0 + 100 * i, 1000.0 + i, 10)}}} for i in range(2)}
TASKS["seen#0"] = {"operators": {"seen": {"records_in": 100, "records_out": 0, "watermark": None,
                                          "latency": from_sources(5.0, 9.0, 10)}}}


def report() -> dict:
    tracker = VertexMetricsTracker({"out": {"parallelism": 2, "operators": ["out"]},
                                    "seen": {"parallelism": 1, "operators": ["seen"]}})
    return {"vertices": {}, "tasks": TASKS, "nodes": tracker.enrich_nodes(TASKS, now_s=1.0)}


def test_an_exactly_once_sinks_visible_latency_is_served_per_node_and_per_subtask(api, user):
    run = running_run(user, name="files")
    record_event(run.id, "metrics", report())
    answer = api.get(f"/api/runs/{run.id}/metrics").json()
    assert MetricsSerializer(data=answer).is_valid(), "the answer is what the schema says"
    out = answer["nodes"]["out"]
    assert (out["visible_latency_p50_ms"], out["visible_latency_p99_ms"], out["visible_latency_records"]) \
        == (550.0, 991.0, 200), "the median of the medians, the highest p99, the records summed"
    assert (out["source_visible_latency_p50_ms"], out["source_visible_latency_p99_ms"],
            out["source_visible_latency_markers"]) == (570.0, 1001.0, 20)
    assert out["latency_p50_ms"] == 5.5, "the markers' way to the sink stays beside it"
    assert out["subtasks"][1]["visible_latency"] == visible(600.0, 991.0, 100)
    assert out["subtasks"][1]["source_visible_latency"]["sources"]["gen#0"]["markers"] == 10
    assert not [name for name in answer["nodes"]["seen"] if "visible" in name], "a sink that writes at once"


def test_metrics_export_the_visible_latency_by_quantile(api, user):
    run = running_run(user, name="files")
    record_event(run.id, "metrics", report())
    found = samples(api.get("/metrics").content.decode())
    labels = (("operator", "out"), ("pipeline", "files"), ("run", str(run.id)), ("subtask", "1"), ("vertex", "out"))
    assert found[("pipeline_studio_operator_visible_latency_seconds",
                  tuple(sorted(labels + (("quantile", "0.5"),))))] == 0.6
    assert found[("pipeline_studio_operator_visible_latency_seconds",
                  tuple(sorted(labels + (("quantile", "0.99"),))))] == 0.991
    assert found[("pipeline_studio_operator_source_visible_latency_seconds",
                  tuple(sorted(labels + (("quantile", "0.5"),))))] == 0.62
    assert not [key for key in found if key[0].endswith("visible_latency_seconds") and ("operator", "seen") in key[1]]
