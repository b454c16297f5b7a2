"""Property: a test case's result equals a plain-Python reference, for random pipelines and inputs.

Hypothesis draws a pipeline of the catalog's deterministic operators -- up to three of map,
filter and flat map, then none or one keyed operator (running aggregate; tumbling, sliding,
session or count window) behind event time -- and rows ``{"k", "v", "t"}`` with out-of-order
times. Python computes what each must emit: the stateless steps as comprehensions, the keyed
operators with the references their model tests use (``test_keyed_operator_models``, whose
windows replay the watermark after every batch: here every row is a batch, as event time
advances in a test case). A streaming-only test case asserts the streaming reference (late
records on the late port included), a bounded one the reference without watermarks (a running
aggregate: each key's final aggregate alone, batch mode's semantics); both
must pass, through the whole test-case path (inputs, harness, collected outputs, assertions).
Joins of two sources (interval and window, inner and left outer) are checked against the joins'
references (``tests/engine/joins_reference``) in bounded test cases, where no record is late.
"""
from __future__ import annotations

import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.api import run_test_case
from tests.builders import edge, node, pipeline
from tests.engine.joins_reference import interval_reference, window_reference
from tests.engine.cluster.test_keyed_operator_models import (FOLDS, reference_count_windows, reference_sessions,
                                                             reference_windows)

STATELESS = {
    "double": (("transform.map", {"expression": '{**x, "v": x["v"] * 2}'}), lambda rows: [
        {**r, "v": r["v"] * 2} for r in rows]),
    "later": (("transform.map", {"expression": '{**x, "t": x["t"] + 7}'}), lambda rows: [
        {**r, "t": r["t"] + 7} for r in rows]),
    "non_negative": (("transform.filter", {"predicate": 'x["v"] >= 0'}), lambda rows: [
        r for r in rows if r["v"] >= 0]),
    "not_two": (("transform.filter", {"predicate": 'x["k"] != 2'}), lambda rows: [r for r in rows if r["k"] != 2]),
    "twice": (("transform.flat_map", {"expression": '[x, {**x, "v": x["v"] + 1}]'}), lambda rows: [
        s for r in rows for s in (r, {**r, "v": r["v"] + 1})]),
}
KEYED = ["none", "reduce", "tumbling", "sliding", "session", "count"]

rows_strategy = st.lists(st.fixed_dictionaries({"k": st.integers(0, 3), "v": st.integers(-5, 5),
                                                "t": st.integers(0, 400)}), max_size=40)


def running(rows: list[dict], function: str, final_only: bool = False) -> Counter:
    """A running aggregate's records; ``final_only`` (a bounded run): each key's final one alone."""
    totals, output = {}, []
    for row in rows:
        value = 1 if function == "count" else row["v"]
        totals[row["k"]] = value if row["k"] not in totals else FOLDS[function](totals[row["k"]], value)
        output.append([row["k"], totals[row["k"]]])
    if final_only:
        output = [[key, total] for key, total in totals.items()]
    return Counter(json.dumps(item) for item in output)


def keyed_operator(kind: str, function: str) -> tuple[dict | None, object]:
    """The operator node's params and a reference ``(rows, streaming, out_of_orderness) -> {"out", "late"}``."""
    value = {"function": function, "value": 'x["v"]'}
    if kind == "reduce":
        return ({"type": "aggregate.reduce", "params": value},
                lambda rows, streaming, ooo: {"out": running(rows, function, final_only=not streaming),
                                              "late": Counter()})
    if kind == "tumbling":
        return ({"type": "window.tumbling", "params": {"size_ms": 50, **value}},
                lambda rows, streaming, ooo: reference_windows(rows, 50, 50, function, 1, ooo, streaming))
    if kind == "sliding":
        return ({"type": "window.sliding", "params": {"size_ms": 60, "slide_ms": 20, **value}},
                lambda rows, streaming, ooo: reference_windows(rows, 60, 20, function, 1, ooo, streaming))
    if kind == "session":
        return ({"type": "window.session", "params": {"gap_ms": 15, **value}},
                lambda rows, streaming, ooo: reference_sessions(rows, 15, function, 1, ooo, streaming))
    if kind == "count":
        return ({"type": "window.count", "params": {"size": 3, "slide": 2, **value}},
                lambda rows, streaming, ooo: {"out": reference_count_windows(rows, 3, 2, function),
                                              "late": Counter()})
    return None, None


def job(steps: list[str], operator: dict | None, out_of_orderness: int) -> dict:
    nodes = [node("src", "source.datagen", count=1)]
    edges = []
    previous = "src"
    for index, step in enumerate(steps):
        (type_, params) = STATELESS[step][0]
        nodes.append(node(f"s{index}", type_, **params))
        edges.append(edge(previous, f"s{index}"))
        previous = f"s{index}"
    if operator is not None:
        nodes += [node("time", "transform.watermark", timestamp='x["t"]', max_out_of_orderness_ms=out_of_orderness),
                  {"id": "op", **operator}]
        edges += [edge(previous, "time"), edge("time", "op", "hash", 'x["k"]')]
        previous = "op"
    nodes.append(node("out", "sink.collect"))
    edges.append(edge(previous, "out", "rebalance"))
    return pipeline(nodes, edges, parallelism=2)


