"""``/metrics`` (parsed by prometheus_client's own parser) and the OpenTelemetry traces of checkpoints and
runs (the SDK's in-memory exporter, and OTLP/HTTP to a collector when an endpoint is configured): what a run reported, labelled by pipeline, run, vertex, operator and
subtask, for those who may view it; spans whose durations are the checkpoint's recorded ones."""
from __future__ import annotations

import http.server
import json
import re
import threading
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from engine.api import InProcess, run as run_job
from studio.observability import traces
from studio.runs.events import record_event, set_status
from tests.studio.test_alerts_api import running_run
from tests.support import simple_pipeline, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

REPORT = {"vertices": {"gen": {"records_out": 40}},
          "tasks": {"gen#0": {"busy_ms_per_second": 250.0, "idle_ms_per_second": 750.0,
                              "backpressured_ms_per_second": 0.0,
                              "operators": {"gen": {"records_in": 0, "records_out": 40, "watermark": None},
                                            "double": {"records_in": 40, "records_out": 38,
                                                       "watermark": 1_700_000_000_000,
                                                       "latency": {"p50_ms": 12.5, "p99_ms": 80.0, "max_ms": 90.0,
                                                                   "markers": 7, "sources": {"gen#0": {
                                                                       "p50_ms": 12.5, "p99_ms": 80.0, "markers": 7}}},
                                                       "hop_latency": {"p50_ms": 2.0, "p99_ms": 4.0, "markers": 7}},
                                            "double::expect": {"records_in": 38, "records_out": 36,
                                                               "watermark": None}}}},
          "expectations": {"node:double": {"records": 38, "dropped": 2, "quarantined": 0,
                                           "rules": {"positive": {"action": "drop", "violated": 2}}}}}


def samples(text: str) -> dict:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_metrics_are_prometheus_text_with_every_running_jobs_figures(api, user):
    run = running_run(user, name="clicks")
    record_event(run.id, "metrics", REPORT)
    response = api.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    found = samples(response.content.decode())
    labels = (("operator", "double"), ("pipeline", "clicks"), ("run", str(run.id)), ("subtask", "0"),
              ("vertex", "gen"))
    assert found[("pipeline_studio_operator_records_in_total", labels)] == 40
    assert found[("pipeline_studio_operator_records_out_total", labels)] == 38
    assert found[("pipeline_studio_operator_watermark_milliseconds", labels)] == 1_700_000_000_000
    assert found[("pipeline_studio_operator_watermark_lag_seconds", labels)] > 0
    assert found[("pipeline_studio_operator_latency_seconds", tuple(sorted(labels + (("quantile", "0.5"),))))] == 0.0125
    assert found[("pipeline_studio_operator_latency_seconds", tuple(sorted(labels + (("quantile", "0.99"),))))] == 0.08
    assert found[("pipeline_studio_operator_hop_latency_seconds", tuple(sorted(labels + (("quantile", "0.99"),))))] \
        == 0.004
    assert found[("pipeline_studio_operator_latency_markers_total", labels)] == 7
    task = (("pipeline", "clicks"), ("run", str(run.id)), ("subtask", "0"), ("vertex", "gen"))
    assert found[("pipeline_studio_subtask_busy_ratio", task)] == 0.25
    quality = (("expectation", "positive"), ("operator", "double"), ("pipeline", "clicks"), ("run", str(run.id)),
               ("scope", "node"))
    assert found[("pipeline_studio_expectation_violations_total", quality)] == 2
    assert found[("pipeline_studio_expectation_records_total", quality)] == 38
    assert found[("pipeline_studio_runs", (("status", "RUNNING"),))] == 1
    assert not any(("operator", "double::expect") in key[1] for key in found), "the planner's checks stay hidden"


def test_metrics_are_secured_like_the_api_and_show_only_visible_runs(api, user, django_user_model, client):
    other = django_user_model.objects.create_user("mallory", password="x")
    hidden = running_run(other, name="secret")
    record_event(hidden.id, "metrics", REPORT)
    assert client.get("/metrics").status_code in (401, 403)
    text = api.get("/metrics").content.decode()
    assert "secret" not in text and f'run="{hidden.id}"' not in text


