"""Which fields of the record an expression reads: ``x["user"]`` and ``x.user`` name one each.

Used by the projection pushdown (``engine.runtime.projection``): a JSON source whose job reads
only some fields of its records decodes only those. The answer must never be too small, so
anything but a field read by a constant name -- ``x`` alone, ``x[0]``, ``x[k]``, ``x.get("a")``,
``{**x}``, ``len(x)`` -- means the whole record (None).
"""
from __future__ import annotations

import ast

from engine.spec.expressions.check import _BUILTIN_ATTRIBUTES
from engine.spec.expressions.parse import parse

_METHODS = _BUILTIN_ATTRIBUTES
"""``x.count`` is the method, not the field (see the language's rules)."""


def fields_read(source: str, name: str = "x") -> frozenset[str] | None:
    """The field names ``source`` reads of the record ``name``, or None when it may use more of it
    (or does not parse: the job's own checks say why)."""
    try:
        _text, tree = parse(source)
    except Exception:
        return None
    fields: set[str] = set()
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if (isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Constant)
                and isinstance(parent.slice.value, str)):
            fields.add(parent.slice.value)
        elif isinstance(parent, ast.Attribute) and parent.value is node and parent.attr not in _METHODS:
            fields.add(parent.attr)
        else:
            return None
    return frozenset(fields)


def single_field(source: str, name: str = "x") -> str | None:
    """The field ``source`` is nothing but a read of (``x["ts"]``, ``x.ts``), else None.

    >>> single_field('x["ts"]'), single_field("x.ts"), single_field('x["ts"] + 1'), single_field("x.count")
    ('ts', 'ts', None, None)
    """
    try:
        _text, tree = parse(source)
    except Exception:
        return None
    body = tree.body if isinstance(tree, ast.Expression) else tree
    if isinstance(body, ast.Subscript) and isinstance(body.value, ast.Name) and body.value.id == name \
            and isinstance(body.slice, ast.Constant) and type(body.slice.value) is str:
        return body.slice.value
    if isinstance(body, ast.Attribute) and isinstance(body.value, ast.Name) and body.value.id == name \
            and body.attr not in _METHODS:
        return body.attr
    return None
