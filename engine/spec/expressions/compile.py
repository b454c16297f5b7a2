"""The entry points: check and compile an expression, once, into the form an operator runs."""
from __future__ import annotations

import ast
import functools
from collections.abc import Callable

from engine.spec.expressions.check import DEFAULT_NAMES, Checker, check_names
from engine.spec.expressions.codegen import (FOLD_STEPS, make_batch_filter, make_batch_function, make_batch_steps,
                                             make_fields_batch_function, make_function, make_keyed_fold, make_router)
from engine.spec.expressions.constant_parts import check_constant_parts
from engine.spec.expressions.errors import ExpressionError
from engine.spec.expressions.parse import parse
from engine.spec.expressions.rewrite import Rewriter


def _filename(source: str) -> str:
    shown = source if len(source) <= 80 else source[:77] + "..."
    return f"<expression: {shown}>"


class Expression:
    """A checked and compiled expression; immutable, picklable (by its source) and cheap to call.

    ``function`` is the compiled function; the hot path calls it directly, ``fn(x)``.
    Calling the Expression itself does the same, with one more call's cost.
    """

    __slots__ = ("source", "names", "function")

    def __init__(self, source: str, names: tuple[str, ...], function: Callable):
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "function", function)

    def __setattr__(self, name, value):
        raise AttributeError("an Expression is immutable")

    def __call__(self, *values):
        return self.function(*values)

    def __eq__(self, other):
        if not isinstance(other, Expression):
            return NotImplemented
        return (self.source, self.names) == (other.source, other.names)

    def __hash__(self):
        return hash((self.source, self.names))

    def __repr__(self):
        names = "" if self.names == DEFAULT_NAMES else f", names={self.names!r}"
        return f"Expression({self.source!r}{names})"

    def __reduce__(self):
        return compile_expression, (self.source, self.names)


def compile_expression(source: str, names: tuple[str, ...] = DEFAULT_NAMES) -> Expression:
    """Check and compile an expression over ``names``; raise ExpressionError when it is not allowed.

    >>> compile_expression("x * 2")(21)
    42
    >>> compile_expression('{"user": x % 10, "amount": x}').function(13)
    {'user': 3, 'amount': 13}
    """
    return _compile(_require_text(source), check_names(names))


@functools.lru_cache(maxsize=1024)
def _compile(source: str, names: tuple[str, ...]) -> Expression:
    """Compile once per (source, names): every subtask of an operator shares the result."""
    return Expression(source, names, make_function(_checked_body(source, names), names, _filename(source)))


