"""The connectors' catalog entries: locations marked, parameters validated like every operator's."""
from __future__ import annotations

from engine.spec import OPERATOR_CATALOG, validate_definition
from engine.spec.catalog import operator_spec

LOCATION_PARAMS = {
    ("source.file", "path"): "path", ("sink.file", "path"): "path", ("source.hybrid", "path"): "path",
    ("source.parquet", "path"): "path", ("sink.parquet", "path"): "path",
    ("source.redis_stream", "url"): "redis", ("sink.redis_stream", "url"): "redis",
    ("source.hybrid", "url"): "redis", ("lookup.redis", "url"): "redis", ("lookup.http", "url"): "url",
    ("sink.postgres", "url"): "postgres", ("source.postgres_cdc", "url"): "postgres",
}


def test_every_parameter_naming_a_location_says_which_kind():
    marked = {(spec["type"], name): schema["x-location"] for spec in OPERATOR_CATALOG
              for name, schema in spec["params_schema"]["properties"].items() if "x-location" in schema}
    assert {key: marked.get(key) for key in LOCATION_PARAMS} == LOCATION_PARAMS


def test_new_connectors_are_sources_and_sinks_of_the_catalog():
    assert operator_spec("source.postgres_cdc")["source"] and operator_spec("source.parquet")["source"]
    assert operator_spec("sink.postgres")["sink"] and operator_spec("sink.parquet")["sink"]


def problems(node: dict) -> list[tuple]:
    definition = {"format": 1, "nodes": [{"id": "gen", "type": "source.datagen"}, node],
                  "edges": [{"id": "e", "from": "gen", "to": node["id"]}]}
    return [(p["node"], p["field"], p["message"]) for p in validate_definition(definition)]


def test_an_upsert_needs_key_columns_and_column_expressions_are_checked():
    found = problems({"id": "pg", "type": "sink.postgres",
                      "params": {"url": "postgresql://h/db", "table": "t", "mode": "upsert",
                                 "columns": {"total": "x[1] +", "k": "x[0]"}}})
    assert ("pg", "params.key", "'key' is a required property") in found
    assert any(field == "params.columns.total" and "invalid expression" in message for _, field, message in found)
    assert not any(field == "params.columns.k" for _, field, _ in found)


def test_cdc_parameters_are_validated():
    found = problems({"id": "cdc", "type": "source.postgres_cdc",
                      "params": {"url": "postgresql://h/db", "tables": [], "slot": "Bad-Name", "snapshot": "maybe"}})
    assert {field for _, field, _ in found} >= {"params.tables", "params.slot", "params.snapshot"}


def test_a_normalised_kafka_definition_normalises_again():
    """A job's definition is normalised by the studio and again by ``submit``: the defaults filled in the first
    time are no problem the second (a source without watermarks holds idle_timeout_ms 0 then)."""
    from engine.api import normalise_definition, validate_definition

    definition = {"format": 1, "name": "k", "nodes": [
        {"id": "in", "type": "source.kafka", "params": {"bootstrap_servers": "h:9092", "topics": ["t"]}},
        {"id": "out", "type": "sink.kafka", "params": {"bootstrap_servers": "h:9092", "topic": "u"}}],
        "edges": [{"id": "e", "from": "in", "to": "out"}]}
    once = normalise_definition(definition)
    assert normalise_definition(once) == once
    definition["nodes"][0]["params"]["idle_timeout_ms"] = 500
    assert [error["field"] for error in validate_definition(definition)] == ["params.idle_timeout_ms"]
