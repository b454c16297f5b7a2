"""Every operator that needs event time is refused without it, before anything runs: named by
node and field, its inputs without event time named in the message. The catalog says which
operators need event time and which assign it; the runtime's own checks must agree with it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.runtime.operators import OPERATOR_FACTORIES
from engine.spec import validate_definition
from engine.spec.catalog import OPERATOR_CATALOG, operator_spec

ROOT = Path(__file__).resolve().parents[3]

SINGLE_INPUT = {
    "window.tumbling": {"size_ms": 10},
    "window.sliding": {"size_ms": 10, "slide_ms": 5},
    "window.session": {"gap_ms": 10},
    "transform.deduplicate": {"ttl_ms": 10},
}
TWO_INPUTS = {
    "join.interval": {"lower_ms": -5, "upper_ms": 5},
    "join.window": {"size_ms": 10},
}
WITH_A_TTL = {"aggregate.reduce": {"state_ttl_ms": 100}, "window.count": {"size": 3, "state_ttl_ms": 100}}


def gen(node_id: str = "gen") -> dict:
    return {"id": node_id, "type": "source.datagen", "params": {"count": 10, "expression": '{"k": x % 3, "t": x}'}}


def stamp(node_id: str = "time") -> dict:
    return {"id": node_id, "type": "transform.watermark", "params": {"timestamp": 'x["t"]'}}


def single(type_: str, params: dict, timed: bool) -> dict:
    before = stamp() if timed else {"id": "time", "type": "transform.map", "params": {"expression": "x"}}
    return {"format": 1, "nodes": [gen(), before, {"id": "w", "type": type_, "params": params},
                                   {"id": "out", "type": "sink.collect"}],
            "edges": [{"id": "a", "from": "gen", "to": "time"},
                      {"id": "b", "from": "time", "to": "w", "partitioning": "hash", "key": 'x["k"]'},
                      {"id": "c", "from": "w", "to": "out"}]}


def joined(type_: str, params: dict, left_timed: bool, right_timed: bool) -> dict:
    nodes = [gen("orders"), gen("clicks"), {"id": "j", "type": type_, "params": params},
             {"id": "out", "type": "sink.collect"}]
    edges = [{"id": "o", "from": "j", "to": "out"}]
    for side, source, timed in (("left", "orders", left_timed), ("right", "clicks", right_timed)):
        origin = source
        if timed:
            nodes.append(stamp(f"{source}-time"))
            edges.append({"id": f"{side}-time", "from": source, "to": f"{source}-time"})
            origin = f"{source}-time"
        edges.append({"id": side, "from": origin, "to": "j", "partitioning": "hash", "key": 'x["k"]', "side": side})
    return {"format": 1, "nodes": nodes, "edges": edges}


def problems(definition: dict) -> list[tuple]:
    return [(error["node"], error["edge"], error["field"]) for error in validate_definition(definition)]


@pytest.mark.parametrize("type_", sorted({**SINGLE_INPUT, **WITH_A_TTL}))
def test_a_one_input_event_time_operator_is_valid_after_a_watermark_and_refused_without(type_):
    params = {**SINGLE_INPUT, **WITH_A_TTL}[type_]
    field = "params.state_ttl_ms" if type_ in WITH_A_TTL else "type"
    assert problems(single(type_, params, timed=True)) == []
    [error] = validate_definition(single(type_, params, timed=False))
    assert (error["node"], error["edge"], error["field"]) == ("w", None, field)
    assert "needs event time, but its input from 'time' has none" in error["message"]
    assert "transform.watermark" in error["message"]


@pytest.mark.parametrize("type_", sorted(TWO_INPUTS))
def test_a_join_needs_event_time_on_both_inputs_and_names_the_side_without(type_):
    params = TWO_INPUTS[type_]
    assert problems(joined(type_, params, True, True)) == []
    [error] = validate_definition(joined(type_, params, True, False))
    assert (error["node"], error["field"]) == ("j", "type")
    assert "its right input from 'clicks' has none" in error["message"]
    [error] = validate_definition(joined(type_, params, False, False))
    assert "its left input from 'orders', its right input from 'clicks' have none" in error["message"]


def test_event_time_is_kept_through_other_operators_but_not_through_a_union_with_an_untimed_stream():
    definition = single("window.tumbling", {"size_ms": 10}, timed=True)
    definition["nodes"].insert(2, {"id": "keep", "type": "transform.filter", "params": {"predicate": "True"}})
    definition["edges"][1:2] = [{"id": "b1", "from": "time", "to": "keep"},
                                {"id": "b", "from": "keep", "to": "w", "partitioning": "hash", "key": 'x["k"]'}]
    assert problems(definition) == []
    # a second, untimed stream merged in: its records would reach the window without a time
    definition["nodes"] += [gen("other"), {"id": "both", "type": "transform.union"}]
    definition["edges"][1:2] = [{"id": "b1", "from": "time", "to": "both"}, {"id": "b2", "from": "other", "to": "both"},
                                {"id": "b3", "from": "both", "to": "keep"}]
    [error] = validate_definition(definition)
    assert error["node"] == "w" and "its input from 'keep' has none" in error["message"]


def test_a_kafka_source_with_watermarks_gives_event_time_and_one_without_does_not():
    definition = single("window.tumbling", {"size_ms": 10}, timed=False)
    definition["nodes"][0] = {"id": "gen", "type": "source.kafka",
                              "params": {"bootstrap_servers": "localhost:9092", "topics": ["t"], "watermarks": True}}
    assert [error for error in validate_definition(definition) if error["node"] == "w"] == []
    definition["nodes"][0]["params"]["watermarks"] = False
    assert [error["field"] for error in validate_definition(definition) if error["node"] == "w"] == ["type"]


def test_the_catalog_declares_every_operator_whose_runtime_demands_event_time():
    """The runtime refuses a record without a time with "needs event time"; each operator whose
    module says so must be one the catalog says needs it (always, or through a parameter)."""
    demanding = set()
    for type_, factory in OPERATOR_FACTORIES.items():
        module = factory.split(":")[0]
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        imported = re.findall(r"^from (engine\.runtime\.operators\.[\w.]+) import", source, re.M)
        texts = [source] + [(ROOT / (name.replace(".", "/") + ".py")).read_text() for name in imported
                            if (ROOT / (name.replace(".", "/") + ".py")).exists()]
        if any("needs event time" in text for text in texts):
            demanding.add(type_)
    declared = {spec["type"] for spec in OPERATOR_CATALOG
                if spec["event_time"] == "needs" or any(schema.get("x-event-time") == "needs"
                                                        for schema in spec["params_schema"]["properties"].values())}
    assert {"window.tumbling", "window.sliding", "window.session", "join.interval", "join.window",
            "transform.deduplicate", "aggregate.reduce", "window.count"} <= demanding
    assert demanding <= declared, f"not declared in the catalog: {sorted(demanding - declared)}"
    assert operator_spec("transform.watermark")["event_time"] == "assigns"
