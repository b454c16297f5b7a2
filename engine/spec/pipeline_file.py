"""A pipeline as a file: YAML a person can read, review and diff, that reads back to the same definition.

A definition (the JSON the studio stores and the engine runs) is written with its keys in one
fixed order, nodes and edges in the order they have, and the editor's layout (every ``ui``)
moved out of the logic into a ``layout`` section at the end, so a change of positions is a
change of that section only and a review shows the logic apart from the drawing:

>>> text = pipeline_to_text({"format": 1, "name": "double", "nodes": [
...     {"id": "m", "type": "transform.map", "params": {"expression": "x * 2"}, "ui": {"x": 10, "y": 20}}],
...     "edges": []})
>>> print(text, end="")
format: 1
name: double
nodes:
- id: m
  type: transform.map
  params:
    expression: x * 2
edges: []
layout:
  nodes:
    m: {x: 10, y: 20}
>>> pipeline_from_text(text)["nodes"][0]["ui"]
{'x': 10, 'y': 20}

Writing over a file that exists keeps what a person added to it: comments, and the order of
keys inside ``params``. Reading refuses what is not a definition with a message that names
the line, so ``studio validate`` can point at it.
"""
from __future__ import annotations

import copy
import io
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

SUFFIX = ".pipeline.yaml"
TOP_KEYS = ("format", "name", "mode", "parallelism", "max_parallelism", "checkpointing", "restart",
            "debloat", "latency_tracking", "nodes", "edges", "tests")
NODE_KEYS = ("id", "type", "name", "parallelism", "restore_state_of", "params")
EDGE_KEYS = ("id", "from", "from_port", "to", "partitioning", "key", "exchange", "side")
LAYOUT = "layout"


class PipelineFileError(ValueError):
    """The text is not a pipeline file; ``line`` (1-based) says where, when it is known."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


def pipeline_file_name(name: str, unique: str = "") -> str:
    """The file a pipeline named ``name`` is kept in: ``orders-by-minute.pipeline.yaml`` for "Orders by
    minute"; ``unique`` (an id) goes before the suffix where two names would make one file."""
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "pipeline"
    return f"{stem}-{unique}{SUFFIX}" if unique else f"{stem}{SUFFIX}"


def pipeline_to_text(definition: dict[str, Any], existing: str | None = None) -> str:
    """The file's text for ``definition``; over ``existing`` text, its comments are kept."""
    document = _document(definition)
    if existing:
        try:
            kept = _yaml().load(existing)
        except YAMLError:
            kept = None
        if isinstance(kept, CommentedMap):
            document = _merged(kept, document)
    out = io.StringIO()
    _yaml().dump(document, out)
    return out.getvalue()


def pipeline_from_text(text: str) -> dict[str, Any]:
    """The definition a file holds, with the layout put back on its nodes, edges and pipeline."""
    try:
        loaded = _yaml().load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise PipelineFileError(error.problem or str(error), mark.line + 1 if mark else None) from None
    except YAMLError as error:
        raise PipelineFileError(str(error)) from None
    if not isinstance(loaded, dict):
        raise PipelineFileError("a pipeline file is a mapping with format, nodes and edges", 1)
    definition = _plain(loaded)
    layout = definition.pop(LAYOUT, None) or {}
    if not isinstance(layout, dict):
        raise PipelineFileError("layout must be a mapping of nodes, edges and pipeline", _line_of(loaded, LAYOUT))
    _apply_layout(definition, layout)
    return definition


def logic_of(definition: dict[str, Any]) -> dict[str, Any]:
    """The definition without its layout: what a run does, for comparing two versions' logic."""
    logic = copy.deepcopy(definition)
    logic.pop("ui", None)
    for item in [*logic.get("nodes", []), *logic.get("edges", [])]:
        if isinstance(item, dict):
            item.pop("ui", None)
    return logic


def _document(definition: dict[str, Any]) -> CommentedMap:
    document = CommentedMap()
    for key in _ordered(definition, TOP_KEYS):
        if key in ("nodes", "edges"):
            order = NODE_KEYS if key == "nodes" else EDGE_KEYS
            document[key] = CommentedSeq(_item(item, order) for item in definition[key])
        elif key != "ui":
            document[key] = _readable(definition[key])
    layout = _layout(definition)
    if layout:
        document[LAYOUT] = layout
    return document


def _item(item: Any, order: tuple[str, ...]) -> Any:
    if not isinstance(item, dict):
        return copy.deepcopy(item)
    mapped = CommentedMap()
    for key in _ordered(item, order):
        if key != "ui":
            mapped[key] = _readable(item[key])
    return mapped