def expected_rows(counts: Counter) -> list:
    return [json.loads(text) for text, count in counts.items() for _ in range(count)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rows=rows_strategy, steps=st.lists(st.sampled_from(sorted(STATELESS)), max_size=3),
       kind=st.sampled_from(KEYED), function=st.sampled_from(sorted(FOLDS)), out_of_orderness=st.sampled_from([0, 30]))
def test_a_test_case_of_a_random_pipeline_passes_with_the_reference_as_its_expectation(
        tmp_path_factory, rows, steps, kind, function, out_of_orderness):
    transformed = rows
    for step in steps:
        transformed = STATELESS[step][1](transformed)
    operator, reference = keyed_operator(kind, function)
    definition = job(steps, operator, out_of_orderness)
    if operator is None:
        last = steps[-1] if steps else None
        target = f"s{len(steps) - 1}" if last else "src"
        cases = [{"name": "stateless", "inputs": {"src": {"rows": rows}},
                  "assertions": [{"node": target, "expect": "rows", "order": "exact", "rows": transformed},
                                 {"node": "out", "expect": "rows", "rows": transformed}]}]
    else:
        cases = []
        for mode in ("streaming", "batch"):
            expected = reference(transformed, mode == "streaming", out_of_orderness)
            assertions = [{"node": "op", "expect": "rows", "rows": expected_rows(expected["out"])}]
            if kind in ("tumbling", "sliding", "session"):
                assertions.append({"node": "op", "port": "late", "expect": "rows",
                                   "rows": expected_rows(expected["late"])})
            cases.append({"name": mode, "modes": [mode], "inputs": {"src": {"rows": rows}}, "assertions": assertions})
    for case in cases:
        result = run_test_case(definition, case, workdir=str(tmp_path_factory.mktemp("case")))
        assert result["status"] == "passed", (case["name"], result.get("failures"), result.get("error"))


JOIN_OUTPUT = '[left["id"], right["id"] if right is not None else None]'
events = st.lists(st.fixed_dictionaries({"k": st.integers(0, 2), "t": st.integers(0, 60)}), max_size=15)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lefts=events, rights=events, kind=st.sampled_from(["interval", "window"]), outer=st.booleans(),
       bounds=st.tuples(st.integers(-10, 5), st.integers(0, 10)), size=st.sampled_from([5, 12]),
       slide=st.sampled_from([None, 4]))
def test_a_bounded_test_case_of_a_join_of_two_sources_equals_the_joins_reference(
        tmp_path_factory, lefts, rights, kind, outer, bounds, size, slide):
    """Two sources, each stamped with event time, joined by key: in a bounded run nothing is late, so the
    joined pairs are the reference's over every record (``tests/engine/joins_reference``)."""
    left_rows = [{**event, "id": index} for index, event in enumerate(lefts)]
    right_rows = [{**event, "id": 1000 + index} for index, event in enumerate(rights)]
    join_type = "left_outer" if outer else "inner"
    if kind == "interval":
        lower, upper = min(bounds), max(bounds)
        params = {"lower_ms": lower, "upper_ms": upper, "join_type": join_type}
        expected = interval_reference([("left", left_rows), ("right", right_rows)], lower, upper, 0, outer)
    else:
        slide = slide if slide is not None and slide < size else None
        params = {"size_ms": size, "join_type": join_type, **({"slide_ms": slide} if slide else {})}
        expected = window_reference([("left", left_rows), ("right", right_rows)], size, slide or size, 0, outer)
    definition = pipeline(
        [node("l", "source.datagen", count=1), node("r", "source.datagen", count=1),
         node("lt", "transform.watermark", timestamp='x["t"]'), node("rt", "transform.watermark", timestamp='x["t"]'),
         node("j", f"join.{kind}", output=JOIN_OUTPUT, **params), node("out", "sink.collect")],
        [edge("l", "lt"), edge("r", "rt"), {**edge("lt", "j", "hash", 'x["k"]'), "side": "left"},
         {**edge("rt", "j", "hash", 'x["k"]'), "side": "right"}, edge("j", "out", "rebalance")], parallelism=2)
    case = {"name": "join", "modes": ["batch"], "inputs": {"l": {"rows": left_rows}, "r": {"rows": right_rows}},
            "assertions": [{"node": "j", "expect": "rows", "rows": expected_rows(expected)},
                           {"node": "j", "port": "late_left", "expect": "empty"}]}
    result = run_test_case(definition, case, workdir=str(tmp_path_factory.mktemp("join")))
    assert result["status"] == "passed", (result.get("failures"), result.get("error"))
