"""Pipelines as files: a definition written and read back is the same definition, for every
operator of the catalog and for any JSON a definition may hold; layout apart from logic;
comments a person wrote survive the studio writing the file again; a broken file names its line."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.api import (OPERATOR_CATALOG, PipelineFileError, logic_of, operator_spec, pipeline_from_text,
                        pipeline_to_text, validate_definition)
from engine.spec.catalog import params_with_defaults

OPERATORS = sorted(spec["type"] for spec in OPERATOR_CATALOG)

JSON_SCALARS = st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False, allow_infinity=False) \
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
IDS = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)
POSITIONS = st.fixed_dictionaries({"x": st.integers(-5000, 5000), "y": st.integers(-5000, 5000)})


@st.composite
def definitions(draw) -> dict:
    ids = draw(st.lists(IDS, min_size=1, max_size=6, unique=True))
    nodes = []
    for node_id in ids:
        node = {"id": node_id, "type": draw(st.sampled_from(OPERATORS)),
                "params": draw(st.dictionaries(st.text(min_size=1, max_size=10), JSON_VALUES, max_size=4))}
        if draw(st.booleans()):
            node["ui"] = draw(POSITIONS)
        if draw(st.booleans()):
            node["name"] = draw(st.text(max_size=20))
        nodes.append(node)
    edges = [{"id": f"e{i}", "from": a, "to": b, **({"ui": {"bend": draw(st.lists(st.integers(), max_size=3))}}
                                                     if draw(st.booleans()) else {})}
             for i, (a, b) in enumerate(zip(ids, ids[1:]))]
    definition = {"format": 1, "name": draw(st.text(max_size=20)), "parallelism": draw(st.integers(1, 8)),
                  "nodes": nodes, "edges": edges}
    if draw(st.booleans()):
        definition["ui"] = {"zoom": draw(st.floats(0.1, 4))}
    if draw(st.booleans()):
        definition["checkpointing"] = {"interval_ms": draw(st.integers(1, 10**6))}
    return definition


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(definitions())
def test_any_definition_reads_back_the_same(definition):
    assert pipeline_from_text(pipeline_to_text(definition)) == definition


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(definitions(), st.data())
def test_writing_over_a_file_gives_the_new_definition_whatever_the_old_one_was(old, data):
    new = data.draw(definitions())
    text = pipeline_to_text(new, existing=pipeline_to_text(old))
    assert pipeline_from_text(text) == new


@pytest.mark.parametrize("operator", OPERATORS)
def test_every_catalog_operator_with_its_defaults_round_trips(operator):
    params = params_with_defaults(operator_spec(operator), {})
    definition = {"format": 1, "name": operator, "nodes": [{"id": "n", "type": operator, "params": params,
                                                            "ui": {"x": 1, "y": 2}}], "edges": []}
    text = pipeline_to_text(definition)
    assert pipeline_from_text(text) == definition
    assert pipeline_to_text(pipeline_from_text(text)) == text  # stable: writing again changes nothing


def test_keys_are_in_one_order_whatever_order_the_definition_had():
    a = {"edges": [], "nodes": [{"params": {"expression": "x"}, "type": "transform.map", "id": "m"}],
         "name": "p", "format": 1}
    b = json.loads(json.dumps({"format": 1, "name": "p", "nodes": [{"id": "m", "type": "transform.map",
                                                                    "params": {"expression": "x"}}], "edges": []}))
    assert pipeline_to_text(a) == pipeline_to_text(b)
    assert pipeline_to_text(a).splitlines()[:3] == ["format: 1", "name: p", "nodes:"]


def test_a_layout_change_is_a_change_of_the_layout_section_only():
    before = {"format": 1, "nodes": [{"id": "m", "type": "transform.map", "params": {"expression": "x"},
                                      "ui": {"x": 0, "y": 0}}], "edges": []}
    after = {**before, "nodes": [{**before["nodes"][0], "ui": {"x": 300, "y": 40}}]}
    changed = [line for line in pipeline_to_text(after).splitlines()
               if line not in pipeline_to_text(before).splitlines()]
    assert changed == ["    m: {x: 300, y: 40}"]
    assert logic_of(before) == logic_of(after)
    assert logic_of({**after, "nodes": [{**after["nodes"][0], "params": {"expression": "x + 1"}}]}) != logic_of(before)


def test_comments_a_person_wrote_survive_the_studio_writing_the_file_again():
    definition = {"format": 1, "name": "p", "parallelism": 2,
                  "nodes": [{"id": "src", "type": "source.datagen", "params": {"rate": 100}},
                            {"id": "m", "type": "transform.map", "params": {"expression": "x"}}],
                  "edges": [{"id": "e", "from": "src", "to": "m"}]}
    text = pipeline_to_text(definition)
    text = text.replace("parallelism: 2", "parallelism: 2  # one per core in prod")
    text = text.replace("    expression: x", "    # doubles the value\n    expression: x")
    saved = {**definition, "parallelism": 3,
             "nodes": [definition["nodes"][0], {**definition["nodes"][1], "params": {"expression": "x * 2"}}]}
    rewritten = pipeline_to_text(saved, existing=text)
    assert "parallelism: 3  # one per core in prod" in rewritten
    assert "    # doubles the value\n    expression: x * 2" in rewritten
    assert pipeline_from_text(rewritten) == saved


def test_code_of_several_lines_is_a_block_a_reviewer_can_read():
    code = "import time\n\ndef process(records):\n    return records\n"
    definition = {"format": 1, "nodes": [{"id": "p", "type": "transform.python", "params": {"code": code}}],
                  "edges": []}
    text = pipeline_to_text(definition)
    assert "    code: |\n      import time\n\n      def process(records):\n" in text
    assert pipeline_from_text(text) == definition


@pytest.mark.parametrize("text, line, words", [
    ("format: 1\nnodes: [\n", 3, "expected"),
    ("- a\n- b\n", 1, "a mapping"),
    ("format: 1\nnodes: []\nedges: []\nlayout: 3\n", 4, "layout must be a mapping"),
])
def test_a_broken_file_is_refused_naming_its_line(text, line, words):
    with pytest.raises(PipelineFileError) as refused:
        pipeline_from_text(text)
    assert refused.value.line == line and words in str(refused.value)


def test_a_valid_file_holds_a_valid_definition_and_problems_name_the_node():
    text = ("format: 1\nnodes:\n- id: src\n  type: source.datagen\n  params: {rate: 10}\n"
            "- id: m\n  type: transform.map\n  params: {expression: 'x +'}\nedges:\n- {id: e, from: src, to: m}\n")
    problems = validate_definition(pipeline_from_text(text))
    assert problems and all(problem["node"] == "m" for problem in problems)
