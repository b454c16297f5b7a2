"""Source lag and emit delay from the engine's reports to what the studio serves: per node over REST (sums over
the splits, the enumerator's splits not handed out, the splits furthest behind) and on ``/metrics`` (per split)."""
from __future__ import annotations

import pytest

from studio.api.serializers.metrics import MetricsSerializer
from studio.runs.events import record_event
from studio.runs.vertex_metrics import VertexMetricsTracker
from tests.studio.test_alerts_api import running_run
from tests.studio.test_observability import samples

pytestmark = pytest.mark.django_db(transaction=True)


def split(name: str, records=None, bytes_=None, pending=None) -> dict:
    return {"split": name, "records_behind": records, "bytes_behind": bytes_, "pending": pending}


TASKS = {
    "in#0": {"operators": {"in": {"records_in": 0, "records_out": 10, "watermark": None,
                                  "lag": [split("/d/a.jsonl[0:100]", bytes_=60), split("/d/a.jsonl[100:200]", bytes_=100)]}}},
    "in#1": {"operators": {"in": {"records_in": 0, "records_out": 4, "watermark": None,
                                  "lag": [split("/d/b.jsonl[0:100]", bytes_=90)]}}},
    "window#0": {"operators": {"window": {"records_in": 14, "records_out": 3, "watermark": None, "late_records": 0,
                                          "emit_delay_ms": 1000.0, "emit_delay_max_ms": 1500.0,
                                          "emit_delay_results": 3}}},
    "window#1": {"operators": {"window": {"records_in": 0, "records_out": 1, "watermark": None, "late_records": 0,
                                          "emit_delay_ms": 3000.0, "emit_delay_max_ms": 3000.0,
                                          "emit_delay_results": 1}}},
}
ENUMERATORS = {"in": {"splits_unassigned": 5, "bytes_unassigned": 500}}


def report() -> dict:
    tracker = VertexMetricsTracker({"in": {"parallelism": 2, "operators": ["in"]},
                                    "window": {"parallelism": 2, "operators": ["window"]}})
    return {"vertices": {}, "tasks": TASKS, "enumerators": ENUMERATORS,
            "nodes": tracker.enrich_nodes(TASKS, now_s=1.0, enumerators=ENUMERATORS)}


def test_a_sources_lag_is_summed_over_its_splits_and_served_per_node(api, user):
    run = running_run(user, name="files")
    record_event(run.id, "metrics", report())
    answer = api.get(f"/api/runs/{run.id}/metrics").json()
    assert MetricsSerializer(data=answer).is_valid(), "the answer is what the schema says"
    lag = answer["nodes"]["in"]["lag"]
    assert (lag["bytes_behind"], lag["records_behind"], lag["pending"]) == (250, None, None)
    assert (lag["splits_unassigned"], lag["bytes_unassigned"], lag["splits_total"]) == (5, 500, 3)
    assert [(s["split"], s["subtask"]) for s in lag["splits"]] == [
        ("/d/a.jsonl[100:200]", 0), ("/d/b.jsonl[0:100]", 1), ("/d/a.jsonl[0:100]", 0)], "furthest behind first"
    assert answer["nodes"]["in"]["subtasks"][1]["lag"] == [split("/d/b.jsonl[0:100]", bytes_=90)]
    window = answer["nodes"]["window"]
    assert (window["emit_delay_ms"], window["emit_delay_max_ms"], window["emit_delay_results"]) == (1500.0, 3000.0, 4)
    assert "lag" not in window, "a node that reads nothing from outside has no lag"


def test_metrics_export_the_lag_per_split_and_the_emit_delay(api, user):
    run = running_run(user, name="files")
    record_event(run.id, "metrics", report())
    found = samples(api.get("/metrics").content.decode())
    base = (("operator", "in"), ("pipeline", "files"), ("run", str(run.id)))
    split_labels = tuple(sorted(base + (("split", "/d/b.jsonl[0:100]"), ("subtask", "1"), ("vertex", "in"))))
    assert found[("pipeline_studio_source_bytes_behind", split_labels)] == 90
    assert ("pipeline_studio_source_records_behind", split_labels) not in found, "a file has no record count"
    assert found[("pipeline_studio_source_splits_unassigned", base)] == 5
    assert found[("pipeline_studio_source_bytes_unassigned", base)] == 500
    window = (("operator", "window"), ("pipeline", "files"), ("run", str(run.id)), ("subtask", "1"),
              ("vertex", "window"))
    assert found[("pipeline_studio_operator_emit_delay_seconds", window)] == 3.0
    assert found[("pipeline_studio_operator_emit_delay_max_seconds", window)] == 3.0
