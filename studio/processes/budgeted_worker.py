"""The worker process that validates, plans and previews definitions for the studio (``studio.processes.budget``).

Run as ``python -m studio.processes.budgeted_worker <fd> <memory bytes>``: it reads jobs from the
socket ``fd`` and answers on it, one JSON message per frame (``multiprocessing``'s
framing). It first says ``{"ready": true}``, once its imports are done. A job is ``{"job": name, "args": {...}, "cpu_seconds": s}``; the answers are
any number of ``{"progress": "node 'x'"}`` (where the job is, so that a job stopped at its
budget can say where) and then ``{"result": ...}`` or ``{"error": message}``.

JSON both ways, never pickle: the worker runs a user's expressions, so the studio reads
nothing from it that could run code. Its own limits are a backstop for the studio's
wall-clock kill: RLIMIT_CPU (per job, so a runaway job dies even if the studio does not
watch) and RLIMIT_DATA (a huge value fails with MemoryError instead of swapping the host).
The worker ends when the studio closes the socket.
"""
from __future__ import annotations

import json
import math
import resource
import sys
from multiprocessing.connection import Connection
from typing import Any, Callable

Report = Callable[[str], None]


def validate(args: dict, report: Report) -> list[dict]:
    """Every problem of the definition; expressions first, one node or edge at a time, so a
    budget overrun can name where it happened."""
    from engine.api import check_expression, expression_fields, operator_spec, validate_definition

    definition = args["definition"]
    for node in _items(definition, "nodes"):
        spec = operator_spec(node.get("type")) if isinstance(node.get("type"), str) else None
        params = node.get("params") if isinstance(node.get("params"), dict) else {}
        for field in expression_fields(spec) if spec else ():
            if isinstance(params.get(field), str):
                report(json.dumps({"node": node.get("id"), "field": f"params.{field}"}))
                # compiled once, with the names it sees ("x-names": a join's left, right): validation reuses it
                names = spec["params_schema"]["properties"][field].get("x-names", ("x",))
                check_expression(params[field], tuple(names))
    for edge in _items(definition, "edges"):
        if isinstance(edge.get("key"), str):
            report(json.dumps({"edge": edge.get("id"), "field": "key"}))
            check_expression(edge["key"])
    report(json.dumps({}))
    return validate_definition(definition) + _location_problems(args)


def _location_problems(args: dict) -> list[dict]:
    """Problems of the definition's location parameters under the user's policy (``studio.location_policy``),
    when the studio sent one."""
    if args.get("policy") is None:
        return []
    from studio.location_policy import Policy, check_definition

    problems, _ = check_definition(args["definition"], Policy.from_json(args["policy"]))
    return problems


def validate_with_warnings(args: dict, report: Report) -> dict:
    """``{"errors", "warnings"}``: the problems, and when there are none the warnings of file sources
    whose path matches no file (``studio.source_files``), within the same budget."""
    errors = validate(args, report)
    if errors or args.get("policy") is None:
        return {"errors": errors, "warnings": []}
    from studio.location_policy import Policy
    from studio.source_files import source_warnings

    return {"errors": [], "warnings": source_warnings(args["definition"], Policy.from_json(args["policy"]), report)}


def plan(args: dict, report: Report) -> dict:
    """The planner's summary, or ``{"errors": [...]}`` when the definition is invalid."""
    from engine.api import normalise_definition, plan_pipeline

    errors = validate(args, report)
    if errors:
        return {"errors": errors}
    report(json.dumps({"field": "plan"}))
    return plan_pipeline(normalise_definition(args["definition"]))


def preview(args: dict, report: Report) -> dict:
    """The preview (``studio.preview``), or ``{"errors": [...]}`` when the definition is invalid."""
    from studio.preview import run_preview

    errors = validate(args, report)
    if errors:
        return {"errors": errors}
    definition, grants = args["definition"], None
    if args.get("policy") is not None:  # resolved again right before it runs: what was checked is what is opened
        from studio.location_policy import Policy, check_definition, engine_grants, resolved_definition

        policy = Policy.from_json(args["policy"])
        problems, uses = check_definition(definition, policy)
        if problems:
            return {"errors": problems}
        definition, grants = resolved_definition(definition, uses), engine_grants(policy)
    report(json.dumps({"field": "preview"}))
    return run_preview(definition, limit=args["limit"], timeout=args["timeout"], grants=grants)


