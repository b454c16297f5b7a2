"""``${param:name}`` and ``${secret:name}`` in a definition: found, checked and filled in.

A definition kept in the studio, in Git or in a file names the values that differ between
environments instead of holding them: ``"path": "${param:out_dir}"``, ``"parallelism":
"${param:parallelism}"``, ``"address": "postgresql://app:${secret:pg_password}@db/shop"``.
A reference that is a whole string takes the value with its type (a number stays a number);
one inside a longer string is replaced by the value's text. A parameter's value may itself
name secrets, never parameters (no chains to follow, no cycles).

>>> definition = {"parallelism": "${param:p}", "nodes": [
...     {"id": "m", "type": "transform.map", "params": {"expression": "x * ${param:factor}"}}]}
>>> filled, problems = fill_parameters(definition, {"p": 2, "factor": 3})
>>> filled["parallelism"], filled["nodes"][0]["params"]["expression"], problems
(2, 'x * 3', [])
>>> fill_parameters(definition, {"p": 2})[1][0]["message"]
"unknown parameter 'factor' (known: p)"

Filling parameters happens where a run is started (and the run's plan made); filling secrets
only inside the run's driver, just before the job is submitted.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

PARAM = "param"
SECRET = "secret"
NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_.-]{0,99}"
REFERENCE = re.compile(r"\$\{(param|secret):(" + NAME_PATTERN + r")\}")
VALUE_NAME = re.compile(r"^" + NAME_PATTERN + r"$")
"""What a parameter's or a secret's name may be."""
SKIPPED_KEYS = ("ui", "tests")
"""Parts of a definition that are not what a run does: the layout and test cases are left as written."""


@dataclass(frozen=True)
class Reference:
    """One reference: ``kind`` (param | secret) ``name``, at ``field`` of ``node`` (None: the pipeline's own)."""

    kind: str
    name: str
    node: str | None
    field: str
    whole: bool

    def problem(self, message: str) -> dict:
        return {"node": self.node, "edge": None, "field": self.field, "message": message}


def references_in(definition: Any) -> list[Reference]:
    """Every reference of ``definition``, in the order they are written."""
    return [Reference(match.group(1), match.group(2), node, field, bool(REFERENCE.fullmatch(text)))
            for _, _, text, node, field in _places(definition) for match in REFERENCE.finditer(text)]


def has_references(definition: Any) -> bool:
    return bool(references_in(definition))


def holds_reference(value: Any) -> bool:
    """Whether ``value`` is a string naming a parameter or a secret."""
    return isinstance(value, str) and REFERENCE.search(value) is not None


def fill_parameters(definition: dict, parameters: Mapping[str, Any]) -> tuple[dict, list[dict]]:
    """``definition`` with each ``${param:…}`` replaced by its value, and a problem for each unknown name
    (the node and field it is written at). Secrets, also those a value brings in, are left as written."""
    filled = copy.deepcopy(definition)
    problems: list[dict] = []
    for container, key, text, node, field in list(_places(filled)):
        container[key] = _replaced(text, PARAM, parameters, problems, node, field)
    return filled, problems


def fill_secrets(definition: dict, secrets: Mapping[str, str]) -> tuple[dict, list[dict]]:
    """``definition`` with each ``${secret:…}`` replaced by its value; a problem for each unknown name."""
    filled = copy.deepcopy(definition)
    problems: list[dict] = []
    for container, key, text, node, field in list(_places(filled)):
        container[key] = _replaced(text, SECRET, secrets, problems, node, field)
    return filled, problems


def with_stand_ins(definition: dict, schema_of) -> tuple[dict, set[tuple[str | None, str]]]:
    """``definition`` with every reference replaced by a value its field's JSON Schema accepts, and the
    ``(node, field)`` places that held one: what validation without an environment checks (all the rest),
    before dropping what it says about those places. ``schema_of(node, field)`` gives a field's schema."""
    filled = copy.deepcopy(definition)
    places: set[tuple[str | None, str]] = set()
    for container, key, text, node, field in list(_places(filled)):
        places.add((node, field))
        if REFERENCE.fullmatch(text):
            container[key] = _stand_in(schema_of(node, field) or {})
        else:
            container[key] = REFERENCE.sub("0", text)
    return filled, places


def about_places(problem: dict, places: set[tuple[str | None, str]]) -> bool:
    """Whether ``problem`` is about a place that held a reference (or a field inside one)."""
    field = problem.get("field") or ""
    return any(problem.get("node") == node and (field == place or field.startswith(place + "."))
               for node, place in places)


def _stand_in(schema: dict) -> Any:
    kinds = schema.get("type", "string")
    kinds = [kind for kind in (kinds if isinstance(kinds, list) else [kinds]) if kind != "null"] or ["string"]
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if kinds[0] in ("integer", "number"):
        return max(schema.get("minimum", 1), 1) if schema.get("maximum", 1) >= 1 else schema.get("minimum", 0)
    return {"boolean": False, "array": [], "object": {}}.get(kinds[0], "0")


def _replaced(text: str, kind: str, values: Mapping[str, Any], problems: list[dict], node: str | None,
              field: str) -> Any:
    whole = REFERENCE.fullmatch(text)
    if whole and whole.group(1) == kind:
        name = whole.group(2)
        if name not in values:
            problems.append(_unknown(kind, name, values, node, field))
            return text
        return values[name]

    def one(match: re.Match) -> str:
        if match.group(1) != kind:
            return match.group(0)
        if match.group(2) not in values:
            problems.append(_unknown(kind, match.group(2), values, node, field))
            return match.group(0)
        value = values[match.group(2)]
        return value if isinstance(value, str) else _text_of(value)

    return REFERENCE.sub(one, text)


def _text_of(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _unknown(kind: str, name: str, values: Mapping[str, Any], node: str | None, field: str) -> dict:
    if kind == PARAM:
        known = ", ".join(sorted(values)) or "none"
        message = f"unknown parameter {name!r} (known: {known})"
    else:  # a secret's name list is not a secret, but another user's names are not shown either
        message = f"unknown secret {name!r}: no secret of that name is yours"
    return {"node": node, "edge": None, "field": field, "message": message}


def _places(definition: Any) -> Iterator[tuple[Any, Any, str, str | None, str]]:
    """``(container, key, text, node, field)`` for each string holding a reference."""
    if not isinstance(definition, dict):
        return
    for key, value in definition.items():
        if key in SKIPPED_KEYS or key == "nodes":
            continue
        yield from _walk(definition, key, value, None, str(key))
    nodes = definition.get("nodes")
    for node in nodes if isinstance(nodes, list) else ():
        if not isinstance(node, dict):
            continue
        node_id = str(node.get("id")) if node.get("id") is not None else None
        for key, value in node.items():
            if key not in SKIPPED_KEYS:
                yield from _walk(node, key, value, node_id, str(key))


def _walk(container: Any, key: Any, value: Any, node: str | None, field: str) -> Iterator:
    if isinstance(value, str):
        if REFERENCE.search(value):
            yield container, key, value, node, field
    elif isinstance(value, dict):
        for inner_key, inner in value.items():
            yield from _walk(value, inner_key, inner, node, f"{field}.{inner_key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _walk(value, index, inner, node, f"{field}.{index}")



def field_schemas(definition: dict):
    """``schema_of(node, field)`` for :func:`with_stand_ins`: the JSON Schema of a pipeline's field
    (``parallelism``, ``checkpointing.interval_ms``) or of a node's (``parallelism``, ``params.count``)."""
    from engine.spec.catalog import operator_spec
    from engine.spec.validation import DEFINITION_SCHEMA

    types = {str(node.get("id")): node.get("type") for node in definition.get("nodes") or []
             if isinstance(node, dict)}

    def schema_of(node: str | None, field: str) -> dict | None:
        parts = field.split(".")
        if node is None:
            return _descend(DEFINITION_SCHEMA, parts)
        if parts[0] == "params":
            spec = operator_spec(types.get(node)) if isinstance(types.get(node), str) else None
            return _descend(spec["params_schema"], parts[1:]) if spec else None
        return _descend(DEFINITION_SCHEMA["properties"]["nodes"]["items"], parts)

    return schema_of


def _descend(schema: dict | None, parts: list[str]) -> dict | None:
    for part in parts:
        if not isinstance(schema, dict):
            return None
        schema = (schema.get("properties") or {}).get(part) or (
            schema.get("items") if part.isdigit() and isinstance(schema.get("items"), dict) else None)
    return schema
