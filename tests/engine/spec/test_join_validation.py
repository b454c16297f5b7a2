"""Validation of the joins: the edges into one say which side they feed, params name their field."""
from __future__ import annotations

from engine.spec import normalise_definition, validate_definition
from engine.plan.job_graph import build_job_graph
from engine.spec.catalog import operator_spec


def joined(join_type: str = "join.interval", **params) -> dict:
    params = params or ({"lower_ms": -5, "upper_ms": 5} if join_type == "join.interval" else {"size_ms": 10})
    return {
        "format": 1, "parallelism": 2,
        "nodes": [{"id": "orders", "type": "source.datagen", "params": {"expression": '{"user": x % 5, "t": x}'}},
                  {"id": "clicks", "type": "source.datagen", "params": {"expression": '{"user": x % 7, "t": x}'}},
                  {"id": "ot", "type": "transform.watermark", "params": {"timestamp": 'x["t"]'}},
                  {"id": "ct", "type": "transform.watermark", "params": {"timestamp": 'x["t"]'}},
                  {"id": "j", "type": join_type, "params": params},
                  {"id": "out", "type": "sink.collect"}],
        "edges": [{"id": "e1", "from": "orders", "to": "ot"}, {"id": "e2", "from": "clicks", "to": "ct"},
                  {"id": "l", "from": "ot", "to": "j", "partitioning": "hash", "key": 'x["user"]', "side": "left"},
                  {"id": "r", "from": "ct", "to": "j", "partitioning": "hash", "key": 'x["user"]', "side": "right"},
                  {"id": "o", "from": "j", "to": "out"}],
    }


def located(definition) -> set:
    return {(e["node"], e["edge"], e["field"]) for e in validate_definition(definition)}


def test_a_join_with_a_left_and_a_right_hash_edge_is_valid_and_the_plan_keeps_the_sides():
    for join_type in ("join.interval", "join.window"):
        definition = joined(join_type)
        assert validate_definition(definition) == []
        graph = build_job_graph(normalise_definition(definition))
        assert {edge.id: edge.side for edge in graph.edges if edge.target_node == "j"} == {"l": "left", "r": "right"}


def test_an_edge_into_a_join_without_a_side_is_named():
    definition = joined()
    del definition["edges"][3]["side"]
    errors = validate_definition(definition)
    assert ("j", None, None) in located(definition) and (None, "r", "side") in located(definition)
    assert any("side: left or right" in e["message"] for e in errors if e["edge"] == "r")


def test_two_edges_on_one_side_and_a_side_on_an_ordinary_edge_are_named():
    definition = joined()
    definition["edges"][3]["side"] = "left"
    definition["edges"][0]["side"] = "left"
    assert {(None, "r", "side"), (None, "e1", "side"), ("j", None, None)} <= located(definition)


def test_a_join_with_one_input_or_a_non_hash_side_is_refused():
    definition = joined()
    definition["edges"] = [e for e in definition["edges"] if e["id"] != "r"]
    assert ("j", None, None) in located(definition)
    definition = joined()
    definition["edges"][2] = {**definition["edges"][2], "partitioning": "rebalance", "key": None}
    assert (None, "l", "partitioning") in located(definition)


def test_bad_params_name_their_field():
    assert ("j", None, "params.upper_ms") in located(joined(lower_ms=5, upper_ms=-5))
    assert ("j", None, "params.lower_ms") in located(joined(upper_ms=5))
    assert ("j", None, "params.slide_ms") in located(joined("join.window", size_ms=10, slide_ms=20))
    assert ("j", None, "params.allowed_lateness_ms") in located(
        joined("join.window", size_ms=10, allowed_lateness_ms=-1))


def test_both_joins_take_a_join_type_and_a_bad_one_names_the_node_and_field():
    for join_type in ("join.interval", "join.window"):
        assert operator_spec(join_type)["params_schema"]["properties"]["join_type"]["enum"] == ["inner", "left_outer"]
        definition = joined(join_type)
        definition["nodes"][4]["params"]["join_type"] = "left_outer"
        assert validate_definition(definition) == [], join_type
        definition["nodes"][4]["params"]["join_type"] = "full_outer"
        (error,) = validate_definition(definition)
        assert (error["node"], error["edge"], error["field"]) == ("j", None, "params.join_type"), join_type
        assert "'full_outer' is not one of ['inner', 'left_outer']" in error["message"], join_type


def test_the_output_expression_sees_left_and_right_not_x():
    assert validate_definition(joined(lower_ms=0, upper_ms=1, output='{**left, "p": right["p"]}')) == []
    definition = joined(lower_ms=0, upper_ms=1, output="x")
    (error,) = validate_definition(definition)
    assert (error["node"], error["field"]) == ("j", "params.output")
    assert "left, right" in error["message"]


def test_the_catalog_declares_two_named_inputs():
    for join_type in ("join.interval", "join.window"):
        spec = operator_spec(join_type)
        assert spec["inputs"] == 2 and spec["input_sides"] == ["left", "right"] and spec["keyed"]


def test_late_records_of_each_side_leave_through_their_own_port():
    definition = joined()
    definition["nodes"].append({"id": "late", "type": "sink.collect"})
    definition["edges"].append({"id": "lp", "from": "j", "to": "late", "from_port": "late_right"})
    assert validate_definition(definition) == []
    definition["edges"][-1]["from_port"] = "late"
    assert (None, "lp", "from_port") in located(definition)
    assert [port["name"] for port in operator_spec("join.window")["output_ports"]] == ["late_left", "late_right"]
