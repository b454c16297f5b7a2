"""Test cases run by the engine: inputs per source, mocks, every kind of assertion, both modes.

Each test case runs bounded and streaming in this process (``engine.api.run_test_case``);
its result says, per assertion and per node, what passed and what did not, with the first
difference. Event time advances row by row, so which record is late is the inputs' doing.
"""
from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest

from engine.api import junit_report, run_test_case, validate_definition
from tests.builders import edge, node, pipeline

ROWS = [{"user": 1, "ts": 1_000, "n": 2}, {"user": 2, "ts": 2_000, "n": 3}, {"user": 1, "ts": 61_000, "n": 5},
        {"user": 1, "ts": 62_000, "n": 4}, {"user": 2, "ts": 130_000, "n": 0}]


def clicks_pipeline(**tests) -> dict:
    """clicks -> big (n > 1) -> time -> hash(user) -> per_minute (count) -> out; big -> totals (sum of n)."""
    definition = pipeline(
        [node("clicks", "source.datagen", count=10), node("big", "transform.filter", predicate="x['n'] > 1"),
         node("time", "transform.watermark", timestamp="x['ts']"),
         node("per_minute", "window.tumbling", size_ms=60_000, function="count", value="1"),
         node("totals", "aggregate.reduce", function="sum", value="x['n']"),
         node("out", "sink.file", path="/nowhere/out"), node("sums", "sink.collect")],
        [edge("clicks", "big"), edge("big", "time"), edge("time", "per_minute", "hash", "x['user']"),
         edge("per_minute", "out", "rebalance"), edge("big", "totals", "hash", "x['user']"), edge("totals", "sums")],
        parallelism=2)
    return {**definition, **tests}


def case(assertions: list, rows=ROWS, **fields) -> dict:
    return {"name": "clicks", "inputs": {"clicks": {"rows": rows}}, "assertions": assertions, **fields}