def _readable(value: Any) -> Any:
    """A copy in which text of several lines (Python code, SQL, long expressions) is a block."""
    if isinstance(value, dict):
        return CommentedMap((_readable(key), _readable(item)) for key, item in value.items())
    if isinstance(value, list):
        return CommentedSeq(_readable(item) for item in value)
    if isinstance(value, str) and "\n" in value and _blockable(value):
        return LiteralScalarString(value)
    if isinstance(value, str) and not value.isprintable():
        return DoubleQuotedScalarString(value)  # escaped: a plain scalar reads NEL or U+2028 as a space
    return value


def _blockable(text: str) -> bool:
    """A block keeps the text exactly unless it holds characters YAML cannot show in one."""
    return all(char == "\n" or char.isprintable() or char == "\t" for char in text) and not text.startswith(" ")


def _ordered(mapping: dict[str, Any], order: tuple[str, ...]) -> list[str]:
    """Known keys in their fixed order, then any other key in alphabetical order."""
    return [key for key in order if key in mapping] + sorted(key for key in mapping if key not in order)


def _layout(definition: dict[str, Any]) -> CommentedMap:
    layout = CommentedMap()
    for kind in ("nodes", "edges"):
        placed = CommentedMap()
        for item in definition.get(kind, []):
            if isinstance(item, dict) and "ui" in item and isinstance(item.get("id"), str):
                placed[_readable(item["id"])] = _flow(item["ui"])
        if placed:
            layout[kind] = placed
    if "ui" in definition:
        layout["pipeline"] = _flow(definition["ui"])
    return layout


def _flow(value: Any) -> Any:
    """A position on one line (``{x: 10, y: 20}``): layout reads as a table, not a tree."""
    if isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
        mapped = CommentedMap(value)
        mapped.fa.set_flow_style()
        return mapped
    return copy.deepcopy(value)


def _apply_layout(definition: dict[str, Any], layout: dict[str, Any]) -> None:
    for kind in ("nodes", "edges"):
        placed = layout.get(kind) or {}
        for item in definition.get(kind) or []:
            if isinstance(item, dict) and item.get("id") in placed:
                item["ui"] = placed[item["id"]]
    if "pipeline" in layout:
        definition["ui"] = layout["pipeline"]


def _merged(kept: Any, new: Any) -> Any:
    """``new``'s values in ``kept``'s containers, so the comments attached to them stay.

    A mapping keeps the order its keys have in the file while its keys stay the same (a person
    may order ``params`` as they read best); once keys come or go, it takes the new order.
    Lists of items with ids (nodes, edges) are matched by id, other lists by position."""
    if isinstance(kept, CommentedMap) and isinstance(new, dict):
        same_keys = set(kept) == set(new)
        for key in [key for key in kept if key not in new]:
            del kept[key]
        for key, value in new.items():
            kept[key] = _merged(kept[key], value) if key in kept else value
        return kept if same_keys else _reordered(kept, list(new))
    if isinstance(kept, CommentedSeq) and isinstance(new, list):
        if all(isinstance(item, dict) and "id" in item for item in new):
            by_id = {item["id"]: item for item in kept if isinstance(item, CommentedMap) and "id" in item}
            merged = [_merged(by_id[item["id"]], item) if item["id"] in by_id else item for item in new]
        elif len(kept) == len(new):
            merged = [_merged(old, item) for old, item in zip(kept, new)]
        else:
            return new
        result = CommentedSeq(merged)
        if [id(item) for item in merged] == [id(item) for item in kept]:
            kept.copy_attributes(result)  # same items in the same places: the list's own comments still fit
        return result
    return new


def _reordered(kept: CommentedMap, order: list[str]) -> CommentedMap:
    result = CommentedMap()
    for key in order:
        result[key] = kept[key]
    kept.copy_attributes(result)  # comments of a mapping are kept by key, so they follow their keys
    return result


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _line_of(mapping: Any, key: str) -> int | None:
    try:
        return mapping.lc.key(key)[0] + 1
    except (AttributeError, KeyError, TypeError):
        return None


def _yaml() -> YAML:
    yaml = YAML()  # round trip: comments and key order survive load and dump
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.width = 100
    yaml.preserve_quotes = True
    yaml.representer.add_representer(type(None), _null)
    return yaml


def _null(representer, _value):
    """``count: null``, not ``count:``: an empty value reads as a mistake."""
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")
