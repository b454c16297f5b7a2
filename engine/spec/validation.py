"""Validation of pipeline definitions: every problem at once, each naming where it is.

A pipeline definition comes from a browser or a script, so it is untrusted input. The
studio and the engine call the same ``validate_definition``; a problem is data,
``{"node": id | None, "edge": id | None, "field": "params.count" | None, "message": str}``,
so the editor can mark the offending node, edge or form field.
"""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Iterator

from jsonschema import Draft202012Validator, validators

from engine.plan.strongly_connected import strongly_connected_components
from engine.spec.catalog import (expression_fields, expression_map_fields, expression_names, operator_spec,
                                 output_port_names, params_with_defaults)
from engine.spec.catalog_schema import DAY_MS
from engine.spec.expressions import check_expression
from engine.spec.http_headers import header_problem
from engine.spec.event_time import nodes_without_event_time
from engine.spec.expectations import EXPECTATIONS_SCHEMA, expectation_problems, quarantine_ports
from engine.spec.join_catalog import INPUT_SIDES
from engine.spec.kafka_catalog import kafka_param_problems
from engine.spec.python_catalog import PYTHON_TYPE, code_problems
from engine.spec.test_cases import TESTS_SCHEMA, problems_of_tests

PARTITIONINGS = ("forward", "rebalance", "rescale", "hash", "broadcast")
EXCHANGES = ("pipelined", "blocking")

CHECKPOINTING_DEFAULTS = {
    "interval_ms": 1000, "mode": "exactly_once", "timeout_ms": 600000, "min_pause_ms": 0,
    "max_concurrent": 1, "tolerable_failures": 0, "unaligned": False, "aligned_timeout_ms": 0,
    "retained": 3,
}
RESTART_DEFAULTS = {"strategy": "fixed_delay", "attempts": 3, "delay_ms": 1000}

_ID = {"type": "string", "minLength": 1, "maxLength": 100, "pattern": r"^[A-Za-z0-9_.:-]+$"}

DEFINITION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["format", "nodes", "edges"],
    "properties": {
        "format": {"const": 1},
        "name": {"type": "string", "maxLength": 200},
        "mode": {"enum": ["streaming", "batch"]},
        "parallelism": {"type": "integer", "minimum": 1, "maximum": 1024},
        "max_parallelism": {"type": "integer", "minimum": 1, "maximum": 32768},
        "checkpointing": {
            "type": "object",
            "properties": {
                "interval_ms": {"type": "integer", "minimum": 10, "maximum": DAY_MS},
                "mode": {"enum": ["exactly_once", "at_least_once"]},
                "timeout_ms": {"type": "integer", "minimum": 1, "maximum": DAY_MS},
                "min_pause_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS},
                "max_concurrent": {"type": "integer", "minimum": 1, "maximum": 100},
                "tolerable_failures": {"type": "integer", "minimum": 0, "maximum": 10_000},
                "unaligned": {"type": "boolean"},
                "aligned_timeout_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS},
                "max_aligned_bytes": {"type": "integer", "minimum": 0, "maximum": 2**40},
                "retained": {"type": "integer", "minimum": 1, "maximum": 10_000},
                "enabled": {"type": "boolean"},
            },
            "additionalProperties": False,
        },
        "restart": {
            "type": "object",
            "properties": {
                "strategy": {"enum": ["none", "fixed_delay", "exponential_delay"]},
                "attempts": {"type": "integer", "minimum": 0, "maximum": 1000},
                "delay_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS},
            },
            "additionalProperties": False,
        },
        "debloat": {
            "type": "object",
            "properties": {
                "enabled": {"type": "boolean"},
                "target_ms": {"type": "integer", "minimum": 1, "maximum": DAY_MS},
                "period_ms": {"type": "integer", "minimum": 1, "maximum": DAY_MS},
                "samples": {"type": "integer", "minimum": 1, "maximum": 10_000},
                "min_buffer_records": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
                "max_buffer_records": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
                "threshold_percent": {"type": "number", "minimum": 0, "maximum": 100},
            },
            "additionalProperties": False,
        },
        "latency_tracking": {
            "type": "object",
            "description": "Latency markers from the sources to the sinks (engine.runtime.latency_stats): one "
                           "per source subtask every interval_ms; 0 is off.",
            "properties": {"interval_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS}},
            "additionalProperties": False,
        },
        "nodes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "type"],
                "properties": {
                    "id": _ID,
                    "type": {"type": "string", "minLength": 1},
                    "params": {"type": "object"},
                    "parallelism": {"type": "integer", "minimum": 1, "maximum": 1024},
                    "ui": {"type": "object"},
                    "name": {"type": "string"},
                    # restores this node's state from the node of that id in a snapshot that has none of its own
                    "restore_state_of": _ID,
                    "expectations": EXPECTATIONS_SCHEMA,
                },
                "additionalProperties": False,
            },
        },
        "edges": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "from", "to"],
                "properties": {
                    "id": _ID,
                    "from": {"type": "string"},
                    "from_port": {"type": ["string", "null"], "minLength": 1, "maxLength": 100},
                    "to": {"type": "string"},
                    "partitioning": {"enum": list(PARTITIONINGS)},
                    "key": {"type": ["string", "null"]},
                    "exchange": {"enum": list(EXCHANGES)},
                    "side": {"enum": list(INPUT_SIDES)},
                    "ui": {"type": "object"},
                    "expectations": EXPECTATIONS_SCHEMA,
                },
                "additionalProperties": False,
            },
        },
        "ui": {"type": "object"},
        "tests": TESTS_SCHEMA,
    },
    "additionalProperties": False,
}

