"""Running a test case: its job in each of its modes, its assertions checked, the modes compared.

A test case runs streaming and bounded (batch) unless it names one mode (``modes``). Each
run's outputs are checked against every assertion; an assertion passes when it holds in
every mode. Where both modes ran, what reaches each sink and what each asserted node or
port emitted must agree between them (as multisets, or in order where the node promises an
order): a pipeline whose result depends on how it is run is a finding too. A running
aggregate is not rolling in a bounded run (Flink's batch semantics): there it emits each
key's final aggregate once, so it must equal the streaming run's last record of each key,
what record-wise steps make of it must be among what they made streaming, and what a
stateful step after it makes is not compared (``harness.bounded_relation``). A job that
fails (an expression raising, a mock without an answer) is the test's error, with the
job's failure. Everything each node emitted is written as JSON lines into
``workdir/outputs/<mode>/``, beside the inputs in ``workdir/inputs/``.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from engine.cluster.deployments import InProcess, run
from engine.runtime.grants import Grants
from engine.testing.assertions import check_assertion, target
from engine.testing.harness import (CONTAINED, FINAL, UNRELATED, CaseError, bounded_relation, case_job,
                                    promises_order, sinks_of, write_inputs)
from engine.testing.records import (canonical, contained_difference, describe_difference, final_per_key,
                                    multiset_difference, ordered_difference, plain)

MODES_IN_ORDER = ("streaming", "batch")
SHOWN_RECORDS = 20
"""Records per node the result carries for the editor; all of them are in the output files."""


def run_test_case(definition: dict, case: dict, *, workdir: Path, timeout: float = 30.0,
                  resolve_file: Callable[[str], Path] | None = None, grants: Grants | None = None) -> dict:
    """Run ``case`` (one of ``definition``'s test cases, or any in its format) against ``definition``
    in this process; the result says what passed and what did not, per assertion and per node."""
    started = time.monotonic()
    workdir = Path(workdir)
    result = {"name": case["name"], "status": "passed", "modes": [], "runs": {}, "nodes": {}, "assertions": [],
              "agreement": [], "failures": []}
    try:
        inputs = write_inputs(definition, case, workdir / "inputs", resolve_file)
        outputs = {}
        for mode in [mode for mode in MODES_IN_ORDER if mode in (case.get("modes") or MODES_IN_ORDER)]:
            remaining = timeout - (time.monotonic() - started)
            outputs[mode] = _run_mode(definition, case, inputs, mode, workdir, max(remaining, 0.5), grants, result)
            if outputs[mode] is None:
                break
    except CaseError as error:
        result.update(status="error", error=str(error))
        result["failures"].append(str(error))
    else:
        if result["status"] != "error":
            _check(definition, case, outputs, result)
    result["duration_s"] = round(time.monotonic() - started, 3)
    return result


def _run_mode(definition, case, inputs, mode, workdir, timeout, grants, result) -> dict | None:
    """One run; its outputs by ``(node, port)``, or None when the job did not finish (the test's error)."""
    job = case_job(definition, case, inputs, mode)
    begun = time.monotonic()
    finished = run(job.definition, InProcess(job.config), checkpoint_dir=str(workdir / f"checkpoints-{mode}"),
                   timeout=timeout, grants=grants)
    result["modes"].append(mode)
    result["runs"][mode] = {"status": finished.status, "duration_s": round(time.monotonic() - begun, 3)}
    if finished.status != "FINISHED":
        failure = finished.failure or f"the {mode} run ended {finished.status}"
        result["runs"][mode]["failure"] = failure
        result.update(status="error", error=f"the {mode} run failed: {failure.splitlines()[0]}")
        result["failures"].append(result["error"])
        return None
    outputs = {key: list(finished.collected.get(tap, [])) for key, tap in job.outputs.items()}
    _write_outputs(workdir / "outputs" / mode, outputs)
    return outputs


def _check(definition: dict, case: dict, outputs: dict[str, dict], result: dict) -> None:
    modes = list(outputs)
    first = outputs[modes[0]]
    ordered = {node["id"]: promises_order(definition, node["id"]) for node in definition["nodes"]}
    failing_nodes: set[str] = set()
    for (node_id, port), records in first.items():
        shown = {"count": len(records), "records": [plain(r) for r in records[:SHOWN_RECORDS]]}
        entry = result["nodes"].setdefault(node_id, {"count": 0, "records": [], "ports": {}, "status": None})
        if port is None:
            entry.update(shown)
        else:
            entry["ports"][port] = shown
    for index, assertion in enumerate(case.get("assertions") or []):
        key = (assertion["node"], assertion.get("port"))
        checked = {"index": index, "node": assertion["node"], "port": assertion.get("port"),
                   "expect": assertion["expect"], "passed": True}
        for mode in modes:
            outcome = check_assertion(assertion, outputs[mode].get(key, []), ordered.get(assertion["node"], False))
            if not outcome["passed"]:
                checked.update(outcome, passed=False, mode=mode)
                checked["message"] = f"{outcome['message']} ({mode})"
                break
            checked["message"] = outcome["message"]
        result["assertions"].append(checked)
        if not checked["passed"]:
            failing_nodes.add(assertion["node"])
            result["failures"].append(_failure_line(f"assertion {index + 1}", checked))
    if len(modes) == 2:
        compared = {(sink["id"], None) for sink in sinks_of(definition)}
        compared |= {(a["node"], a.get("port")) for a in case.get("assertions") or []}
        for node_id, port in sorted(compared, key=lambda key: (key[0], key[1] or "")):
            streaming, bounded = outputs["streaming"].get((node_id, port), []), outputs["batch"].get((node_id, port), [])
            where = target({"node": node_id, "port": port})
            relation = bounded_relation(definition, node_id)
            if relation == UNRELATED:
                result["agreement"].append({"node": node_id, "port": port, "passed": True, "compared": False,
                                            "message": f"{where}: not compared between the modes: it follows a "
                                                       "running aggregate, which a bounded run emits once per key"})
                continue
            if relation == FINAL:
                difference = multiset_difference(final_per_key(streaming), bounded)
                agree = "agree (each key's final aggregate)"
            elif relation == CONTAINED:
                difference = contained_difference(streaming, bounded)
                agree = "agree (after a running aggregate: each key's final records)"
            else:
                in_order = ordered.get(node_id, False)
                difference = ordered_difference(streaming, bounded) if in_order else \
                    multiset_difference(streaming, bounded)
                agree = "agree"
            agreed = {"node": node_id, "port": port, "passed": difference is None,
                      "message": f"{where}: the bounded and streaming runs " + (agree if difference is None
                                                                                else "disagree")}
            if difference is not None:
                agreed["difference"] = difference  # "expected": what streaming emitted, "actual": bounded
                failing_nodes.add(node_id)
                result["failures"].append(_failure_line("modes", agreed))
            result["agreement"].append(agreed)
    for node_id, entry in result["nodes"].items():
        has_checks = any(a["node"] == node_id for a in result["assertions"]) or \
            any(a["node"] == node_id for a in result["agreement"])
        entry["status"] = "failed" if node_id in failing_nodes else ("passed" if has_checks else None)
    if result["failures"]:
        result["status"] = "failed"


def _failure_line(label: str, checked: dict) -> str:
    line = f"{label}: {checked['message']}"
    if checked.get("difference"):
        line += f": {describe_difference(checked['difference'])}"
    return line


def _write_outputs(directory: Path, outputs: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for (node_id, port), records in outputs.items():
        name = node_id + (f".{port}" if port else "")
        with open(directory / f"{name}.jsonl", "w", encoding="utf-8") as file:
            for record in records:
                file.write(canonical(record) + "\n")
    (directory / "README").write_text("What each node emitted in this run, one JSON line per record "
                                      "(<node>.jsonl; <node>.<port>.jsonl for a named port).\n")


def junit_xml(pipeline: str, results: list[dict]) -> str:
    """The results as a JUnit XML report (one testsuite, one testcase per test case), for CI jobs."""
    from xml.sax.saxutils import escape, quoteattr

    failures = sum(result["status"] == "failed" for result in results)
    errors = sum(result["status"] == "error" for result in results)
    total_s = sum(result.get("duration_s", 0) for result in results)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuites tests="{len(results)}" failures="{failures}" errors="{errors}" time="{total_s:.3f}">',
             f'  <testsuite name={quoteattr(pipeline)} tests="{len(results)}" failures="{failures}" '
             f'errors="{errors}" time="{total_s:.3f}">']
    for result in results:
        lines.append(f'    <testcase classname={quoteattr(pipeline)} name={quoteattr(result["name"])} '
                     f'time="{result.get("duration_s", 0):.3f}">')
        details = escape("\n".join(result.get("failures") or []))
        if result["status"] == "failed":
            lines.append(f'      <failure message={quoteattr((result["failures"] or ["failed"])[0][:500])}>'
                         f'{details}</failure>')
        elif result["status"] == "error":
            lines.append(f'      <error message={quoteattr(str(result.get("error", "error"))[:500])}>{details}</error>')
        lines.append('    </testcase>')
    lines += ['  </testsuite>', '</testsuites>', '']
    return "\n".join(lines)


def summary_lines(results: list[dict]) -> list[str]:
    """What a terminal shows: one line per test case, then one per failure."""
    lines = []
    for result in results:
        lines.append(f"{result['status'].upper():7} {result['name']} ({result.get('duration_s', 0):.2f} s)")
        lines.extend(f"        {failure}" for failure in result.get("failures") or [])
    return lines


__all__ = ["junit_xml", "run_test_case", "summary_lines"]