def read_snapshot(args: dict, report: Report) -> dict:
    """One question about a snapshot's state (``studio.processes.budget.read_snapshot``), answered by the engine's
    ``SnapshotBrowser``: the snapshot is read as data, never restored, its state files checked against the digests
    of the metadata the studio verified. A question the snapshot cannot answer is ``{"refused": {"status",
    "message"}}``."""
    from engine.api import SnapshotBrowser, SnapshotRefused, UnknownOperator

    question = args["question"]
    browser = SnapshotBrowser(args["metadata"], args.get("definition"), args["cache_dir"])
    node = question.get("node")
    report(json.dumps({"node": node, "field": "state"}))
    try:
        if question["op"] == "overview":
            return browser.overview()
        if question["op"] == "keys":
            return browser.keys(node, offset=question.get("offset", 0), limit=question.get("limit", 50),
                                search=question.get("search"), key_expression=question.get("expression"))
        if question["op"] == "key":
            return {"row": browser.key(node, question["key"])}
        if question["op"] == "sizes":
            return browser.sizes(node)
        if question["op"] == "diff":
            earlier = SnapshotBrowser(args["earlier"]["metadata"], args["earlier"].get("definition"), args["cache_dir"])
            return browser.diff(earlier, node, change=question.get("change"), offset=question.get("offset", 0),
                                limit=question.get("limit", 50))
        if question["op"] == "export":
            return {"rows": browser.export(node, question["format"], question["path"])}
    except UnknownOperator as unknown:
        return {"refused": {"status": 404, "message": str(unknown)}}
    except SnapshotRefused as refused:
        return {"refused": {"status": 409, "message": str(refused)}}
    except ValueError as invalid:  # a key expression the language does not allow
        return {"refused": {"status": 400, "message": f"expression: {invalid}"}}
    raise ValueError(f"unknown snapshot question {question['op']!r}")


def test_cases(args: dict, report: Report) -> dict:
    """The definition's test cases (``names``, or all) run one after the other (``engine.api.run_test_case``),
    each input file resolved in the pipeline's workspace and checked against the policy first;
    ``{"results": [...]}``, or ``{"errors": [...]}`` when the definition or an input file is refused."""
    import time
    from pathlib import Path

    from engine.api import run_test_case

    started = time.monotonic()
    errors = validate(args, report)
    if errors:
        return {"errors": errors}
    definition, grants, resolve = args["definition"], None, None
    names = args.get("names")
    cases = [case for case in definition.get("tests") or [] if names is None or case["name"] in names]
    if args.get("policy") is not None:
        from studio.location_policy import (Policy, check_definition, engine_grants, resolved_definition,
                                            test_input_files)

        policy = Policy.from_json(args["policy"])
        problems, uses = check_definition(definition, policy)
        files, file_problems = test_input_files(definition, cases, policy)
        if problems or file_problems:
            return {"errors": problems + file_problems}
        definition, grants, resolve = resolved_definition(definition, uses), engine_grants(policy), files.__getitem__
    results = []
    for index, case in enumerate(cases):
        report(json.dumps({"case": case["name"]}))
        remaining = args["budget_s"] - (time.monotonic() - started) - 0.5
        results.append(run_test_case(definition, case, workdir=str(Path(args["workdir"]) / f"case-{index + 1}"),
                                     timeout=max(remaining, 0.5), resolve_file=resolve, grants=grants))
    return {"results": results}


JOBS: dict[str, Callable[[dict, Report], Any]] = {"validate": validate, "validate_with_warnings": validate_with_warnings,
                                                  "plan": plan, "preview": preview, "read_snapshot": read_snapshot,
                                                  "test_cases": test_cases}


def _items(definition: Any, key: str) -> list[dict]:
    items = definition.get(key) if isinstance(definition, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _json_default(value: Any) -> Any:
    """Records are plain data; a set or tuple goes out as a list, anything else as its repr."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return repr(value)


def _limit_cpu(seconds: float) -> None:
    """Let the next job use ``seconds`` more CPU time; past that the kernel ends this process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def _mask_secrets(values: list[str]):
    """From now on this worker masks ``values`` in its output (and the processes it starts); the returned
    ``SecretMask`` masks them in its answers. The studio ends a worker after a job with secrets
    (``budget.WorkerPool.run``): no other job runs where they were."""
    from studio.secret_masking import SecretMask, activate, mask_output

    mask = SecretMask(values)
    activate(mask)
    mask_output(mask)
    return mask


def serve(connection: Connection) -> None:
    mask = None  # a job that brings secrets sets it

    def encode(message: dict) -> bytes:
        text = json.dumps(message, default=_json_default)
        return (json.dumps(mask.data(json.loads(text))) if mask else text).encode()

    while True:
        try:
            request = json.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return  # the studio went away
        if request["args"].get("secrets"):
            mask = _mask_secrets(request["args"]["secrets"])
        _limit_cpu(request["cpu_seconds"])
        try:
            answer = encode({"result": JOBS[request["job"]](
                request["args"], lambda where: connection.send_bytes(encode({"progress": where})))})
        except MemoryError:
            answer = encode({"error": "the job ran out of memory"})
        except Exception as exc:  # noqa: BLE001 - reported to the studio, which answers with a 500
            answer = encode({"error": f"{type(exc).__name__}: {exc}"})
        connection.send_bytes(answer)


def main(argv: list[str]) -> None:
    fd, memory = int(argv[0]), int(argv[1])
    import engine.api  # noqa: F401 - imported before "ready": a job's budget is not spent on imports
    import studio.location_policy  # noqa: F401
    import studio.preview  # noqa: F401
    import studio.secret_masking  # noqa: F401
    import studio.source_files  # noqa: F401

    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    connection = Connection(fd)
    connection.send_bytes(json.dumps({"ready": True}).encode())
    serve(connection)


if __name__ == "__main__":
    main(sys.argv[1:])