def compile_batch_expression(source: str, name: str = "x") -> Callable[[list], list]:
    """Check and compile an expression over one name into ``f(batch) -> [value per record]``.

    The expression runs inside one list comprehension, so a batch costs no Python call
    per record: about a third cheaper than ``[f(x) for x in batch]`` for short expressions.

    >>> compile_batch_expression("x % 3")([4, 5, 6])
    [1, 2, 0]
    """
    return _compile_batch(_require_text(source), check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_batch(source: str, name: str) -> Callable[[list], list]:
    return make_batch_function(_checked_body(source, (name,)), name, _filename(source))


def compile_batch_filter(source: str, name: str = "x") -> Callable[[list], list]:
    """Check and compile a predicate over one name into ``f(batch) -> [records it holds for]``.

    Like ``compile_batch_expression``, the predicate runs inside one list comprehension:
    no Python call per record.

    >>> compile_batch_filter("x % 3 != 0")([4, 5, 6])
    [4, 5]
    """
    return _compile_filter(_require_text(source), check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_filter(source: str, name: str) -> Callable[[list], list]:
    return make_batch_filter(_checked_body(source, (name,)), name, _filename(source))


def compile_batch_router(source: str, name: str = "x") -> Callable[[list, dict, list], None]:
    """Check and compile a key expression into ``route(batch, channel_of_key, appends)``.

    For each record it calls ``appends[channel_of_key[<key of the record>]](record)``: the
    hash partitioner's whole per-record work in one loop with the expression inline. A key
    missing from ``channel_of_key`` raises KeyError (an unhashable one TypeError) part-way
    through the batch; the caller then routes the whole batch another way.

    >>> outputs = [[], []]
    >>> compile_batch_router("x % 2")([1, 2, 3], {0: 0, 1: 1}, [o.append for o in outputs])
    >>> outputs
    [[2], [1, 3]]
    """
    return _compile_router(_require_text(source), check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_router(source: str, name: str) -> Callable[[list, dict, list], None]:
    return make_router(_checked_body(source, (name,)), name, _filename(source))


def compile_batch_steps(steps: list[tuple[str, str]], name: str = "x") -> Callable[[list], list] | None:
    """Check and compile maps and filters applied one after another into ``f(batch) -> records``.

    ``steps`` are ``("map", expression)`` and ``("filter", predicate)`` pairs, in order; the
    result is what applying them one by one gives, from one comprehension with every
    expression inline: no list in between (a map and a filter cost about a fifth less).
    None when a map needs the guards' temporaries (``:=``, which Python does not allow in a
    comprehension's iterable, where a map's value is computed): apply the steps one by one then.

    >>> compile_batch_steps([("map", "x * 2"), ("filter", "x % 3 != 0")])([1, 2, 3])
    [2, 4]
    """
    if not steps or any(kind not in ("map", "filter") for kind, _ in steps):
        raise ExpressionError("steps are ('map', expression) and ('filter', predicate) pairs")
    return _compile_steps(tuple((kind, _require_text(source)) for kind, source in steps), check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_steps(steps: tuple[tuple[str, str], ...], name: str) -> Callable[[list], list] | None:
    bodies = [(kind, _checked_body(source, (name,))) for kind, source in steps]
    if any(kind == "map" and any(isinstance(node, ast.NamedExpr) for node in ast.walk(body))
           for kind, body in bodies):
        return None
    return make_batch_steps(bodies, name, _filename("; ".join(f"{kind} {source}" for kind, source in steps)))


def compile_fields_batch(source: str, attributes: dict[str, str], kind: str = "map",
                         name: str = "x") -> Callable[[list], list] | None:
    """``compile_batch_expression`` (``kind`` "map") or ``compile_batch_filter`` ("filter") over records
    that hold their fields as attributes (``attributes``: field name -> attribute name, each
    ``_field<n>``), as ``engine.runtime.json_fields`` decodes them: the same checked and rewritten
    expression, each ``x["field"]`` read as ``x._field<n>``. None when the expression uses the
    record otherwise (``x`` alone, ``x.get(...)``, a field not in ``attributes``).

    >>> class Event:
    ...     def __init__(self, user): self._field0 = user
    >>> [event._field0 for event in compile_fields_batch('x["user"] != "a"', {"user": "_field0"}, "filter")(
    ...     [Event("a"), Event("b")])]
    ['b']
    """
    if kind not in ("map", "filter"):
        raise ExpressionError("kind is 'map' or 'filter'")
    if not all(attribute.startswith("_field") and attribute[6:].isdigit() for attribute in attributes.values()):
        raise ExpressionError("attributes are named _field<n>")
    return _compile_fields_batch(_require_text(source), tuple(sorted(attributes.items())), kind,
                                 check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_fields_batch(source: str, attributes: tuple[tuple[str, str], ...], kind: str,
                          name: str) -> Callable[[list], list] | None:
    return make_fields_batch_function(_checked_body(source, (name,)), name, _filename(source), dict(attributes), kind)


KEYED_FOLDS = tuple(FOLD_STEPS)
"""The running aggregates ``compile_keyed_fold`` compiles."""


def compile_keyed_fold(key: str, value: str | None, function: str, name: str = "x",
                       rolling: bool = True) -> Callable[[list, Callable, dict, Callable, object], None]:
    """Check and compile a running aggregate by key into ``fold(batch, get, entries, append, missing)``.

    For each record, in one loop with both expressions inline: its key, its value (``None``:
    the record itself), the key's new aggregate from ``get(key, 0 or missing)`` (``missing``
    stands for a key without one), stored into ``entries[key]`` and passed to
    ``append([key, aggregate])``. Computing the keys and values as lists first and folding
    them afterwards cost ``aggregate.reduce`` about a sixth more per record. An expression
    that fails raises part-way through the batch, with the entries of the records before it
    already updated (the subtask then fails and restarts from its checkpoint). Not ``rolling``
    (batch mode: only each key's final aggregate leaves, from the table), nothing is appended.

    >>> totals, output = {}, []
    >>> compile_keyed_fold("x % 2", None, "sum")([1, 2, 3], totals.get, totals, output.append, object())
    >>> output
    [[1, 1], [0, 2], [1, 4]]
    >>> compile_keyed_fold("x % 2", None, "sum", rolling=False)([5], totals.get, totals, output.append, object())
    >>> totals, len(output)
    ({1: 9, 0: 2}, 3)
    """
    if function not in FOLD_STEPS:
        raise ExpressionError(f"unknown aggregate function '{function}'")
    return _compile_keyed_fold(_require_text(key), None if value is None else _require_text(value), function,
                               check_names((name,))[0], bool(rolling))


@functools.lru_cache(maxsize=1024)
def _compile_keyed_fold(key: str, value: str | None, function: str, name: str, rolling: bool) -> Callable:
    value_body = ast.Name(id=name, ctx=ast.Load()) if value is None else _checked_body(value, (name,))
    filename = _filename(f"{function} of {value or name} by {key}")
    return make_keyed_fold(_checked_body(key, (name,)), value_body, function, name, filename, rolling)


def _require_text(source) -> str:
    if not isinstance(source, str):
        raise ExpressionError(f"an expression must be a string, not {type(source).__name__}")
    return source


def _checked_body(source: str, names: tuple[str, ...]) -> ast.expr:
    """Parse, check and rewrite ``source``: the body every compiled form is built from."""
    text, tree = parse(source)
    Checker(text, names).visit(tree)
    body = Rewriter(names, tree).rewrite(tree)
    check_constant_parts(body, names, text)
    return body


def check_expression(source: str, names: tuple[str, ...] = DEFAULT_NAMES) -> str | None:
    """Return None when the expression is valid, else the message saying what is wrong."""
    try:
        compile_expression(source, names)
    except ExpressionError as exc:
        return exc.message
    return None