def _json_integer(checker, instance) -> bool:
    """An integer is a JSON integer: JSON Schema would count 2.0 as one too, and a parallelism of 2.0 then
    failed the plan (a 500 from POST /api/plan), a count of 2.0 ran as a float. Not a boolean either."""
    return isinstance(instance, int) and not isinstance(instance, bool)


JsonValidator = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _json_integer))
"""Draft 2020-12 where ``integer`` means a JSON integer (the REST API's integers are the same: "2" and 2.0
are no integer there either)."""

_DEFINITION_VALIDATOR = JsonValidator(DEFINITION_SCHEMA)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a definition, located as precisely as we can."""

    message: str
    node: str | None = None
    edge: str | None = None
    field: str | None = None


class ValidationError(ValueError):
    """A definition with problems; ``errors`` lists all of them as dicts."""

    def __init__(self, errors: list[dict[str, Any]]):
        self.errors = errors
        super().__init__("; ".join(_describe(error) for error in errors))


def _describe(error: dict[str, Any]) -> str:
    where = [f"{kind} '{error[kind]}'" for kind in ("node", "edge") if error.get(kind)]
    if error.get("field"):
        where.append(f"field '{error['field']}'")
    return f"{', '.join(where)}: {error['message']}" if where else error["message"]


def validate_definition(definition: Any) -> list[dict[str, Any]]:
    """Return every problem of ``definition`` (empty when it is valid)."""
    return [asdict(problem) for problem in _problems(definition)]


def normalise_definition(definition: dict[str, Any]) -> dict[str, Any]:
    """Return a valid definition with every default filled in, or raise ValidationError.

    The runtime and the planner read only normalised definitions, so a default lives in
    one place instead of at every reader.
    """
    errors = validate_definition(definition)
    if errors:
        raise ValidationError(errors)
    result = copy.deepcopy(definition)
    result.setdefault("name", "pipeline")
    result.setdefault("mode", "streaming")
    result.setdefault("parallelism", 1)
    result.setdefault("max_parallelism", max(128, result["parallelism"]))
    result["checkpointing"] = {**CHECKPOINTING_DEFAULTS, **result.get("checkpointing", {})}
    result["restart"] = {**RESTART_DEFAULTS, **result.get("restart", {})}
    for node in result["nodes"]:
        node["params"] = params_with_defaults(operator_spec(node["type"]), node.get("params", {}))
        node.setdefault("parallelism", result["parallelism"])
    for edge in result["edges"]:
        edge.setdefault("partitioning", "forward")
        edge.setdefault("exchange", "pipelined")
        edge.setdefault("key", None)
    return result


def _problems(definition: Any) -> Iterator[Problem]:
    structural = list(_schema_problems(definition))
    if structural:
        yield from structural
        return
    nodes = definition["nodes"]
    edges = definition["edges"]
    yield from _duplicate_ids(nodes, "node")
    yield from _duplicate_ids(edges, "edge")
    yield from _node_problems(definition)
    yield from _edge_problems(definition)
    yield from _cycle_problems(nodes, edges)
    yield from _event_time_problems(definition)
    yield from _checkpointing_problems(definition.get("checkpointing", {}))
    for where, field, message in expectation_problems(definition, _own_ports):
        yield Problem(message, field=field, **where)
    for field, message in problems_of_tests(definition):
        yield Problem(message, field=field)


def _event_time_problems(definition: dict[str, Any]) -> Iterator[Problem]:
    """Windows, joins, deduplication and state TTLs run on event time: every input must carry it,
    so a watermark node (or a source that assigns event time) must precede them on every path."""
    for node, field, untimed in nodes_without_event_time(definition):
        reason = "a state TTL" if field == "params.state_ttl_ms" else f"'{node['type']}'"
        inputs = ", ".join(_input_name(edge) for edge in untimed)
        yield Problem(f"{reason} needs event time, but {inputs} {'has' if len(untimed) == 1 else 'have'} none: "
                      "put a watermark operator (transform.watermark) upstream", node=node["id"], field=field)


def _input_name(edge: dict[str, Any]) -> str:
    side = f"{edge['side']} " if isinstance(edge.get("side"), str) else ""
    return f"its {side}input from '{edge['from']}'"


def _checkpointing_problems(checkpointing: dict[str, Any]) -> Iterator[Problem]:
    """Unaligned checkpoints need exactly-once barriers, and an aligned timeout is the time
    after which an aligned checkpoint switches to unaligned (Flink's meaning): without
    ``unaligned`` it would never switch, so it is refused rather than silently ignored."""
    if checkpointing.get("unaligned") and checkpointing.get("mode") == "at_least_once":
        yield Problem("unaligned checkpoints need mode exactly_once (at-least-once barriers never align)",
                      field="checkpointing.unaligned")
    if checkpointing.get("aligned_timeout_ms") and not checkpointing.get("unaligned"):
        yield Problem("aligned_timeout_ms is the time after which an aligned checkpoint switches to unaligned: "
                      "it needs unaligned: true", field="checkpointing.aligned_timeout_ms")


def _schema_problems(definition: Any) -> Iterator[Problem]:
    if not isinstance(definition, dict):
        yield Problem("a pipeline definition must be a JSON object")
        return
    for error in sorted(_DEFINITION_VALIDATOR.iter_errors(definition), key=lambda e: list(e.path)):
        yield _locate_schema_error(definition, list(error.path), error.message)


def _locate_schema_error(definition: dict[str, Any], path: list[Any], message: str) -> Problem:
    """Turn a JSON path such as ['nodes', 2, 'type'] into node/edge/field."""
    if len(path) >= 2 and path[0] in ("nodes", "edges") and isinstance(path[1], int):
        item = definition[path[0]][path[1]]
        item_id = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else None
        field = ".".join(str(part) for part in path[2:]) or None
        label = item_id or f"#{path[1]}"
        if path[0] == "nodes":
            return Problem(message, node=label, field=field)
        return Problem(message, edge=label, field=field)
    return Problem(message, field=".".join(str(part) for part in path) or None)


def _duplicate_ids(items: list[dict[str, Any]], kind: str) -> Iterator[Problem]:
    counts = Counter(item["id"] for item in items)
    for item_id, count in counts.items():
        if count > 1:
            yield Problem(f"{kind} id '{item_id}' is used {count} times", **{kind: item_id, "field": "id"})


def _node_problems(definition: dict[str, Any]) -> Iterator[Problem]:
    default_parallelism = definition.get("parallelism", 1)
    max_parallelism = definition.get("max_parallelism", max(128, default_parallelism))
    if default_parallelism > max_parallelism:
        yield Problem(f"parallelism {default_parallelism} exceeds max_parallelism {max_parallelism}",
                      field="parallelism")
    if not any(_is_source(node) for node in definition["nodes"]):
        yield Problem("the pipeline has no source")
    for node in definition["nodes"]:
        spec = operator_spec(node["type"])
        if spec is None:
            yield Problem(f"unknown operator type '{node['type']}'", node=node["id"], field="type")
            continue
        yield from _param_problems(node, spec)
        parallelism = node.get("parallelism", default_parallelism)
        if parallelism > max_parallelism:
            yield Problem(f"parallelism {parallelism} exceeds max_parallelism {max_parallelism}",
                          node=node["id"], field="parallelism")


def _param_problems(node: dict[str, Any], spec: dict[str, Any]) -> Iterator[Problem]:
    params = node.get("params", {})
    validator = JsonValidator(spec["params_schema"])
    for error in validator.iter_errors(params):
        field = _param_field(error)
        yield Problem(error.message, node=node["id"], field=field)
    for name in expression_fields(spec):
        source = params.get(name)
        if isinstance(source, str) and source:
            message = check_expression(source, expression_names(spec, name))
            if message:
                yield Problem(f"invalid expression: {message}", node=node["id"], field=f"params.{name}")
    yield from _join_param_problems(node, params)
    for field, message in kafka_param_problems(node["type"], params):
        yield Problem(message, node=node["id"], field=field)
    for name, schema in spec["params_schema"]["properties"].items():
        headers = params.get(name) if schema.get("x-http-headers") else None
        for header, value in (headers.items() if isinstance(headers, dict) else ()):
            message = header_problem(header, value)
            if message:
                yield Problem(message, node=node["id"], field=f"params.{name}")
    if node["type"] == PYTHON_TYPE and isinstance(params.get("code"), str):
        for message in code_problems(params["code"]):
            yield Problem(message, node=node["id"], field="params.code")
    for name in expression_map_fields(spec):
        mapping = params.get(name)
        for entry, source in (mapping.items() if isinstance(mapping, dict) else ()):
            message = check_expression(source) if isinstance(source, str) and source else None
            if message:
                yield Problem(f"invalid expression: {message}", node=node["id"], field=f"params.{name}.{entry}")


def _join_param_problems(node: dict[str, Any], params: dict[str, Any]) -> Iterator[Problem]:
    """What the params schema cannot say: an interval's end before its start, a slide longer than its window."""
    lower, upper = params.get("lower_ms"), params.get("upper_ms")
    if node["type"] == "join.interval" and isinstance(lower, int) and isinstance(upper, int) and upper < lower:
        yield Problem(f"upper_ms ({upper}) is below lower_ms ({lower}): the interval is empty",
                      node=node["id"], field="params.upper_ms")
    size, slide = params.get("size_ms"), params.get("slide_ms")
    if node["type"] == "join.window" and isinstance(size, int) and isinstance(slide, int) and slide > size:
        yield Problem(f"slide_ms ({slide}) is longer than size_ms ({size}): records between windows would "
                      "join nothing", node=node["id"], field="params.slide_ms")


def _param_field(error) -> str:
    path = [str(part) for part in error.path]
    if not path and error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        path = [missing] if missing else []
    if not path and error.validator == "additionalProperties":
        unexpected = error.message.split("'")[1] if "'" in error.message else ""
        path = [unexpected] if unexpected else []
    return ".".join(["params", *path])


def _is_source(node: dict[str, Any]) -> bool:
    spec = operator_spec(node["type"])
    return bool(spec and spec["source"])


def _edge_problems(definition: dict[str, Any]) -> Iterator[Problem]:
    nodes = {node["id"]: node for node in definition["nodes"]}
    default_parallelism = definition.get("parallelism", 1)
    inputs: Counter[str] = Counter()
    outputs: Counter[str] = Counter()
    sides: dict[str, Counter[str]] = {}
    for edge in definition["edges"]:
        source, target = nodes.get(edge["from"]), nodes.get(edge["to"])
        if source is None:
            yield Problem(f"edge starts at unknown node '{edge['from']}'", edge=edge["id"], field="from")
        if target is None:
            yield Problem(f"edge ends at unknown node '{edge['to']}'", edge=edge["id"], field="to")
        if source is None or target is None:
            continue
        if edge["from"] == edge["to"]:
            yield Problem("edge connects a node to itself", edge=edge["id"])
            continue
        inputs[edge["to"]] += 1
        port = edge.get("from_port")
        if port is None:
            outputs[edge["from"]] += 1
        else:
            yield from _output_port_problems(edge, source, port, quarantine_ports(definition, source["id"]))
        yield from _partitioning_problems(edge, source, target, default_parallelism)
        yield from _side_problems(edge, target, sides.setdefault(edge["to"], Counter()))
    for node_id, node in nodes.items():
        yield from _port_problems(node, inputs[node_id], outputs[node_id])
        yield from _missing_side_problems(node, sides.get(node_id, Counter()), inputs[node_id])


def _own_ports(node: dict[str, Any]) -> list[str]:
    spec = operator_spec(node["type"])
    return output_port_names(spec) if spec is not None else []


def _output_port_problems(edge, source, port: str, quarantine: list[str]) -> Iterator[Problem]:
    """An edge leaving a named output port: the source operator, or one of its expectations, must have it."""
    spec = operator_spec(source["type"])
    if spec is None:
        return
    ports = output_port_names(spec) + quarantine
    if port not in ports:
        offered = f"its ports: {', '.join(ports)}" if ports else "it has only its main output"
        yield Problem(f"'{source['id']}' ({source['type']}) has no output port '{port}'; {offered}",
                      edge=edge["id"], field="from_port")


def _partitioning_problems(edge, source, target, default_parallelism) -> Iterator[Problem]:
    partitioning = edge.get("partitioning", "forward")
    key = edge.get("key")
    if partitioning == "hash":
        if not key:
            yield Problem("a hash edge needs a key expression", edge=edge["id"], field="key")
        else:
            message = check_expression(key)
            if message:
                yield Problem(f"invalid key expression: {message}", edge=edge["id"], field="key")
    elif key:
        yield Problem(f"a key only applies to hash partitioning, not '{partitioning}'",
                      edge=edge["id"], field="key")
    source_parallelism = source.get("parallelism", default_parallelism)
    target_parallelism = target.get("parallelism", default_parallelism)
    if partitioning == "forward" and source_parallelism != target_parallelism:
        yield Problem(
            f"forward partitioning needs equal parallelism, but '{source['id']}' has "
            f"{source_parallelism} and '{target['id']}' has {target_parallelism}; "
            "use rebalance, rescale or hash", edge=edge["id"], field="partitioning")
    target_spec = operator_spec(target["type"])
    if target_spec and target_spec["keyed"] and partitioning != "hash":
        yield Problem(f"'{target['id']}' is keyed and needs a hash edge with a key, not '{partitioning}'",
                      edge=edge["id"], field="partitioning")


def _side_problems(edge: dict[str, Any], target: dict[str, Any], seen: Counter) -> Iterator[Problem]:
    """An edge into a two-input operator says which input it feeds; other edges say nothing."""
    spec = operator_spec(target["type"])
    side = edge.get("side")
    if spec is None:
        return
    if not spec.get("input_sides"):
        if side is not None:
            yield Problem(f"'{target['id']}' has one kind of input: an edge into it takes no side",
                          edge=edge["id"], field="side")
        return
    if side is None:
        yield Problem(f"'{target['id']}' joins two inputs: say which one this edge feeds "
                      f"(side: {' or '.join(spec['input_sides'])})", edge=edge["id"], field="side")
        return
    seen[side] += 1
    if seen[side] > 1:
        yield Problem(f"'{target['id']}' already has a {side} input; put a union in front to merge streams",
                      edge=edge["id"], field="side")


def _missing_side_problems(node: dict[str, Any], seen: Counter, input_count: int) -> Iterator[Problem]:
    spec = operator_spec(node["type"])
    if spec is None or not spec.get("input_sides") or input_count == 0:
        return
    for side in spec["input_sides"]:
        if not seen[side]:
            yield Problem(f"this operator has no {side} input; connect one with side '{side}'", node=node["id"])


def _port_problems(node: dict[str, Any], input_count: int, output_count: int) -> Iterator[Problem]:
    spec = operator_spec(node["type"])
    if spec is None:
        return
    declared_inputs = spec["inputs"]
    if declared_inputs == 0 and input_count:
        yield Problem("a source takes no input edges", node=node["id"])
    elif declared_inputs != 0 and input_count == 0:
        yield Problem("this operator has no input; connect an upstream node", node=node["id"])
    elif declared_inputs == 1 and input_count > 1:
        yield Problem(f"this operator takes one input but has {input_count}; put a union in front",
                      node=node["id"])
    elif declared_inputs == 2 and input_count == 1:
        yield Problem("this operator joins two inputs but has one; connect a left and a right input",
                      node=node["id"])
    if spec["outputs"] == 0 and output_count:
        yield Problem("a sink has no outputs", node=node["id"])
    elif spec["outputs"] and output_count == 0:  # counts the main output only: ports are optional
        yield Problem("the output of this operator goes nowhere; connect it to a sink", node=node["id"])


def _cycle_problems(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> Iterator[Problem]:
    """Report each edge inside a strongly connected component: exactly the cycle edges."""
    index = {node["id"]: position for position, node in enumerate(nodes)}
    usable = [e for e in edges if e["from"] in index and e["to"] in index and e["from"] != e["to"]]
    successors: list[list[int]] = [[] for _ in nodes]
    for edge in usable:
        successors[index[edge["from"]]].append(index[edge["to"]])
    component_of = {}
    for number, component in enumerate(strongly_connected_components(successors)):
        for node in component:
            component_of[node] = number
    for edge in usable:
        if component_of[index[edge["from"]]] == component_of[index[edge["to"]]]:
            yield Problem(f"edge '{edge['from']}' -> '{edge['to']}' is part of a cycle; pipelines must be acyclic",
                          edge=edge["id"])


def errors_for(definition: Any) -> Iterable[str]:
    """Human-readable lines for a CLI or a log."""
    return [_describe(error) for error in validate_definition(definition)]
