"""Expectations: counts per rule and the records each action routes equal a plain-Python
evaluation of the same rules (random rules in process and on Spark, where a violated fail rule
must fail the run naming it), and stay exact when subtasks die and restore (in process at
random kill points, and slots killed on both deployments)."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.api import expectation_counts, validate_definition
from engine.cluster.local import LocalCluster
from engine.plan.job_graph import build_job_graph
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import KillOnce, KillSeries, committed
from tests.support import assert_exactly_once

RECORD = '{"n": x, "a": x % 7, "b": x * 13 % 11, **({"c": x % 5} if x % 3 else {})}'
"""Records of the datagen source; ``c`` is missing from every third record (a rule on it then fails)."""


def record_of(x: int) -> dict:
    return {"n": x, "a": x % 7, "b": x * 13 % 11, **({"c": x % 5} if x % 3 else {})}


OPERATORS = {"<": lambda v, c: v < c, ">=": lambda v, c: v >= c, "==": lambda v, c: v == c,
             "!=": lambda v, c: v != c}


def holds(rule: tuple, record: dict) -> bool:
    """The plain-Python meaning of a rule: a missing field violates it."""
    field, operator, constant = rule
    return field in record and OPERATORS[operator](record[field], constant)


def expectation(name: str, rule: tuple, action: str, port: str) -> dict:
    field, operator, constant = rule
    result = {"name": name, "rule": f'x["{field}"] {operator} {constant}', "action": action}
    if action == "quarantine":
        result["port"] = port
    return result


def quality_job(tmp: Path, count: int, node_rules: list, edge_rules: list, *, rate: float = 0,
                parallelism: int = 2, attempts: int = 0) -> dict:
    """gen -> m (node rules) -e-> out (edge rules on e); quarantine ports to their own file sinks."""
    checked = {**node("m", "transform.map", expression="x"),
               "expectations": [expectation(f"n{i}", rule, action, "bad") for i, (rule, action) in
                                enumerate(node_rules)]}
    main = {**edge("m", "out", "rebalance"), "id": "e",
            "expectations": [expectation(f"e{i}", rule, action, "bad_edge") for i, (rule, action) in
                             enumerate(edge_rules)]}
    nodes = [node("gen", "source.datagen", count=count, rate=rate, expression=RECORD), checked,
             node("out", "sink.file", path=str(tmp / "out"))]
    edges = [edge("gen", "m"), main]
    for port, rules in (("bad", node_rules), ("bad_edge", edge_rules)):
        if any(action == "quarantine" for _, action in rules):
            nodes.append(node(port, "sink.file", path=str(tmp / port)))
            edges.append({**edge("m", port, "rebalance"), "from_port": port})
    return pipeline(nodes, edges, parallelism=parallelism, interval_ms=50,
                    restart={"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 5})


def evaluate(records: list[dict], rules: list) -> tuple[list[int], list[dict], list[dict], int]:
    """One check in plain Python: the violations per rule, the records it passes on, those it
    quarantines and how many it drops."""
    violated = [0] * len(rules)
    passed, quarantined = [], []
    dropped = 0
    for record in records:
        bad = [not holds(rule, record) for rule, _ in rules]
        for i, flag in enumerate(bad):
            violated[i] += flag
        held = any(flag and action in ("drop", "quarantine") for flag, (_, action) in zip(bad, rules))
        to_port = any(flag and action == "quarantine" for flag, (_, action) in zip(bad, rules))
        if not held:
            passed.append(record)
        elif to_port:
            quarantined.append(record)
        else:
            dropped += 1
    return violated, passed, quarantined, dropped


def expected_outcome(count: int, node_rules: list, edge_rules: list) -> dict:
    records = [record_of(x) for x in range(count)]
    outcome = {}
    for scope, prefix, rules in (("node:m", "n", node_rules), ("edge:e", "e", edge_rules)):
        if not rules:
            outcome[scope + "/out"] = records
            continue
        violated, passed, quarantined, dropped = evaluate(records, rules)
        outcome[scope] = {"records": len(records), "dropped": dropped, "quarantined": len(quarantined),
                          "rules": {f"{prefix}{i}": {"action": action, "violated": violated[i]}
                                    for i, (_, action) in enumerate(rules)}}
        outcome[scope + "/quarantined"] = quarantined
        records = passed
    outcome["out"] = records
    return outcome


def as_lines(records) -> Counter:
    return Counter(json.dumps(record, sort_keys=True) for record in records)


def final_counts(result) -> dict:
    final = [event for event in result.events if event["type"] == "metrics"][-1]
    return expectation_counts(final["tasks"].values())


def assert_matches_plain_python(tmp: Path, result, count: int, node_rules: list, edge_rules: list,
                                context: str) -> None:
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    want = expected_outcome(count, node_rules, edge_rules)
    counts = final_counts(result)
    for scope in ("node:m", "edge:e"):
        if scope in want:
            assert counts.get(scope) == want[scope], f"{context}: counts of {scope}"
        else:
            assert scope not in counts
    assert_exactly_once(as_lines(committed(tmp / "out")), as_lines(want["out"]), f"{context}: main output")
    for scope, port in (("node:m", "bad"), ("edge:e", "bad_edge")):
        if (tmp / port).exists():
            assert_exactly_once(as_lines(committed(tmp / port)), as_lines(want[scope + "/quarantined"]),
                                f"{context}: quarantine port {port}")


CHECKPOINT_POINTS = ["snapshot", "async_upload", "before_ack", "before_commit", "after_commit"]
KILL_POINTS = {"gen": ["source_poll", *CHECKPOINT_POINTS]}
"""Points each subtask passes while the job runs, whatever the rules drop (a source polls, others get barriers)."""


def kill_any(tasks: list[tuple]):
    """A ``KillSeries`` arm: any of ``tasks`` at one of the points it passes whatever the rules drop."""
    def arm(rng) -> KillOnce:
        task = rng.choice(tasks)
        return KillOnce(rng.choice(KILL_POINTS.get(task[0], ["barrier", *CHECKPOINT_POINTS])), task)
    return arm


rules = st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from(sorted(OPERATORS)), st.integers(0, 10))
placed = st.lists(st.tuples(rules, st.sampled_from(["warn", "drop", "quarantine"])), max_size=3)


@pytest.mark.timeout(600)
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)
@given(node_rules=placed, edge_rules=placed, kills=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_counts_and_routed_records_equal_plain_python_despite_kills(tmp_path_factory, node_rules, edge_rules,
                                                                   kills, seed):
    tmp = tmp_path_factory.mktemp("quality")
    count = 1500
    job = quality_job(tmp, count, node_rules, edge_rules, attempts=kills + 2)
    vertices = [vertex.id for vertex in build_job_graph(job).vertices if not vertex.id.startswith("bad")]
    killer = KillSeries(seed, kills, arm=kill_any([(vertex, index) for vertex in vertices for index in (0, 1)]))
    # about ten checkpoints over the input, however loaded the machine: time for every kill to find its point
    pacing = {"source_pacing": {"records_per_checkpoint": 80}} if kills else {}
    result = LocalCluster(config={"batch_size": 32, **pacing}).run(job, kill_hook=killer, timeout=120,
                                                         checkpoint_dir=str(tmp / "checkpoints"))
    context = f"seed {seed}, kills {killer.fired}"
    assert_matches_plain_python(tmp, result, count, node_rules, edge_rules, context)
    assert len(killer.fired) >= min(kills, 1), context
    assert min(1, len(killer.fired)) <= result.restarts <= len(killer.fired), context  # two kills may share one


checked = st.lists(st.tuples(rules, st.sampled_from(["warn", "drop", "quarantine", "fail"])), max_size=3)
SPARK_NODE_RULES = [(("a", "!=", 3), "drop"), (("b", ">=", 2), "warn"), (("a", "<", 7), "fail")]
SPARK_EDGE_RULES = [(("c", "<", 4), "quarantine"), (("b", "!=", 11), "fail")]
"""Rules whose fail rules no record violates: the run finishes and every count is checked, 0 for the fail rules."""


@pytest.mark.spark
@pytest.mark.timeout(300)
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)
@example(node_rules=SPARK_NODE_RULES, edge_rules=SPARK_EDGE_RULES)
@example(node_rules=[(("a", ">=", 1), "warn")], edge_rules=[(("b", "<", 9), "drop"), (("c", "!=", 2), "fail")])
@given(node_rules=checked, edge_rules=checked)
def test_on_spark_counts_and_routed_records_equal_plain_python_and_a_violated_fail_rule_fails_the_run(
        spark_session, tmp_path_factory, node_rules, edge_rules):
    """The property above on Spark barrier stages (no kills: ``test_counts_stay_exact_when_slots_die``
    kills slots there), with ``fail`` among the actions: when plain Python says a record reaching a
    fail rule violates it, the run fails naming such a rule and a record violating it; otherwise it
    finishes with every rule's count, the fail rules' 0 included, equal to plain Python's."""
    from tests.engine.deployers import SparkDeployment

    tmp = tmp_path_factory.mktemp("quality-spark")
    count = 600
    job = quality_job(tmp, count, node_rules, edge_rules)
    result = SparkDeployment(spark_session).run(job, checkpoint_dir=str(tmp / "checkpoints"), timeout=120)
    failing = violated_fail_rules(count, node_rules, edge_rules)
    if not failing:
        assert_matches_plain_python(tmp, result, count, node_rules, edge_rules, "spark")
        return
    assert result.status == "FAILED", f"{failing} are violated: {result.status}"
    named = re.search(r"expectation '(\w+)' of (node|edge) '\w+' failed: rule .*? does not hold for record ",
                      result.failure or "")
    assert named, result.failure
    name, kind = named.groups()
    sample, _ = json.JSONDecoder().raw_decode(result.failure, named.end())
    assert (kind, name) in failing, (result.failure, failing)
    assert not holds(failing[(kind, name)], sample), result.failure


