"""A test case's job: the pipeline with the test's inputs, mocks and collected outputs.

The definition is rewritten, never the pipeline's own operators:

- every source becomes a file source over the test's input for it, a JSON-lines file (its
  rows, written by :func:`write_inputs`, or the file the test names), read in order by one
  subtask. A source that stamps event time itself (a Kafka source with ``watermarks``) is
  followed by a watermark node stamping the same way, from the input's ``timestamp``;
- a test run (:func:`case_job`) runs every node at parallelism 1 and collects what every
  node emits, on its main output and on each named port, and what reaches each sink
  (the sinks themselves write nothing). Streaming test runs move one record per batch, so
  a watermark node emits its watermark after every row: event time advances row by row,
  and which records are late is decided by the inputs alone -- a window's or a join's
  result does not depend on how records happened to be batched;
- a proof run (:func:`proof_job`) keeps the pipeline's parallelism (its sources read at
  1, so every key's records keep their order) and its checkpoints; where its sinks write
  is the proof's choice (``engine.testing.proof.SinkTargets``).

Mocks travel in the slots' configuration (``engine.runtime.operators.mocks``).
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from engine.spec import normalise_definition
from engine.spec.catalog import operator_spec, output_port_names

PREFIX = "__test__"
"""Nodes the harness adds start with this (node ids of a definition may not)."""
COLLECT_LIMIT = 100_000
"""Records a collected output keeps (the collect sink's most)."""
WATERMARK_TYPE = "transform.watermark"
ORDER_KEEPING_TYPES = frozenset({"transform.map", "transform.filter", "transform.flat_map", WATERMARK_TYPE,
                                 "transform.python"})
"""Operators that emit in the order of their input (lookups too, in ordered mode)."""
ROLLING_TYPES = frozenset({"aggregate.reduce"})
"""Running aggregates: streaming emits every update of a key's aggregate, a bounded (batch) run
only each key's final one (Flink's batch semantics of a rolling reduce or sum)."""
RECORD_WISE_TYPES = frozenset({"transform.map", "transform.filter", "transform.flat_map", "transform.union",
                               WATERMARK_TYPE})
"""Operators whose output is a function of each record alone (lookups too, sinks pass records on)."""
SAME, FINAL, CONTAINED, UNRELATED = "same", "final", "contained", "unrelated"
"""How a node's bounded output relates to its streaming output (:func:`bounded_relation`)."""


class CaseError(ValueError):
    """A test case that cannot run as written (an input file that is not there, say)."""


@dataclass
class CaseJob:
    """A test case's job and where its outputs are collected."""

    definition: dict
    config: dict
    outputs: dict[tuple[str, str | None], str] = field(default_factory=dict)
    """``(node, port)`` -> the collect node holding what it emitted (``port`` None: the main output;
    for a sink, what reached it)."""


def job_definition(definition: dict) -> dict:
    """The pipeline without its test cases, defaults filled in."""
    return normalise_definition({key: value for key, value in definition.items() if key != "tests"})


def sources_of(definition: dict) -> list[dict]:
    return [node for node in definition["nodes"] if (operator_spec(node["type"]) or {}).get("source")]


def sinks_of(definition: dict) -> list[dict]:
    return [node for node in definition["nodes"] if (operator_spec(node["type"]) or {}).get("sink")]


def write_inputs(definition: dict, case: dict, directory: Path,
                 resolve_file: Callable[[str], Path] | None = None) -> dict[str, Path]:
    """The input file of each source: its rows written as JSON lines into ``directory``, or the file
    the test names (``resolve_file`` turns its name into a path the caller checked; without it the
    name is a path). A source the test gives nothing reads an empty file."""
    directory.mkdir(parents=True, exist_ok=True)
    inputs = case.get("inputs") or {}
    files = {}
    for source in sources_of(definition):
        given = inputs.get(source["id"]) or {"rows": []}
        if "file" in given:
            path = resolve_file(given["file"]) if resolve_file else Path(given["file"])
            if not Path(path).is_file():
                raise CaseError(f"test '{case['name']}': the input file {given['file']!r} of '{source['id']}' "
                                    "is not there")
            files[source["id"]] = Path(path)
            continue
        path = directory / f"{source['id']}.jsonl"
        with open(path, "w", encoding="utf-8") as file:
            for row in given["rows"]:
                file.write(json.dumps(row, separators=(",", ":")) + "\n")
        files[source["id"]] = path
    return files


def read_rows(path: Path) -> list:
    """The rows of a JSON-lines input file (a line that is no JSON is a CaseError naming it)."""
    rows = []
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as error:
                    raise CaseError(f"{path.name}, line {number}: not JSON ({error})") from None
    return rows


def case_job(definition: dict, case: dict, inputs: dict[str, Path], mode: str) -> CaseJob:
    """The job of a test run in ``mode`` (``batch`` or ``streaming``): see the module."""
    job = _with_inputs(job_definition(definition), case, inputs)
    job.update(mode=mode, parallelism=1, name=f"test '{case['name']}' of {job.get('name', 'pipeline')}",
               checkpointing={**job["checkpointing"], "enabled": False},
               restart={"strategy": "none", "attempts": 0, "delay_ms": 0})
    outputs: dict[tuple[str, str | None], str] = {}
    taps, tap_edges = [], []
    for node in list(job["nodes"]):
        node["parallelism"] = 1
        spec = operator_spec(node["type"]) or {}
        if node["id"].startswith(PREFIX):
            continue
        if spec.get("sink"):
            node.update(type="sink.collect", params={"max_records": COLLECT_LIMIT})
            outputs[(node["id"], None)] = node["id"]
            continue
        emitter = _emitter_of(job, node["id"])
        for port in [None, *output_port_names(spec)]:
            tap = f"{PREFIX}out__{node['id']}" + (f"__{port}" if port else "")
            taps.append({"id": tap, "type": "sink.collect", "params": {"max_records": COLLECT_LIMIT},
                         "parallelism": 1})
            tap_edge = {"id": tap, "from": emitter if port is None else node["id"], "to": tap,
                        "partitioning": "forward", "exchange": "pipelined", "key": None}
            if port:
                tap_edge["from_port"] = port
            tap_edges.append(tap_edge)
            outputs[(node["id"], port)] = tap
    job["nodes"].extend(taps)
    job["edges"].extend(tap_edges)
    config = {"mocks": dict(case.get("mocks") or {}), "pin_cpu": False}
    if mode == "streaming":
        config["batch_size"] = 1
    return CaseJob(normalise_definition(job), config, outputs)


def proof_job(definition: dict, case: dict, inputs: dict[str, Path], sink_node: Callable[[dict], dict],
              rescale: int = 0) -> dict:
    """The job of a proof run, with its checkpoints; ``sink_node(node)`` gives each sink's ``{"type",
    "params"}`` in it (where that run writes: ``engine.testing.proof.SinkTargets``).

    Sources, and what they feed over forward edges, run at parallelism 1: every key's records keep
    the input's order, so the output does not depend on how subtasks interleave. Every other node
    runs at its own parallelism plus ``rescale`` (a proof's second phase restores at another one);
    a forward edge from that chain into a sink becomes a rebalance, so the sinks rescale too."""
    job = _with_inputs(job_definition(definition), case, inputs)
    job["name"] = f"proof of {job.get('name', 'pipeline')} with test '{case['name']}'"
    job["mode"] = "streaming"
    chain = _source_chain(job)
    for node in job["nodes"]:
        is_sink = bool((operator_spec(node["type"]) or {}).get("sink"))
        if node["id"] in chain and not is_sink:
            node["parallelism"] = 1
        else:
            node["parallelism"] = max(1, min(node["parallelism"] + rescale, job["max_parallelism"]))
        if is_sink:
            node.update(sink_node(node))
    for edge in job["edges"]:
        if edge["partitioning"] == "forward" and _parallelism(job, edge["from"]) != _parallelism(job, edge["to"]):
            edge["partitioning"] = "rebalance"
    return normalise_definition(job)


def writes_files(node_type: str) -> bool:
    """Whether a sink writes files into the directory its ``path`` names (``sink.file``, ``sink.parquet``)."""
    spec = operator_spec(node_type) or {}
    path = spec.get("params_schema", {}).get("properties", {}).get("path") or {}
    return bool(spec.get("sink")) and path.get("x-location") == "path"


def _source_chain(job: dict) -> set[str]:
    """The sources and every node they reach over forward edges only."""
    chain = {node["id"] for node in sources_of(job)}
    changed = True
    while changed:
        changed = False
        for edge in job["edges"]:
            if edge["from"] in chain and edge["to"] not in chain and edge["partitioning"] == "forward":
                chain.add(edge["to"])
                changed = True
    return chain


def bounded_relation(definition: dict, node_id: str) -> str:
    """What a bounded run of ``node_id`` must emit, given what a streaming run emitted:

    - ``SAME``: the same records (nothing upstream is a running aggregate);
    - ``FINAL``: a running aggregate: each key's last record of the streaming run, once;
    - ``CONTAINED``: record-wise steps after a running aggregate: some of the streaming run's
      records (those of each key's final aggregate);
    - ``UNRELATED``: a stateful step after a running aggregate: it aggregated every update in
      streaming and only the final ones bounded, so the two are not comparable.
    """
    nodes = {node["id"]: node for node in definition["nodes"]}
    inputs: dict[str, list[str]] = {}
    for edge in definition["edges"]:
        inputs.setdefault(edge["to"], []).append(edge["from"])
    order = (SAME, FINAL, CONTAINED, UNRELATED)
    known: dict[str, str] = {}

    def relation(current: str, path: frozenset) -> str:
        if current in known:
            return known[current]
        if current in path:  # a cycle cannot be a pipeline; say nothing of it
            return UNRELATED
        upstream = [relation(source, path | {current}) for source in inputs.get(current, [])]
        worst = max(upstream, key=order.index, default=SAME)
        type_ = nodes[current]["type"]
        spec = operator_spec(type_) or {}
        if type_ in ROLLING_TYPES:
            result = FINAL if worst == SAME else UNRELATED
        elif type_ in RECORD_WISE_TYPES or type_.startswith("lookup.") or spec.get("sink"):
            result = CONTAINED if worst == FINAL else worst
        else:
            result = SAME if worst == SAME else UNRELATED
        known[current] = result
        return result

    return relation(node_id, frozenset())


def promises_order(definition: dict, node_id: str) -> bool:
    """Whether ``node_id`` emits its records in an order its inputs fix: it and everything upstream
    keep the order of their single input (a join, a union, a keyed or windowed operator, an unordered
    lookup does not), so a test compares its rows in order."""
    nodes = {node["id"]: node for node in definition["nodes"]}
    inputs: dict[str, list[str]] = {}
    for edge in definition["edges"]:
        inputs.setdefault(edge["to"], []).append(edge["from"])
    seen, stack = set(), [node_id]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        node = nodes[current]
        spec = operator_spec(node["type"]) or {}
        upstream = inputs.get(current, [])
        if len(upstream) > 1:
            return False
        keeps = (spec.get("source") or spec.get("sink") or node["type"] in ORDER_KEEPING_TYPES
                 or (node["type"].startswith("lookup.") and (node.get("params") or {}).get("output_mode") != "unordered"))
        if not keeps:
            return False
        stack.extend(upstream)
    return True


def _with_inputs(job: dict, case: dict, inputs: dict[str, Path]) -> dict:
    """``job`` with each source reading its input file, stamped with event time where the source did."""
    job = copy.deepcopy(job)
    given = case.get("inputs") or {}
    for node in sources_of(job):
        original = copy.deepcopy(node)
        node.update(type="source.file", params={"path": str(inputs[node["id"]]), "format": "jsonl"}, parallelism=1)
        stamp = _event_time_of(original, given.get(node["id"]) or {}, case)
        if stamp is not None:
            _insert_after(job, node["id"], {"id": f"{PREFIX}time__{node['id']}", "type": WATERMARK_TYPE,
                                            "params": stamp, "parallelism": 1})
    return job


def _event_time_of(source: dict, given: dict, case: dict) -> dict | None:
    """The watermark node's params for a source that stamps event time itself, else None."""
    params = source.get("params") or {}
    if not params.get("watermarks"):
        return None
    timestamp = given.get("timestamp") or params.get("timestamp")
    if not timestamp and params.get("emit") == "record":
        timestamp = 'x["timestamp"]'
    if not timestamp:
        raise CaseError(f"test '{case['name']}': '{source['id']}' stamps event time from the Kafka timestamp, "
                            "which test rows do not have: give its input a timestamp expression")
    return {"timestamp": timestamp, "max_out_of_orderness_ms": int(params.get("max_out_of_orderness_ms") or 0)}


def _insert_after(job: dict, node_id: str, inserted: dict) -> None:
    for edge in job["edges"]:
        if edge["from"] == node_id:
            edge["from"] = inserted["id"]
    job["nodes"].append(inserted)
    job["edges"].append({"id": inserted["id"], "from": node_id, "to": inserted["id"], "partitioning": "forward",
                         "exchange": "pipelined", "key": None})


def _emitter_of(job: dict, node_id: str) -> str:
    """The node whose main output is ``node_id``'s as the pipeline sees it (its event-time stamper, if any)."""
    stamper = f"{PREFIX}time__{node_id}"
    return stamper if any(node["id"] == stamper for node in job["nodes"]) else node_id


def _parallelism(job: dict, node_id: str) -> int:
    node = next(node for node in job["nodes"] if node["id"] == node_id)
    return node.get("parallelism") or job.get("parallelism", 1)