def test_a_case_whose_assertions_hold_passes_in_both_modes(tmp_path):
    result = run_test_case(clicks_pipeline(), case([
        {"node": "big", "expect": "rows", "rows": [r for r in ROWS if r["n"] > 1]},
        {"node": "per_minute", "expect": "rows", "rows": [[1, 60_000, 1], [2, 60_000, 1], [1, 120_000, 2]]},
        {"node": "per_minute", "port": "late", "expect": "empty"},
        {"node": "totals", "expect": "contains", "rows": [[1, 11]]},
        {"node": "out", "expect": "count", "min": 3, "max": 3},
        {"node": "sums", "expect": "every", "expression": "x[1] > 0"},
        {"node": "sums", "expect": "none", "expression": "x[0] == 3"},
        {"node": "big", "expect": "unique", "expression": "x['ts']"},
    ]), workdir=str(tmp_path))
    assert result["status"] == "passed", result["failures"]
    assert result["modes"] == ["streaming", "batch"]
    assert all(item["passed"] for item in result["assertions"] + result["agreement"])
    assert result["nodes"]["per_minute"]["status"] == "passed"
    assert result["nodes"]["clicks"] == {"count": 5, "records": ROWS, "ports": {}, "status": None}
    written = (tmp_path / "outputs" / "streaming" / "totals.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in written] == [[1, 2], [2, 3], [1, 7], [1, 11]]


@pytest.mark.parametrize("assertion, message", [
    ({"node": "big", "expect": "rows", "rows": [ROWS[1], ROWS[0], ROWS[2], ROWS[3]]},
     "'big' emitted 4 records, 4 expected, in order"),
    ({"node": "totals", "expect": "rows", "rows": [[1, 2], [2, 3], [1, 7]]}, "'totals' emitted 4 records, 3 expected"),
    ({"node": "totals", "expect": "contains", "rows": [[1, 12]]}, "'totals' lacks 1 of the 1 records"),
    ({"node": "out", "expect": "count", "max": 2}, "'out' emitted 3 records, at most 2 expected"),
    ({"node": "sums", "expect": "every", "expression": "x[1] > 5"}, "2 of 4 records of 'sums' do not satisfy"),
    ({"node": "sums", "expect": "none", "expression": "x[0] == 2"}, "1 of 4 records of 'sums' satisfy"),
    ({"node": "big", "expect": "unique", "expression": "x['user']"}, "2 records of 'big' repeat a value"),
    ({"node": "per_minute", "expect": "empty"}, "'per_minute' emitted 3 records, none expected"),
    ({"node": "sums", "expect": "every", "expression": "x['nope'] > 0"}, "the expression failed on 4 records"),
])
def test_each_expectation_fails_naming_what_it_found(tmp_path, assertion, message):
    result = run_test_case(clicks_pipeline(), case([assertion]), workdir=str(tmp_path))
    assert result["status"] == "failed"
    checked = result["assertions"][0]
    assert not checked["passed"] and message in checked["message"], checked["message"]
    assert result["nodes"][assertion["node"]]["status"] == "failed"
    assert result["failures"][0].startswith("assertion 1: ")


def test_rows_compare_in_order_where_the_node_promises_one_and_as_a_multiset_elsewhere(tmp_path):
    swapped = case([{"node": "big", "expect": "rows", "rows": [ROWS[1], ROWS[0], ROWS[2], ROWS[3]]}])
    result = run_test_case(clicks_pipeline(), swapped, workdir=str(tmp_path / "a"))
    difference = result["assertions"][0]["difference"]
    assert difference["order"] == "exact" and difference["at"] == 0
    assert difference["expected"][0] == ROWS[1] and difference["actual"][0] == ROWS[0]

    any_order = case([{"node": "big", "expect": "rows", "order": "any",
                       "rows": [ROWS[1], ROWS[0], ROWS[2], ROWS[3]]},
                      {"node": "per_minute", "expect": "rows", "rows": [[1, 120_000, 2], [2, 60_000, 1],
                                                                       [1, 60_000, 1]]}])
    assert run_test_case(clicks_pipeline(), any_order, workdir=str(tmp_path / "b"))["status"] == "passed"


def test_a_running_aggregate_agrees_when_the_bounded_run_emits_each_keys_final_aggregate(tmp_path):
    """Streaming emits every update of a key's sum, the bounded run the final one (Flink's batch
    semantics): ``totals`` agrees with streaming's last record per key, ``sums`` after it holds some of
    streaming's records, and a window over the sums is not compared between the modes."""
    definition = clicks_pipeline()
    definition["nodes"] += [node("stamp", "transform.watermark", timestamp="x[1]"),
                            node("peak", "window.tumbling", size_ms=10, function="max", value="x[1]"),
                            node("peaks", "sink.collect")]
    definition["edges"] += [edge("totals", "stamp", id="e7"), edge("stamp", "peak", "hash", "x[0]", id="e8"),
                            edge("peak", "peaks", id="e9")]
    result = run_test_case(definition, case([{"node": "totals", "expect": "rows", "rows": [[1, 11], [2, 3]]}],
                                            modes=["batch"]), workdir=str(tmp_path / "b"))
    assert result["status"] == "passed", result["failures"]
    result = run_test_case(definition, case([{"node": "totals", "expect": "contains", "rows": [[1, 11], [2, 3]]}]),
                           workdir=str(tmp_path / "both"))
    assert result["status"] == "passed", result["failures"]
    agreement = {item["node"]: item for item in result["agreement"]}
    assert agreement["totals"]["message"].endswith("agree (each key's final aggregate)")
    assert agreement["sums"]["message"].endswith("agree (after a running aggregate: each key's final records)")
    assert agreement["peaks"]["passed"] and agreement["peaks"]["compared"] is False
    assert agreement["out"]["message"].endswith("runs agree")
    streaming = (tmp_path / "both" / "outputs" / "streaming" / "totals.jsonl").read_text().splitlines()
    bounded = (tmp_path / "both" / "outputs" / "batch" / "totals.jsonl").read_text().splitlines()
    assert len(streaming) == 4 and sorted(map(json.loads, bounded)) == [[1, 11], [2, 3]]


def test_which_record_is_late_is_decided_by_the_rows_and_the_modes_must_agree(tmp_path):
    late = [*ROWS[:3], {"user": 1, "ts": 3_000, "n": 9}]  # after 61 s came, the first minute has fired
    streaming_only = case([{"node": "per_minute", "port": "late", "expect": "rows", "rows": [late[3]]},
                           {"node": "per_minute", "expect": "rows", "rows": [[1, 60_000, 1], [2, 60_000, 1],
                                                                            [1, 120_000, 1]]}],
                          rows=late, modes=["streaming"])
    for attempt in range(3):  # the same every time: no timing in it
        result = run_test_case(clicks_pipeline(), streaming_only, workdir=str(tmp_path / f"s{attempt}"))
        assert result["status"] == "passed", result["failures"]

    both = case([{"node": "per_minute", "port": "late", "expect": "empty"}], rows=late)
    result = run_test_case(clicks_pipeline(), both, workdir=str(tmp_path / "both"))
    assert result["status"] == "failed"
    assert "(streaming)" in result["assertions"][0]["message"]
    disagreements = {(item["node"], item["port"]) for item in result["agreement"] if not item["passed"]}
    assert disagreements == {("out", None), ("per_minute", "late")}


def http_lookup_pipeline(code_calls_out: bool = False) -> dict:
    nodes = [node("orders", "source.datagen", count=3),
             node("profile", "lookup.http", url="f'http://profiles.invalid/users/{x[\"user\"]}'", field="tier",
                  on_error="drop"),
             node("score", "transform.python", code="def process(records):\n    raise RuntimeError('calls out')\n"),
             node("out", "sink.collect")]
    return pipeline(nodes, [edge("orders", "profile"), edge("profile", "score"), edge("score", "out")])


def test_mocks_answer_a_lookup_by_request_or_expression_and_replace_a_python_function(tmp_path):
    mocked = {"name": "mocked", "modes": ["streaming"],
              "inputs": {"orders": {"rows": [{"user": 1}, {"user": 2}, {"user": 3}]}},
              "mocks": {"profile": {"answers": [{"request": "http://profiles.invalid/users/1", "answer": "gold"},
                                                {"request": "http://profiles.invalid/users/2", "error": "refused",
                                                 "delay_ms": 5}],
                                    "expression": "'basic' if x['user'] > 2 else None"},
                        "score": {"expression": "[{**x, 'score': len(x['tier'])}]"}},
              "assertions": [{"node": "profile", "expect": "rows",
                              "rows": [{"user": 1, "tier": "gold"}, {"user": 3, "tier": "basic"}]},
                             {"node": "out", "expect": "rows", "rows": [{"user": 1, "tier": "gold", "score": 4},
                                                                        {"user": 3, "tier": "basic", "score": 5}]}]}
    result = run_test_case(http_lookup_pipeline(), mocked, workdir=str(tmp_path))
    assert result["status"] == "passed", result["failures"]


def test_a_request_no_mock_answers_is_the_tests_error_naming_it(tmp_path):
    strict = {"name": "strict", "modes": ["batch"], "inputs": {"orders": {"rows": [{"user": 9}]}},
              "mocks": {"profile": {"answers": [{"request": "http://profiles.invalid/users/1", "answer": "gold"}]},
                        "score": {"answers": [{"request": {"user": 9}, "answer": []}]}}}
    definition = http_lookup_pipeline()
    definition["nodes"][1]["params"]["on_error"] = "fail"
    result = run_test_case(definition, strict, workdir=str(tmp_path))
    assert result["status"] == "error"
    assert "no mock answer for the request \"http://profiles.invalid/users/9\"" in result["error"]


def test_inputs_come_from_a_json_lines_file_and_a_missing_one_is_named(tmp_path):
    (tmp_path / "clicks.jsonl").write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    from_file = {"name": "file", "inputs": {"clicks": {"file": "clicks.jsonl"}},
                 "assertions": [{"node": "clicks", "expect": "count", "min": 5, "max": 5}]}
    resolve = lambda name: tmp_path / name  # noqa: E731 - the studio resolves in the pipeline's workspace
    result = run_test_case(clicks_pipeline(), from_file, workdir=str(tmp_path / "run"), resolve_file=resolve)
    assert result["status"] == "passed", result["failures"]

    missing = {**from_file, "inputs": {"clicks": {"file": "gone.jsonl"}}}
    result = run_test_case(clicks_pipeline(), missing, workdir=str(tmp_path / "run2"), resolve_file=resolve)
    assert result["status"] == "error" and "'gone.jsonl' of 'clicks' is not there" in result["error"]


def test_a_source_stamping_event_time_itself_is_stamped_from_the_inputs_timestamp(tmp_path):
    definition = pipeline(
        [node("events", "source.kafka", bootstrap_servers="localhost:9", topics=["events"], watermarks=True,
              max_out_of_orderness_ms=0),
         node("per_second", "window.tumbling", size_ms=1_000, function="count", value="1"),
         node("out", "sink.collect")],
        [edge("events", "per_second", "hash", "x['k']"), edge("per_second", "out")])
    rows = [{"k": "a", "at": 100}, {"k": "a", "at": 1_500}, {"k": "a", "at": 200}]
    stamped = {"name": "stamped", "modes": ["streaming"], "inputs": {"events": {"rows": rows, "timestamp": "x['at']"}},
               "assertions": [{"node": "per_second", "expect": "rows", "rows": [["a", 1_000, 1], ["a", 2_000, 1]]},
                              {"node": "per_second", "port": "late", "expect": "rows", "rows": [rows[2]]}]}
    result = run_test_case(definition, stamped, workdir=str(tmp_path))
    assert result["status"] == "passed", result["failures"]


def test_validation_names_every_problem_of_a_test_case():
    definition = clicks_pipeline(tests=[
        {"name": "bad", "inputs": {"big": {"rows": []}, "clicks": {}},
         "mocks": {"big": {"expression": "x +"}},
         "assertions": [{"node": "ghost", "expect": "empty"}, {"node": "big", "port": "late", "expect": "every"},
                        {"node": "out", "expect": "count", "min": 3, "max": 1}]},
        {"name": "bad"}])
    problems = {(problem["field"], problem["message"]) for problem in validate_definition(definition)}
    assert problems == {
        ("tests", "the test case name 'bad' is used 2 times"),
        ("tests.0.inputs.big", "test 'bad': 'big' is not a source of the pipeline; inputs are given to sources"),
        ("tests.0.inputs.clicks", "test 'bad': the input of 'clicks' needs either rows or a file"),
        ("tests.0.mocks.big", "test 'bad': 'big' (transform.filter) reaches nothing outside the pipeline; mocks "
                              "answer for lookup.http, lookup.redis, transform.python"),
        ("tests.0.mocks.big.expression", "test 'bad': invalid expression: syntax error: invalid syntax: the "
                                         "expression ends too early"),
        ("tests.0.assertions.0.node", "test 'bad': there is no node 'ghost'"),
        ("tests.0.assertions.1.port", "test 'bad': 'big' has no output port 'late'"),
        ("tests.0.assertions.1.expression", "test 'bad': 'every' needs expression"),
        ("tests.0.assertions.2.max", "test 'bad': max (1) is below min (3)"),
    }
    assert validate_definition(clicks_pipeline(tests=[case([{"node": "out", "expect": "empty"}])])) == []


def test_junit_reports_each_case_with_its_failures(tmp_path):
    passing = run_test_case(clicks_pipeline(), case([], modes=["batch"]), workdir=str(tmp_path / "a"))
    failing = run_test_case(clicks_pipeline(), {**case([{"node": "out", "expect": "empty"}]), "name": "no output"},
                            workdir=str(tmp_path / "b"))
    report = ElementTree.fromstring(junit_report("clicks & co", [passing, failing]))
    suite = report.find("testsuite")
    assert suite.get("name") == "clicks & co" and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["clicks", "no output"]
    assert cases[0].find("failure") is None
    assert "'out' emitted 3 records, none expected" in cases[1].find("failure").get("message")