def violated_fail_rules(count: int, node_rules: list, edge_rules: list) -> dict[tuple[str, str], tuple]:
    """``{(node | edge, rule name): rule}`` of the fail rules some record reaching them violates."""
    records = [record_of(x) for x in range(count)]
    failing = {}
    for kind, prefix, rules in (("node", "n", node_rules), ("edge", "e", edge_rules)):
        for i, (rule, action) in enumerate(rules):
            if action == "fail" and any(not holds(rule, record) for record in records):
                failing[(kind, f"{prefix}{i}")] = rule
        records = evaluate(records, rules)[1] if rules else records
    return failing


FIXED_NODE_RULES = [(("a", "!=", 3), "drop"), (("c", "<", 4), "quarantine"), (("b", ">=", 2), "warn")]
FIXED_EDGE_RULES = [(("b", "!=", 7), "quarantine"), (("a", "<", 6), "drop")]


@pytest.mark.timeout(400)
def test_counts_stay_exact_when_slots_die(deployment, tmp_path):
    """Two slots killed (SIGKILL on Spark) after checkpoints; the restored counts continue exactly, and
    every completed checkpoint's counts are at most the final ones."""
    from tests.engine.deployers import run_with_kills

    count = 3000
    job = quality_job(tmp_path, count, FIXED_NODE_RULES, FIXED_EDGE_RULES, rate=600, attempts=5)
    result, killed = run_with_kills(deployment, job, kills=2, seed=11, checkpoint_dir=str(tmp_path / "c"),
                                    timeout=300)
    assert result.restarts == 2, killed
    assert_matches_plain_python(tmp_path, result, count, FIXED_NODE_RULES, FIXED_EDGE_RULES, f"killed {killed}")
    completed = [e for e in result.events if e["type"] == "checkpoint" and e["event"] == "completed"]
    seen = [e["checkpointed_metrics"]["expectations"]["node:m"]["records"] for e in completed
            if e["checkpointed_metrics"].get("expectations", {}).get("node:m")]
    assert seen and max(seen) <= count


