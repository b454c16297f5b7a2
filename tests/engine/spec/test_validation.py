"""Validation reports every problem at once, each located at its node, edge or field."""
import copy

import pytest

from engine.spec import ValidationError, normalise_definition, validate_definition
from tests.support import simple_pipeline


def located(errors):
    return {(e["node"], e["edge"], e["field"]) for e in errors}


def test_valid_pipeline_has_no_errors():
    assert validate_definition(simple_pipeline()) == []


def test_unknown_operator_type_names_the_node_and_field():
    definition = simple_pipeline()
    definition["nodes"][1]["type"] = "transform.teleport"
    errors = validate_definition(definition)
    assert located(errors) == {("double", None, "type")}
    assert "transform.teleport" in errors[0]["message"]


def test_dangling_edge_names_the_edge_and_end():
    definition = simple_pipeline()
    definition["edges"].append({"id": "e3", "from": "double", "to": "nowhere"})
    errors = validate_definition(definition)
    assert (None, "e3", "to") in located(errors)
    assert any("nowhere" in e["message"] for e in errors)


def test_cycle_names_every_edge_on_it():
    definition = {
        "format": 1,
        "nodes": [
            {"id": "gen", "type": "source.datagen"},
            {"id": "u", "type": "transform.union"},
            {"id": "a", "type": "transform.map", "params": {"expression": "x"}},
            {"id": "out", "type": "sink.collect"},
        ],
        "edges": [
            {"id": "g-u", "from": "gen", "to": "u"}, {"id": "u-a", "from": "u", "to": "a"},
            {"id": "a-u", "from": "a", "to": "u"}, {"id": "a-out", "from": "a", "to": "out"},
        ],
    }
    cycle_edges = {e["edge"] for e in validate_definition(definition) if "cycle" in e["message"]}
    assert cycle_edges == {"u-a", "a-u"}


def test_wrong_param_type_names_the_param():
    definition = simple_pipeline()
    definition["nodes"][0]["params"]["count"] = "many"
    errors = validate_definition(definition)
    assert located(errors) == {("gen", None, "params.count")}


@pytest.mark.parametrize("where", ["parallelism", "checkpointing.interval_ms", "nodes.0.parallelism",
                                   "nodes.0.params.count"])
def test_an_integer_is_a_json_integer_not_a_float_with_no_fraction(where):
    """JSON Schema counts 2.0 as an integer; a parallelism of 2.0 then failed the plan (a 500 from the studio)."""
    definition = simple_pipeline()
    *path, name = [int(part) if part.isdigit() else part for part in where.split(".")]
    holder = definition
    for part in path:
        holder = holder[part]
    whole = 100 if name == "interval_ms" else 1
    holder[name] = float(whole)
    problems = validate_definition(definition)
    node, field = ("gen", where.split(".", 2)[2]) if where.startswith("nodes.") else (None, where)
    assert any(problem["message"].startswith(f"{float(whole)} is not of type 'integer'")
               and (problem["node"], problem["field"]) == (node, field) for problem in problems), problems
    holder[name] = whole
    assert validate_definition(definition) == []


def test_missing_required_and_unknown_params_are_named():
    definition = simple_pipeline()
    definition["nodes"][1]["params"] = {"expresion": "x"}
    assert located(validate_definition(definition)) == {("double", None, "params.expression"),
                                                         ("double", None, "params.expresion")}


def test_all_problems_are_reported_at_once():
    definition = simple_pipeline()
    definition["nodes"][0]["params"]["count"] = -1
    definition["nodes"][1]["params"]["expression"] = "x.__class__"
    definition["edges"].append({"id": "e3", "from": "ghost", "to": "out"})
    assert located(validate_definition(definition)) == {
        ("gen", None, "params.count"), ("double", None, "params.expression"), (None, "e3", "from")}


def test_unsafe_expression_is_rejected_with_the_field():
    definition = simple_pipeline(expression="__import__('os').system('true')")
    errors = validate_definition(definition)
    assert located(errors) == {("double", None, "params.expression")}


def test_hash_edge_needs_a_valid_key_and_keyed_operators_need_hash():
    definition = simple_pipeline()
    definition["nodes"].insert(2, {"id": "sum", "type": "aggregate.reduce", "params": {}})
    definition["edges"] = [
        {"id": "e1", "from": "gen", "to": "double"},
        {"id": "e2", "from": "double", "to": "sum", "partitioning": "hash"},
        {"id": "e3", "from": "sum", "to": "out", "partitioning": "rebalance", "key": "x"},
    ]
    assert located(validate_definition(definition)) == {(None, "e2", "key"), (None, "e3", "key")}
    definition["edges"][1]["partitioning"] = "rebalance"
    assert (None, "e2", "partitioning") in located(validate_definition(definition))


def test_forward_edge_needs_equal_parallelism():
    definition = simple_pipeline()
    definition["nodes"][1]["parallelism"] = 3
    assert located(validate_definition(definition)) >= {(None, "e1", "partitioning"), (None, "e2", "partitioning")}


def test_ports_sources_without_inputs_and_sinks_without_outputs():
    definition = simple_pipeline()
    definition["edges"].append({"id": "back", "from": "out", "to": "gen"})
    messages = {(e["node"], e["message"]) for e in validate_definition(definition)}
    assert ("gen", "a source takes no input edges") in messages
    assert ("out", "a sink has no outputs") in messages


