"""Catalog entries of session and count windows: schemas, defaults, errors naming node and field."""
from __future__ import annotations

import pytest

from engine.spec import normalise_definition, operator_spec, validate_definition


def keyed(operator: dict) -> dict:
    return {"format": 1, "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 10}},
                                   {"id": "time", "type": "transform.watermark", "params": {"timestamp": "x"}},
                                   {"id": "w", **operator},
                                   {"id": "out", "type": "sink.collect"}],
            "edges": [{"id": "a", "from": "gen", "to": "time"},
                      {"id": "b", "from": "time", "to": "w", "partitioning": "hash", "key": "x % 2"},
                      {"id": "c", "from": "w", "to": "out"}]}


def test_deduplicate_is_keyed_with_a_late_port_and_keeps_the_first_by_default():
    spec = operator_spec("transform.deduplicate")
    assert spec["keyed"] and [port["name"] for port in spec["output_ports"]] == ["late"]
    definition = normalise_definition(keyed({"type": "transform.deduplicate", "params": {"ttl_ms": 100}}))
    assert definition["nodes"][2]["params"] == {"ttl_ms": 100, "keep": "first"}


def test_session_and_count_windows_are_keyed_catalog_operators_with_the_window_aggregates():
    for type_ in ("window.session", "window.count"):
        spec = operator_spec(type_)
        assert spec["keyed"] and spec["stateful"] and spec["category"] == "window"
        assert spec["params_schema"]["properties"]["function"]["enum"] == ["sum", "count", "min", "max"]
        assert spec["params_schema"]["properties"]["value"]["format"] == "expression"


def test_defaults_fill_in():
    definition = normalise_definition(keyed({"type": "window.count", "params": {"size": 3}}))
    assert definition["nodes"][2]["params"] == {"size": 3, "slide": None, "function": "sum", "value": "x"}
    definition = normalise_definition(keyed({"type": "window.session", "params": {"gap_ms": 3}}))
    assert definition["nodes"][2]["params"]["allowed_lateness_ms"] == 0


@pytest.mark.parametrize(("operator", "field"), [
    ({"type": "window.session", "params": {}}, "params.gap_ms"),
    ({"type": "window.session", "params": {"gap_ms": 0}}, "params.gap_ms"),
    ({"type": "window.session", "params": {"gap_ms": 10, "function": "avg"}}, "params.function"),
    ({"type": "window.session", "params": {"gap_ms": 10, "value": "x +"}}, "params.value"),
    ({"type": "window.count", "params": {"size": 0}}, "params.size"),
    ({"type": "window.count", "params": {"size": 2, "slide": 10 ** 9}}, "params.slide"),
    ({"type": "window.count", "params": {"size": 2, "gap_ms": 3}}, "params.gap_ms"),
    ({"type": "window.session", "params": {"gap_ms": 2, "allowed_lateness_ms": -1}}, "params.allowed_lateness_ms"),
    ({"type": "window.tumbling", "params": {"size_ms": 2, "allowed_lateness_ms": 10 ** 15}},
     "params.allowed_lateness_ms"),
    ({"type": "transform.deduplicate", "params": {}}, "params.ttl_ms"),
    ({"type": "aggregate.reduce", "params": {"state_ttl_ms": -5}}, "params.state_ttl_ms"),
    ({"type": "window.count", "params": {"size": 2, "state_ttl_ms": "soon"}}, "params.state_ttl_ms"),
    ({"type": "transform.deduplicate", "params": {"ttl_ms": 5, "keep": "middle"}}, "params.keep"),
])
def test_bad_parameters_are_named_by_node_and_field(operator, field):
    errors = validate_definition(keyed(operator))
    assert [(error["node"], error["field"]) for error in errors] == [("w", field)], errors


def test_a_window_fed_without_a_key_is_refused_naming_the_edge():
    definition = keyed({"type": "window.session", "params": {"gap_ms": 5}})
    definition["edges"][1] = {"id": "b", "from": "time", "to": "w"}
    errors = validate_definition(definition)
    assert [(error["edge"], error["field"]) for error in errors] == [("b", "partitioning")]


# -- named output ports ----------------------------------------------------------------------------