def test_a_fail_rule_fails_the_run_naming_rule_node_and_a_record(tmp_path):
    job = quality_job(tmp_path, 100, [], [])
    job["nodes"][1]["expectations"] = [{"name": "small", "rule": 'x["n"] < 42', "action": "fail"}]
    result = LocalCluster().run(job, checkpoint_dir=str(tmp_path / "c"), timeout=60)
    assert result.status == "FAILED"
    assert "expectation 'small' of node 'm' failed" in result.failure
    assert '"n":4' in result.failure and "Traceback" not in result.failure


def test_checks_are_chained_to_what_they_check():
    job = quality_job(Path("/nowhere"), 10, [(("a", "<", 3), "quarantine")], [(("b", "<", 3), "drop")],
                      parallelism=2)
    job["nodes"][2]["expectations"] = [{"name": "s", "rule": "x is not None"}]
    graph = build_job_graph(job)
    chains = sorted(vertex.operator_ids for vertex in graph.vertices)
    # the edge's check (fed by a forward edge from the node's check) joins that chain too (fan-out chaining:
    # the node's check also sends its quarantined records out of a port)
    assert ("gen", "m", "m::expect", "e::expect") in chains
    assert ("e::expect",) in chains or any("e::expect" in chain for chain in chains)
    assert ("out::expect", "out") in chains
    port_edges = [e for e in graph.edges if e.source_port == "bad"]
    assert [(e.source_node, e.target_node) for e in port_edges] == [("m::expect", "bad")]
    main = [e for e in graph.edges if e.id == "e"]
    assert [(e.source_node, e.target_node, e.partitioning) for e in main] == [("e::expect", "out::expect",
                                                                                "rebalance")]


