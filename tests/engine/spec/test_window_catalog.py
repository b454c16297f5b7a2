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


def test_session_and_count_windows_are_keyed_catalog_operators_with_the_window_aggregates():
    for type_ in ("window.session", "window.count"):
        spec = operator_spec(type_)
        assert spec["keyed"] and spec["stateful"] and spec["category"] == "window"
        assert spec["params_schema"]["properties"]["function"]["enum"] == ["sum", "count", "min", "max"]
        assert spec["params_schema"]["properties"]["value"]["format"] == "expression"


def test_defaults_fill_in():
    definition = normalise_definition(keyed({"type": "window.count", "params": {"size": 3}}))
    assert definition["nodes"][2]["params"] == {"size": 3, "slide": None, "function": "sum", "value": "x"}


@pytest.mark.parametrize(("operator", "field"), [
    ({"type": "window.session", "params": {}}, "params.gap_ms"),
    ({"type": "window.session", "params": {"gap_ms": 0}}, "params.gap_ms"),
    ({"type": "window.session", "params": {"gap_ms": 10, "function": "avg"}}, "params.function"),
    ({"type": "window.session", "params": {"gap_ms": 10, "value": "x +"}}, "params.value"),
    ({"type": "window.count", "params": {"size": 0}}, "params.size"),
    ({"type": "window.count", "params": {"size": 2, "slide": 10 ** 9}}, "params.slide"),
    ({"type": "window.count", "params": {"size": 2, "gap_ms": 3}}, "params.gap_ms"),
])
def test_bad_parameters_are_named_by_node_and_field(operator, field):
    errors = validate_definition(keyed(operator))
    assert [(error["node"], error["field"]) for error in errors] == [("w", field)], errors


def test_a_window_fed_without_a_key_is_refused_naming_the_edge():
    definition = keyed({"type": "window.session", "params": {"gap_ms": 5}})
    definition["edges"][1] = {"id": "b", "from": "time", "to": "w"}
    errors = validate_definition(definition)
    assert [(error["edge"], error["field"]) for error in errors] == [("b", "partitioning")]