def test_duplicate_ids_and_malformed_structure():
    definition = simple_pipeline()
    definition["nodes"].append(copy.deepcopy(definition["nodes"][1]))
    assert ("double", None, "id") in located(validate_definition(definition))
    assert validate_definition([1, 2]) == [{"node": None, "edge": None, "field": None,
                                            "message": "a pipeline definition must be a JSON object"}]
    bad = {"format": 2, "nodes": [{"id": "x y", "type": "source.datagen"}], "edges": "none"}
    assert {e["field"] for e in validate_definition(bad)} >= {"format", "edges"}
    assert any(e["node"] == "x y" and e["field"] == "id" for e in validate_definition(bad))


def test_normalise_fills_defaults_and_raises_on_errors():
    normalised = normalise_definition(simple_pipeline())
    assert normalised["checkpointing"]["mode"] == "exactly_once"
    assert normalised["nodes"][2]["params"] == {"max_records": 1000}
    assert normalised["edges"][0]["partitioning"] == "forward"
    assert normalised["nodes"][0]["parallelism"] == 1
    with pytest.raises(ValidationError) as raised:
        normalise_definition({"format": 1, "nodes": [], "edges": []})
    assert raised.value.errors == [{"node": None, "edge": None, "field": None, "message": "the pipeline has no source"}]


def test_unaligned_checkpoints_are_accepted_with_exactly_once_and_contradictions_named():
    definition = simple_pipeline()
    definition["checkpointing"] = {"unaligned": True, "aligned_timeout_ms": 500, "max_aligned_bytes": 1 << 20}
    assert validate_definition(definition) == []
    definition["checkpointing"] = {"unaligned": True, "mode": "at_least_once"}
    assert located(validate_definition(definition)) == {(None, None, "checkpointing.unaligned")}
    definition["checkpointing"] = {"unaligned": False, "aligned_timeout_ms": 500}
    errors = validate_definition(definition)
    assert located(errors) == {(None, None, "checkpointing.aligned_timeout_ms")}
    assert "needs unaligned: true" in errors[0]["message"]
    definition["checkpointing"] = {"max_aligned_bytes": -1}
    assert located(validate_definition(definition)) == {(None, None, "checkpointing.max_aligned_bytes")}


def _numeric_schemas(schema, path=""):
    """Every (path, schema) of an integer or number in a JSON Schema, however deeply nested."""
    if not isinstance(schema, dict):
        return
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "integer" in kinds or "number" in kinds:
        yield path, schema
    for name, child in schema.get("properties", {}).items():
        yield from _numeric_schemas(child, f"{path}.{name}".lstrip("."))
    if isinstance(schema.get("items"), dict):
        yield from _numeric_schemas(schema["items"], f"{path}[]")


def test_every_number_a_definition_or_an_operator_takes_has_a_maximum():
    """Issue 16: count 10^30, windows of 10^30 ms and 10^12 restart attempts were accepted."""
    from engine.spec.catalog import OPERATOR_CATALOG
    from engine.spec.validation import DEFINITION_SCHEMA

    numbers = [("definition." + path, schema) for path, schema in _numeric_schemas(DEFINITION_SCHEMA)]
    for spec in OPERATOR_CATALOG:
        numbers += [(f"{spec['type']}.{path}", schema) for path, schema in _numeric_schemas(spec["params_schema"])]
    assert len(numbers) > 30
    assert [path for path, schema in numbers if "maximum" not in schema] == []


def test_a_plugin_with_a_number_without_a_maximum_is_refused_naming_it():
    """The invariant above holds for plugins too, whatever tests registered one before it ran."""
    from engine.api import operator_spec, register_operator

    spec = copy.deepcopy(operator_spec("transform.map"))
    spec.update(type="transform.unbounded_test", params_schema={
        "type": "object", "additionalProperties": False,
        "properties": {"delay_ms": {"type": "number", "minimum": 0},
                       "limits": {"type": "array", "items": {"type": "integer", "maximum": 9}},
                       "weights": {"type": "object", "additionalProperties": {"type": ["integer", "null"]}}}})
    spec.pop("plugin", None)
    with pytest.raises(ValueError, match=r"'transform.unbounded_test': params.delay_ms, params.weights.\* have no maximum"):
        register_operator(spec, "engine.runtime.operators.transform:MapOperator")
    assert operator_spec("transform.unbounded_test") is None


@pytest.mark.parametrize(("change", "field", "node"), [
    (lambda d: d["nodes"][0]["params"].update(count=10 ** 30), "params.count", "gen"),
    (lambda d: d.update(restart={"attempts": 10 ** 12}), "restart.attempts", None),
    (lambda d: d.update(parallelism=10 ** 6), "parallelism", None),
    (lambda d: d["checkpointing"].update(interval_ms=10 ** 30), "checkpointing.interval_ms", None),
    (lambda d: d["nodes"][0]["params"].update(rate=1e300), "params.rate", "gen"),
])
def test_absurd_numbers_are_refused_naming_the_field(change, field, node):
    definition = simple_pipeline()
    change(definition)
    errors = validate_definition(definition)
    assert [(error["node"], error["field"]) for error in errors] == [(node, field)]
    assert "is greater than the maximum" in errors[0]["message"]


def test_a_window_of_ten_to_the_thirty_ms_is_refused():
    definition = simple_pipeline()
    definition["nodes"][1:2] = [{"id": "time", "type": "transform.watermark", "params": {"timestamp": "x"}},
                                {"id": "w", "type": "window.tumbling", "params": {"size_ms": 10 ** 30}}]
    definition["edges"] = [{"id": "t", "from": "gen", "to": "time"},
                           {"id": "a", "from": "time", "to": "w", "partitioning": "hash", "key": "x % 2"},
                           {"id": "b", "from": "w", "to": "out"}]
    assert [(error["node"], error["field"]) for error in validate_definition(definition)] == [("w", "params.size_ms")]