def problems(job) -> list[tuple]:
    return sorted(((p["node"], p["edge"], p["field"], p["message"]) for p in validate_definition(job)), key=str)


def test_validation_names_node_edge_and_field(tmp_path):
    job = quality_job(tmp_path, 10, [], [])
    job["nodes"][1]["expectations"] = [
        {"name": "r", "rule": "x[", "action": "drop"},
        {"name": "r", "rule": "x > 1", "action": "quarantine"},
        {"name": "w", "rule": "x > 1", "action": "warn", "port": "p"}]
    job["edges"][1]["expectations"] = [{"name": "ok", "rule": "import os"}]
    found = problems(job)
    fields = [(n, e, f) for n, e, f, _ in found]
    assert ("m", None, "expectations.0.rule") in fields
    assert ("m", None, "expectations.1.name") in fields or ("m", None, "expectations.0.name") in fields
    assert ("m", None, "expectations.1.port") in fields
    assert ("m", None, "expectations.2.port") in fields
    assert (None, "e", "expectations.0.rule") in fields
    messages = " ".join(message for *_, message in found)
    assert "invalid rule of expectation 'r'" in messages and "quarantines" in messages


def test_a_quarantine_port_is_a_port_of_the_node_edges_may_leave(tmp_path):
    job = quality_job(tmp_path, 10, [(("a", "<", 3), "quarantine")], [])
    assert problems(job) == []
    job["edges"][-1]["from_port"] = "elsewhere"
    assert [(p[1], p[2]) for p in problems(job)] == [(job["edges"][-1]["id"], "from_port")]


def test_reserved_ids_and_unknown_actions_are_refused(tmp_path):
    job = quality_job(tmp_path, 10, [], [])
    job["nodes"][1]["id"] = "m::x"
    job["edges"][1]["expectations"] = [{"name": "n", "rule": "True", "action": "explode"}]
    fields = [(p[0], p[1], p[2]) for p in problems(job)]
    assert (None, "e", "expectations.0.action") in fields
