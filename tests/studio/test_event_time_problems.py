"""Over REST, before anything runs: an event-time operator without event time upstream is a
problem on its node in validate, a 400 from preview and from saving, and the catalog says
which operators need event time and which assign it."""
from __future__ import annotations

import pytest

from tests.builders import edge, node, pipeline

pytestmark = pytest.mark.django_db


def tumbling_without_watermark() -> dict:
    return pipeline([node("datagen-1", "source.datagen", count=None, rate=10, expression='{"k": x % 3, "t": x}'),
                     node("tumbling-1", "window.tumbling", size_ms=1000), node("out", "sink.collect")],
                    [edge("datagen-1", "tumbling-1", "hash", 'x["k"]'), edge("tumbling-1", "out")])


def test_validate_names_the_window_that_has_no_event_time(api):
    body = api.post("/api/pipelines/validate", {"definition": tumbling_without_watermark()}, format="json").json()
    assert body["valid"] is False
    [problem] = body["errors"]
    assert (problem["node"], problem["edge"], problem["field"]) == ("tumbling-1", None, "type")
    assert problem["message"] == ("'window.tumbling' needs event time, but its input from 'datagen-1' has none: "
                                  "put a watermark operator (transform.watermark) upstream")


def test_preview_and_save_refuse_it_with_the_same_problem_before_running(api):
    definition = tumbling_without_watermark()
    preview = api.post("/api/preview", {"definition": definition, "limit": 5}, format="json")
    assert preview.status_code == 400
    assert "needs event time" in str(preview.json())
    saved = api.post("/api/pipelines", {"name": "windows", "definition": definition}, format="json")
    assert saved.status_code == 400 and "tumbling-1" in str(saved.json())


def test_with_a_watermark_operator_upstream_it_validates(api):
    definition = tumbling_without_watermark()
    definition["nodes"].insert(1, node("watermark-1", "transform.watermark", timestamp='x["t"]'))
    definition["edges"][0] = edge("datagen-1", "watermark-1")
    definition["edges"].append(edge("watermark-1", "tumbling-1", "hash", 'x["k"]'))
    body = api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()
    assert body == {"valid": True, "errors": [], "warnings": []}


def test_the_catalog_says_which_operators_need_event_time_and_which_assign_it(api):
    catalog = {entry["type"]: entry for entry in api.get("/api/operators").json()}
    needs = sorted(type_ for type_, entry in catalog.items() if entry["event_time"] == "needs")
    assert needs == ["join.interval", "join.window", "transform.deduplicate", "window.session", "window.sliding",
                     "window.tumbling"]
    assert catalog["transform.watermark"]["event_time"] == "assigns"
    assert catalog["aggregate.reduce"]["params_schema"]["properties"]["state_ttl_ms"]["x-event-time"] == "needs"
    assert catalog["source.kafka"]["params_schema"]["properties"]["watermarks"]["x-event-time"] == "assigns"
