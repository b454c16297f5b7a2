"""Test cases, saved in the definition beside the pipeline they test: their format and validation.

A definition may carry ``"tests": [...]``, each a test case the engine can run against the
pipeline (``engine.testing``). It is versioned and exported with the pipeline because it
is part of its definition; the engine's own runs leave it aside. A test case::

    {"name": "totals per user",
     "modes": ["batch", "streaming"],                      # the runs that must pass and agree
     "inputs": {"clicks": {"rows": [{"user": 1, "ts": 0}, ...]}},   # per source: what it emits
     "mocks": {"profiles": {"answers": [{"request": "http://users/1", "answer": {"tier": "gold"}}],
                            "expression": "{'tier': 'none'}"}},
     "assertions": [{"node": "sum", "expect": "rows", "rows": [[1, 3]]},
                    {"node": "per_minute", "port": "late", "expect": "empty"},
                    {"node": "out", "expect": "every", "expression": "x['total'] >= 0"}]}

Inputs (per source node; a source without one emits nothing): ``rows``, the records the
source emits, in order; or ``file``, a JSON-lines file (the studio resolves it in the
pipeline's workspace). ``timestamp`` is an expression giving a row's event time, for a
source that stamps event time itself (a Kafka source with ``watermarks``).

Mocks replace what a node would fetch from outside (:data:`MOCKABLE_TYPES`): for a lookup
the answer to its request (the URL of a GET, ``{"url", "body"}`` of a POST, the key of a
Redis lookup), for a Python function the records it emits for one record (a list; the
request is the record). ``answers`` are matched by request first; ``expression`` (over
``x``, the record, and ``request``) answers the rest; an answer may instead be an
``error`` (the lookup fails with it) or come after ``delay_ms``. A request no mock answers
fails the test, naming it.

Assertions name a node (and optionally one of its output ports) and what its output must
be (:data:`EXPECTATIONS`): ``rows`` (exactly these; in order when ``order`` is ``exact``,
as a multiset when ``any``, by default in order only where the node promises one),
``contains`` (at least these), ``count`` (``min`` and/or ``max``), ``every`` / ``none``
(every record / no record satisfies ``expression``), ``unique`` (``expression`` gives a
different value for each record), ``empty`` (no record at all: "nothing on the late port").
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

from engine.spec.catalog import operator_spec, output_port_names
from engine.spec.catalog_schema import EXPRESSION
from engine.spec.expressions import check_expression

MODES = ("batch", "streaming")
EXPECTATIONS = ("rows", "contains", "count", "every", "none", "unique", "empty")
ORDERS = ("auto", "exact", "any")
MOCKABLE_TYPES = frozenset({"lookup.http", "lookup.redis", "transform.python"})
"""Operators that reach outside the pipeline: a test answers for them instead."""
MOCK_NAMES = ("x", "request")
MAX_ROWS = 100_000
MAX_TEST_CASES = 100

_NAME = {"type": "string", "minLength": 1, "maxLength": 200}
_ROWS = {"type": "array", "maxItems": MAX_ROWS}
_COUNT = {"type": "integer", "minimum": 0, "maximum": 10 ** 12}

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"rows": _ROWS, "file": {"type": "string", "minLength": 1, "maxLength": 1000},
                   "timestamp": EXPRESSION},
    "additionalProperties": False,
}
MOCK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answers": {"type": "array", "maxItems": 10_000, "items": {
            "type": "object", "required": ["request"],
            "properties": {"request": {}, "answer": {}, "error": {"type": "string", "minLength": 1, "maxLength": 1000},
                           "delay_ms": {"type": "integer", "minimum": 0, "maximum": 60_000}},
            "additionalProperties": False}},
        "expression": EXPRESSION,
    },
    "additionalProperties": False,
}
ASSERTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["node", "expect"],
    "properties": {
        "node": {"type": "string", "minLength": 1, "maxLength": 100},
        "port": {"type": ["string", "null"], "minLength": 1, "maxLength": 100},
        "expect": {"enum": list(EXPECTATIONS)},
        "rows": _ROWS,
        "order": {"enum": list(ORDERS)},
        "min": _COUNT,
        "max": _COUNT,
        "expression": EXPRESSION,
        "description": {"type": "string", "maxLength": 500},
    },
    "additionalProperties": False,
}
TEST_CASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": _NAME,
        "description": {"type": "string", "maxLength": 2000},
        "modes": {"type": "array", "items": {"enum": list(MODES)}, "minItems": 1, "uniqueItems": True},
        "inputs": {"type": "object", "additionalProperties": INPUT_SCHEMA},
        "mocks": {"type": "object", "additionalProperties": MOCK_SCHEMA},
        "assertions": {"type": "array", "maxItems": 1000, "items": ASSERTION_SCHEMA},
    },
    "additionalProperties": False,
}
TESTS_SCHEMA: dict[str, Any] = {"type": "array", "maxItems": MAX_TEST_CASES, "items": TEST_CASE_SCHEMA}
"""The schema of a definition's ``tests`` (``engine.spec.validation`` checks it with the rest)."""


