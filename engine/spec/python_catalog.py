"""Catalog entry of ``transform.python``: a Python function written in the editor.

Unlike every other operator it runs code the definition brings, with the worker's full
rights: no expression language, no budget. So it is for trusted users only -- the studio
lets only users with its dedicated permission save or run a pipeline that contains one
(``studio.trusted_code``) -- and the engine never runs the code while validating: it only
parses it (``code_problems``), so a syntax error or a missing ``process`` is reported
naming the node and ``params.code``, like any other parameter.

The code's parameter carries ``"format": "python"`` so that the editor shows a Python
code editor and the version diff shows it line by line.
"""
from __future__ import annotations

import ast
from typing import Any

from engine.spec.catalog_schema import operator_entry, params_object

PYTHON_TYPE = "transform.python"
HOOKS = ("open", "process", "snapshot", "restore")
MAX_CODE_CHARACTERS = 100_000
EXAMPLE = '''\
def open(context):
    """Once per subtask, before the first batch: context has node, subtask, parallelism."""
    global seen
    seen = 0


def process(records):
    """A batch of records in, a list of records out."""
    global seen
    seen += len(records)
    return [{"value": record, "seen": seen} for record in records]


def snapshot():
    """At every checkpoint: this subtask's state (any picklable value)."""
    return seen


def restore(states):
    """After a restore: the snapshots this subtask takes over (several after a rescale)."""
    global seen
    seen = sum(states)
'''


def python_operators() -> list[dict[str, Any]]:
    return [operator_entry(
        PYTHON_TYPE, "Python function",
        "Runs Python code written here on every batch: process(records) returns the records that leave. "
        "Optional hooks: open(context) once per subtask, snapshot() at every checkpoint (plain data: "
        "containers, numbers, strings, bytes, dates, decimals) and restore(states) after a restore, with the "
        "snapshots this subtask takes over. Records keep "
        "their event times when process returns one record per input, else they take the batch's newest. "
        "Only users with the permission to run Python code may save or run a pipeline containing it.",
        params_object({"code": {"type": "string", "format": "python", "minLength": 1, "maxLength": MAX_CODE_CHARACTERS,
                          "default": EXAMPLE,
                          "description": "Python defining process(records) and optionally open, snapshot and "
                                         "restore."}}, ["code"]),
        stateful=True,
    )]


def code_problems(code: str) -> list[str]:
    """What is wrong with the code, found by parsing it (never by running it)."""
    try:
        tree = ast.parse(code, filename="<transform.python>")
    except SyntaxError as error:
        return [f"line {error.lineno}: {error.msg}"]
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    problems = []
    if "process" not in functions:
        problems.append("the code defines no process(records) function at its top level")
    for name in HOOKS:
        function = functions.get(name)
        if isinstance(function, ast.AsyncFunctionDef):
            problems.append(f"line {function.lineno}: {name} must be a plain function, not async")
    return problems
