"""The ``lookup.*`` catalog entries: schemas that validate, defaults that match the runtime's."""
from __future__ import annotations

import pytest

from engine.runtime.operators import OPERATOR_FACTORIES
from engine.runtime.operators.async_io import DEFAULTS
from engine.runtime.operators.async_io.lookup import DEFAULT_FIELD
from engine.spec.catalog import operator_spec
from engine.spec.validation import validate_definition


def pipeline(lookup: dict) -> dict:
    return {"format": 1, "name": "lookups", "parallelism": 1,
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 10}},
                      {"id": "look", **lookup},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "a", "from": "gen", "to": "look"}, {"id": "b", "from": "look", "to": "out"}]}


@pytest.mark.parametrize("type_", ["lookup.redis", "lookup.http"])
def test_catalog_entries_are_lookups_with_the_runtime_defaults(type_):
    spec = operator_spec(type_)
    assert spec["category"] == "lookup" and spec["stateful"] and type_ in OPERATOR_FACTORIES
    properties = spec["params_schema"]["properties"]
    for name, default in DEFAULTS.items():
        assert properties[name]["default"] == default, name
    assert properties["field"]["default"] == DEFAULT_FIELD


def test_valid_lookups_pass_validation():
    redis = {"type": "lookup.redis", "params": {"key": "f\"user:{x}\"", "command": "hgetall", "retry": "fixed_delay",
                                                "retry_if": "x[1] is None", "on_timeout": "default",
                                                "default_value": {"tier": "unknown"}}}
    http = {"type": "lookup.http", "params": {"url": "f\"http://svc/{x}\"", "method": "POST", "body": "{\"id\": x}",
                                              "headers": {"X-Team": "a"}, "output_mode": "unordered",
                                              "timeout_ms": None, "retry": "exponential_backoff"}}
    assert validate_definition(pipeline(redis)) == []
    assert validate_definition(pipeline(http)) == []


def test_bad_lookup_params_are_located():
    http = {"type": "lookup.http", "params": {"url": "import os", "capacity": 0, "output_mode": "random",
                                              "on_timeout": "ignore", "retry_if": "r is None"}}
    fields = {problem["field"] for problem in map(dict, validate_definition(pipeline(http)))}
    assert {"params.url", "params.capacity", "params.output_mode", "params.on_timeout", "params.retry_if"} <= fields
    missing = validate_definition(pipeline({"type": "lookup.redis", "params": {}}))
    assert [dict(problem)["field"] for problem in missing] == ["params.key"]
