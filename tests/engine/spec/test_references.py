"""``${param:name}`` and ``${secret:name}``: found where they are written, filled in with their types, unknown
names located, and a definition holding them validated before it has values; a filled-in job runs in-process."""
from __future__ import annotations

import doctest

import engine.spec.references as references
from engine.api import (InProcess, about_places, fill_parameters, fill_secrets, references_in, run,
                        stand_in_references, validate_definition)
from tests.support import simple_pipeline


def parameterised() -> dict:
    definition = simple_pipeline(count=None, expression="x * ${param:factor}")
    definition["parallelism"] = "${param:parallelism}"
    definition["checkpointing"]["interval_ms"] = "${param:interval}"
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    definition["nodes"][0]["ui"] = {"label": "${param:not_logic}"}  # the layout is not what a run does
    return definition


def test_the_module_examples_run():
    assert doctest.testmod(references).failed == 0


def test_references_are_found_with_their_node_and_field():
    found = [(ref.kind, ref.name, ref.node, ref.field, ref.whole) for ref in references_in(parameterised())]
    assert found == [("param", "parallelism", None, "parallelism", True),
                     ("param", "interval", None, "checkpointing.interval_ms", True),
                     ("param", "count", "gen", "params.count", True),
                     ("param", "factor", "double", "params.expression", False)]


def test_a_whole_reference_keeps_its_values_type_an_inner_one_becomes_text():
    filled, problems = fill_parameters(parameterised(), {"parallelism": 2, "interval": 100, "count": 7,
                                                         "factor": 1.5, "not_logic": "x"})
    assert problems == []
    assert (filled["parallelism"], filled["checkpointing"]["interval_ms"], filled["nodes"][0]["params"]["count"]) \
        == (2, 100, 7)
    assert filled["nodes"][1]["params"]["expression"] == "x * 1.5"
    assert filled["nodes"][0]["ui"] == {"label": "${param:not_logic}"}
    assert validate_definition(filled) == []


def test_unknown_names_are_problems_naming_node_and_field_and_secrets_wait_for_the_driver():
    definition = simple_pipeline(expression="x if '${secret:token}' != '${param:who}' else 0")
    filled, problems = fill_parameters(definition, {})
    assert problems == [{"node": "double", "edge": None, "field": "params.expression",
                         "message": "unknown parameter 'who' (known: none)"}]
    assert "${secret:token}" in filled["nodes"][1]["params"]["expression"]  # parameters leave secrets alone
    secret_filled, problems = fill_secrets(definition, {"token": "s3cr3t"})
    assert secret_filled["nodes"][1]["params"]["expression"] == "x if 's3cr3t' != '${param:who}' else 0"
    assert problems == []
    assert fill_secrets(definition, {})[1] == [{"node": "double", "edge": None, "field": "params.expression",
                                               "message": "unknown secret 'token': no secret of that name is yours"}]


def test_a_parameter_may_bring_a_secret_in():
    definition = simple_pipeline(expression="len('${param:auth}')")
    filled, _ = fill_parameters(definition, {"auth": "Bearer ${secret:token}"})
    assert fill_secrets(filled, {"token": "abc"})[0]["nodes"][1]["params"]["expression"] == "len('Bearer abc')"


def test_a_definition_with_references_validates_everything_else_before_it_has_values():
    definition = parameterised()
    definition["nodes"][1]["params"]["capacity"] = "not a param"  # a real problem elsewhere is still found
    definition["edges"][0]["partitioning"] = "sideways"
    stood_in, places = stand_in_references(definition)
    problems = [problem for problem in validate_definition(stood_in) if not about_places(problem, places)]
    assert problems and all(problem["field"] != "parallelism" for problem in problems)
    assert any(problem.get("edge") == "e1" for problem in problems)
    assert validate_definition(stand_in_references(parameterised())[0]) == []


def test_a_filled_in_job_runs_in_process_with_the_environments_values(tmp_path):
    dev, _ = fill_parameters(parameterised(), {"parallelism": 1, "interval": 100, "count": 5, "factor": 2})
    prod, _ = fill_parameters(parameterised(), {"parallelism": 2, "interval": 100, "count": 8, "factor": 10})
    dev_out = run(dev, InProcess(), checkpoint_dir=str(tmp_path / "dev")).collected["out"]
    prod_out = run(prod, InProcess(), checkpoint_dir=str(tmp_path / "prod")).collected["out"]
    assert sorted(dev_out) == [2 * x for x in range(5)]
    assert sorted(prod_out) == [10 * x for x in range(8)]