def test_the_grafana_dashboard_queries_metrics_the_studio_exports(api, user):
    run = running_run(user)
    record_event(run.id, "metrics", REPORT)
    exported = {family.name for family in text_string_to_metric_families(api.get("/metrics").content.decode())}
    dashboard = json.loads((Path(__file__).parents[2] / "docs" / "grafana" / "pipeline-studio.json").read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert queries
    for query in queries:
        for name in re.findall(r"pipeline_studio_\w+", query):
            base = re.sub(r"_(total|bucket|count|sum)$", "", name)
            assert base in exported, f"{name} in the dashboard is not exported"


DASHBOARD = Path(__file__).parents[2] / "docs" / "grafana" / "pipeline-studio.json"
SELECTOR = re.compile(r"(pipeline_studio_\w+)(?:\{([^}]*)\})?")
MATCHER = re.compile(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"')


def exported_label_names() -> dict[str, set[str]]:
    """Every job family the studio exports, by name, with the labels it is declared with (samples or not)."""
    from studio.models import Run
    from studio.observability.exposition import _job_families

    return {family.name: set(family._labelnames) for family in _job_families(Run.objects.none())}


def test_every_dashboard_query_filters_by_the_pipeline_and_run_variables_where_its_metric_has_them():
    dashboard = json.loads(DASHBOARD.read_text())
    variables = {variable["name"]: variable for variable in dashboard["templating"]["list"]}
    assert variables["pipeline"]["type"] == variables["run"]["type"] == "query"
    assert variables["pipeline"]["includeAll"] and variables["run"]["includeAll"], "All is the default view"
    assert 'pipeline=~"$pipeline"' in variables["run"]["query"]["query"], "the runs offered are the chosen pipelines'"
    labels = exported_label_names()
    filtered = 0
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            for name, matchers in SELECTOR.findall(target["expr"]):
                base = re.sub(r"_(total|bucket|count|sum)$", "", name)
                found = {(label, op, value) for label, op, value in MATCHER.findall(matchers)}
                for variable in ("pipeline", "run"):
                    if variable in labels.get(base, ()):
                        assert (variable, "=~", f"${variable}") in found, \
                            f"panel {panel['title']!r}: {name} is not filtered by ${variable}"
                        filtered += 1
    assert filtered >= 2 * 14, "every job panel's queries"


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    traces.use_exporter(exporter)
    yield exporter
    traces.use_exporter(None)


def test_a_checkpoints_spans_have_the_durations_it_recorded(spans, user, tmp_path):
    result = run_job(simple_pipeline(count=None, rate=2000, parallelism=2, interval_ms=100), InProcess(),
                     checkpoint_dir=str(tmp_path), timeout=3)
    completed = [e for e in result.events if e["type"] == "checkpoint" and e["event"] == "completed"]
    assert completed, result.failure
    checkpoint = {key: value for key, value in completed[-1].items() if key != "type"}
    run = running_run(user)
    record_event(run.id, "checkpoint", checkpoint)
    finished = spans.get_finished_spans()
    root = next(span for span in finished if span.name == f"checkpoint {checkpoint['id']}")
    assert root.start_time == checkpoint["trigger_timestamp"] * 1_000_000
    assert root.end_time == checkpoint["latest_ack_timestamp"] * 1_000_000
    acknowledged = [s for s in checkpoint["subtasks"] if s["status"] == "completed"]
    subtasks = {span.attributes["subtask.task"]: span for span in finished if span.parent is not None
                and span.parent.span_id == root.context.span_id}
    assert set(subtasks) == {s["task"] for s in acknowledged}
    for row in acknowledged:
        span = subtasks[row["task"]]
        phases = {child.name: child for child in finished if child.parent is not None
                  and child.parent.span_id == span.context.span_id}
        assert set(phases) == {"alignment", "sync", "async"}
        for phase in ("alignment", "sync", "async"):
            took_ms = (phases[phase].end_time - phases[phase].start_time) / 1e6
            assert abs(took_ms - row[f"{phase}_duration"]) < 1e-3, (phase, took_ms, row)
        assert phases["async"].end_time == row["ack_timestamp"] * 1_000_000
        assert phases["alignment"].end_time == phases["sync"].start_time
        assert phases["sync"].end_time == phases["async"].start_time


def test_a_run_that_ended_is_one_span_with_its_statuses(spans, user):
    run = running_run(user)
    set_status(run.id, "FAILED", "operator 'double' failed: ZeroDivisionError")
    span = next(span for span in spans.get_finished_spans() if span.name == f"run {run.id}")
    assert [event.name for event in span.events] == ["SCHEDULING", "RUNNING", "FAILED"]
    assert span.status.description.startswith("operator 'double' failed")
    assert span.end_time >= span.start_time


def test_a_nodes_watermark_lag_is_the_clock_minus_its_lowest_watermark():
    from studio.runs.vertex_metrics import VertexMetricsTracker

    tracker = VertexMetricsTracker({"gen": {"parallelism": 2, "operators": ["gen", "w"]}})
    reports = {f"gen#{i}": {"operators": {"w": {"records_in": 1, "records_out": 1,
                                                "watermark": 1_700_000_000_000 + 1000 * i},
                                          "gen": {"records_in": 0, "records_out": 1, "watermark": 7}}}
               for i in range(2)}
    nodes = tracker.enrich_nodes(reports, now_s=1.0, wall_ms=1_700_000_004_000.0)
    assert nodes["w"]["watermark_lag_ms"] == 4000.0  # from the lower of the two subtasks' watermarks
    assert nodes["gen"]["watermark_lag_ms"] is None  # event times that are not epoch milliseconds


def test_a_nodes_latency_is_its_subtasks_markers_combined_and_the_head_has_its_hop():
    from studio.runs.vertex_metrics import VertexMetricsTracker

    def latency(p50, p99, markers):
        return {"p50_ms": p50, "p99_ms": p99, "max_ms": p99, "markers": markers,
                "sources": {"gen#0": {"p50_ms": p50, "p99_ms": p99, "markers": markers}}}

    tracker = VertexMetricsTracker({"slow": {"parallelism": 2, "operators": ["slow", "out"]}})
    reports = {f"slow#{i}": {"operators": {
        "slow": {"records_in": 1, "records_out": 1, "watermark": None, "latency": latency(100.0 + 50 * i, 300.0, 4),
                 "hop_latency": {"p50_ms": 90.0 + 10 * i, "p99_ms": 200.0 + i, "markers": 4}},
        "out": {"records_in": 1, "records_out": 1, "watermark": None, "latency": latency(100.0 + 50 * i, 300.0, 4)}}}
        for i in range(2)}
    nodes = tracker.enrich_nodes(reports, now_s=1.0)
    assert (nodes["slow"]["latency_p50_ms"], nodes["slow"]["latency_p99_ms"], nodes["slow"]["latency_markers"]) \
        == (125.0, 300.0, 8)
    assert (nodes["slow"]["hop_latency_p50_ms"], nodes["slow"]["hop_latency_p99_ms"]) == (95.0, 201.0)
    assert "hop_latency_p50_ms" not in nodes["out"], "a chained operator has no hop of its own"
    assert nodes["out"]["latency_sources"] == {"gen#0": {"p50_ms": 125.0, "p99_ms": 300.0, "markers": 8}}
    assert nodes["out"]["subtasks"][1]["latency"]["p50_ms"] == 150.0


class _Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP collector: keeps what is posted to it (``server.received``: ``(path, content type, body)``)."""

    def do_POST(self):  # noqa: N802 (the handler's name)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.received.append((self.path, self.headers.get("Content-Type"), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def collector(monkeypatch):
    """A collector on a free port, and the studio's tracing configured from the environment to export to it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    server.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")  # the batch processor sends within 50 ms, not 5 s
    monkeypatch.setattr(traces, "_configured", False)  # configured again, from this environment
    monkeypatch.setattr(traces, "_tracer", None)
    yield server
    server.shutdown()
    server.server_close()


def test_checkpoint_spans_go_over_otlp_http_when_an_endpoint_is_configured(collector, user):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    checkpoint = {"event": "completed", "id": 7, "kind": "checkpoint", "status": "COMPLETED",
                  "trigger_timestamp": 1_700_000_000_000, "latest_ack_timestamp": 1_700_000_000_090,
                  "subtasks": [{"task": "gen#0", "vertex": "gen", "index": 0, "status": "completed",
                                "ack_timestamp": 1_700_000_000_090, "alignment_duration": 10.0,
                                "sync_duration": 20.0, "async_duration": 30.0}]}
    run = running_run(user)
    record_event(run.id, "checkpoint", checkpoint)
    wait_until(lambda: collector.received, 30, "the spans to reach the collector")
    path, content_type, body = collector.received[0]
    assert path == "/v1/traces" and content_type == "application/x-protobuf"
    spans = {}
    for request in collector.received:
        exported = ExportTraceServiceRequest.FromString(request[2])
        spans.update({span.name: span for resource in exported.resource_spans for scope in resource.scope_spans
                      for span in scope.spans})
    assert {"checkpoint 7", "subtask gen#0", "alignment", "sync", "async"} <= set(spans)
    root = spans["checkpoint 7"]
    assert (root.start_time_unix_nano, root.end_time_unix_nano) == (1_700_000_000_000 * 10**6,
                                                                  1_700_000_000_090 * 10**6)
    for phase, took_ms in (("alignment", 10.0), ("sync", 20.0), ("async", 30.0)):
        assert spans[phase].end_time_unix_nano - spans[phase].start_time_unix_nano == took_ms * 10**6
        assert spans[phase].parent_span_id == spans["subtask gen#0"].span_id