def problems_of_tests(definition: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for what the schema cannot say about the definition's test cases: nodes
    and ports that are not there, inputs for what is no source, mocks of nodes that reach nothing,
    expressions that do not compile, an assertion missing what its expectation needs."""
    nodes = {node["id"]: node for node in definition["nodes"]}
    tests = definition.get("tests") or []
    for name, count in Counter(case["name"] for case in tests).items():
        if count > 1:
            yield "tests", f"the test case name '{name}' is used {count} times"
    for index, case in enumerate(tests):
        where, label = f"tests.{index}", f"test '{case['name']}'"
        for node_id, given in (case.get("inputs") or {}).items():
            yield from _input_problems(f"{where}.inputs.{node_id}", label, nodes.get(node_id), node_id, given)
        for node_id, mock in (case.get("mocks") or {}).items():
            yield from _mock_problems(f"{where}.mocks.{node_id}", label, nodes.get(node_id), node_id, mock)
        for position, assertion in enumerate(case.get("assertions") or []):
            yield from _assertion_problems(f"{where}.assertions.{position}", label, nodes, assertion)


def _input_problems(field: str, label: str, node: dict | None, node_id: str, given: dict) -> Iterator[tuple[str, str]]:
    spec = operator_spec(node["type"]) if node else None
    if spec is None or not spec["source"]:
        yield field, f"{label}: '{node_id}' is not a source of the pipeline; inputs are given to sources"
    if ("rows" in given) == ("file" in given):
        yield field, f"{label}: the input of '{node_id}' needs either rows or a file"
    yield from _expression_problem(f"{field}.timestamp", label, given.get("timestamp"))


def _mock_problems(field: str, label: str, node: dict | None, node_id: str, mock: dict) -> Iterator[tuple[str, str]]:
    if node is None:
        yield field, f"{label}: there is no node '{node_id}' to mock"
    elif node["type"] not in MOCKABLE_TYPES:
        yield field, (f"{label}: '{node_id}' ({node['type']}) reaches nothing outside the pipeline; mocks answer "
                      f"for {', '.join(sorted(MOCKABLE_TYPES))}")
    if not mock.get("answers") and not mock.get("expression"):
        yield field, f"{label}: the mock of '{node_id}' needs answers or an expression"
    if node is not None and node["type"] == "transform.python":
        for position, answer in enumerate(mock.get("answers") or []):
            if "answer" in answer and not isinstance(answer["answer"], list):
                yield (f"{field}.answers.{position}.answer",
                       f"{label}: a Python function's mock answers with the list of records it emits")
    for position, answer in enumerate(mock.get("answers") or []):
        if ("answer" in answer) == ("error" in answer):
            yield f"{field}.answers.{position}", f"{label}: an answer needs either answer or error"
    yield from _expression_problem(f"{field}.expression", label, mock.get("expression"), MOCK_NAMES)


def _assertion_problems(field: str, label: str, nodes: dict, assertion: dict) -> Iterator[tuple[str, str]]:
    node = nodes.get(assertion["node"])
    if node is None:
        yield f"{field}.node", f"{label}: there is no node '{assertion['node']}'"
        return
    port = assertion.get("port")
    if port is not None and port not in output_port_names(operator_spec(node["type"]) or {}):
        ports = output_port_names(operator_spec(node["type"]) or {})
        yield f"{field}.port", (f"{label}: '{node['id']}' has no output port '{port}'"
                                + (f" (its ports: {', '.join(ports)})" if ports else ""))
    expect = assertion["expect"]
    needs = {"rows": "rows", "contains": "rows", "every": "expression", "none": "expression",
             "unique": "expression"}.get(expect)
    if needs and needs not in assertion:
        yield f"{field}.{needs}", f"{label}: '{expect}' needs {needs}"
    if expect == "count":
        low, high = assertion.get("min"), assertion.get("max")
        if low is None and high is None:
            yield f"{field}.min", f"{label}: 'count' needs min, max or both"
        elif low is not None and high is not None and low > high:
            yield f"{field}.max", f"{label}: max ({high}) is below min ({low})"
    yield from _expression_problem(f"{field}.expression", label, assertion.get("expression"))


def _expression_problem(field: str, label: str, source: Any, names: tuple[str, ...] = ("x",)
                        ) -> Iterator[tuple[str, str]]:
    if isinstance(source, str) and source:
        message = check_expression(source, names)
        if message:
            yield field, f"{label}: invalid expression: {message}"