def with_late_edge(operator: dict, port: str = "late", source: str = "w") -> dict:
    definition = keyed(operator)
    definition["nodes"].append({"id": "late", "type": "sink.collect"})
    definition["edges"].append({"id": "d", "from": source, "from_port": port, "to": "late"})
    return definition


@pytest.mark.parametrize("type_,params", [("window.session", {"gap_ms": 5}), ("window.tumbling", {"size_ms": 5}),
                                          ("window.sliding", {"size_ms": 6, "slide_ms": 3})])
def test_event_time_windows_offer_a_late_port_an_edge_may_leave(type_, params):
    spec = operator_spec(type_)
    assert [port["name"] for port in spec["output_ports"]] == ["late"]
    assert validate_definition(with_late_edge({"type": type_, "params": params})) == []


def test_an_edge_from_a_port_the_operator_lacks_is_refused_naming_edge_and_field():
    errors = validate_definition(with_late_edge({"type": "window.session", "params": {"gap_ms": 5}}, port="early"))
    assert [(e["edge"], e["field"]) for e in errors] == [("d", "from_port")]
    assert "its ports: late" in errors[0]["message"]
    errors = validate_definition(with_late_edge({"type": "window.count", "params": {"size": 2}}))
    assert [(e["edge"], e["field"]) for e in errors] == [("d", "from_port")]
    assert "only its main output" in errors[0]["message"]


def test_the_late_port_does_not_stand_in_for_the_main_output():
    definition = with_late_edge({"type": "window.session", "params": {"gap_ms": 5}})
    definition["edges"] = [edge for edge in definition["edges"] if edge["id"] != "c"]
    definition["nodes"] = [node for node in definition["nodes"] if node["id"] != "out"]
    errors = validate_definition(definition)
    assert [(e["node"], e["edge"]) for e in errors] == [("w", None)]
    assert "goes nowhere" in errors[0]["message"]


def test_a_port_edge_is_a_job_edge_of_its_own_never_chained():
    from engine.plan.job_graph import build_job_graph

    definition = normalise_definition(with_late_edge({"type": "window.session", "params": {"gap_ms": 5}}))
    graph = build_job_graph(definition)
    # the main output's forward edge chains (fan-out chaining), the port's never does
    assert {edge.id: edge.source_port for edge in graph.edges} == {"b": None, "d": "late"}
    assert ("w", "out") in [vertex.operator_ids for vertex in graph.vertices]
    # even as the window's only edge, forward and of equal parallelism (the planner does not validate)
    definition["edges"] = [edge for edge in definition["edges"] if edge["id"] != "c"]
    definition["nodes"] = [node for node in definition["nodes"] if node["id"] != "out"]
    graph = build_job_graph(definition)
    assert [vertex.operator_ids for vertex in graph.vertices] == [("gen", "time"), ("w",), ("late",)]
    assert [(edge.id, edge.source_port) for edge in graph.edges] == [("b", None), ("d", "late")]


@pytest.mark.parametrize(("operator", "field"), [
    ({"type": "window.session", "params": {"gap_ms": 5}}, "type"),
    ({"type": "transform.deduplicate", "params": {"ttl_ms": 5}}, "type"),
    ({"type": "aggregate.reduce", "params": {"state_ttl_ms": 100}}, "params.state_ttl_ms"),
    ({"type": "window.count", "params": {"size": 3, "state_ttl_ms": 100}}, "params.state_ttl_ms"),
])
def test_event_time_operators_without_a_watermark_upstream_are_refused_naming_node_and_field(operator, field):
    definition = keyed(operator)
    assert validate_definition(definition) == []
    definition["nodes"][1] = {"id": "time", "type": "transform.map", "params": {"expression": "x"}}
    errors = validate_definition(definition)
    assert [(e["node"], e["field"]) for e in errors] == [("w", field)]
    assert "needs event time" in errors[0]["message"]


def test_without_a_state_ttl_running_aggregates_and_count_windows_need_no_event_time():
    for operator in ({"type": "aggregate.reduce", "params": {}}, {"type": "window.count", "params": {"size": 3}}):
        definition = keyed(operator)
        definition["nodes"][1] = {"id": "time", "type": "transform.map", "params": {"expression": "x"}}
        assert validate_definition(definition) == []
