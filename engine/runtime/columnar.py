"""Columnar integer batches: a source's numbers through maps, filters and a hash exchange as arrays.

Why: a record costs the engine at least one Python step per operator (a comprehension's
turn, a dict lookup and an append to route it), so a job over plain integers spends most of
its time on per-record interpreter work whatever the engine does around it; profiled on the
benchmark job, generating, mapping, filtering and routing its numbers took half of a p=2
slot's time. Where the records are integers from ``source.datagen`` and the expressions
are integer arithmetic, numpy does that work a whole batch at a time, and the records
become Python objects only where an operator needs them (``tolist``, ~15 ns a record).

What is compiled (``compile_int_steps``, ``compile_int_key``): the name ``x``, integer
constants, ``+ - *``, ``//`` and ``%`` by a non-zero integer constant, unary ``-``/``+``,
comparisons (chained too), and for filters ``and``/``or``/``not`` and the truth of a number.
Anything else -- a float, a string, a call, a field, ``/``, ``**`` -- keeps the Python path.

Exactness: numpy's int64 ``//`` and ``%`` round as Python's do, and its arithmetic is exact
as long as nothing leaves the int64 range, where Python's integers simply grow. So each
batch's bounds (its minimum and maximum) are carried through the expression by interval
arithmetic, and a batch whose bounds could leave ``±LIMIT`` is not computed here at all: it
goes the Python way (``None``), so a record never sees a wrapped number. Nothing here can
raise: the only divisors are non-zero constants.

Key groups (``key_groups_of``): the integer hash of ``engine.runtime.state.key_groups``
(``((k * _GOLDEN) & _MASK32) >> 8``) taken on unsigned 64-bit words, whose low 32 bits are
those of Python's product for negative keys too, so a key reaches the same subtask as on
the Python path. Keys whose bounds are a small range seen before take their channel from a
table of that range instead (``ChannelsOfKeys``). A part for a channel to another slot
process stays an int64 array (``split_by_channel``'s ``as_arrays``) and crosses as its bytes
(``engine.runtime.io.tcp_channel``); every other part becomes Python ints here.
"""
from __future__ import annotations

import ast
import operator
from typing import Callable

import numpy as np

from engine.runtime.state.key_groups import _GOLDEN, _MASK32

LIMIT = 2**62
"""Bound on every intermediate value of a columnar evaluation (int64 holds up to 2**63 - 1)."""

Bounds = tuple[int, int]
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


class _Compiled:
    """One sub-expression: its kind ("int" or "bool"), its values over an array, and the bounds
    of its values given the bounds of ``x`` (None: it could leave ``±LIMIT``)."""

    __slots__ = ("kind", "values", "bounds")

    def __init__(self, kind: str, values: Callable, bounds: Callable[[int, int], Bounds | None]):
        self.kind, self.values, self.bounds = kind, values, bounds


def _within(low: int, high: int) -> Bounds | None:
    return (low, high) if -LIMIT < low and high < LIMIT else None


def _compile(node: ast.expr, name: str) -> _Compiled | None:
    """Compile ``node`` if every part of it is in the columnar subset, else None."""
    if isinstance(node, ast.Name) and node.id == name:
        return _Compiled("int", lambda x: x, _within)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        value = node.value
        return _Compiled("int", lambda x: value, lambda low, high: _within(value, value)) \
            if -LIMIT < value < LIMIT else None
    if isinstance(node, ast.UnaryOp):
        return _unary(node, name)
    if isinstance(node, ast.BinOp):
        return _binary(node, name)
    if isinstance(node, ast.Compare):
        return _comparison(node, name)
    if isinstance(node, ast.BoolOp):
        return _boolean(node, name)
    return None


def _unary(node: ast.UnaryOp, name: str) -> _Compiled | None:
    operand = _compile(node.operand, name)
    if operand is None:
        return None
    values, bounds = operand.values, operand.bounds
    if isinstance(node.op, ast.Not):
        return _Compiled("bool", lambda x: np.logical_not(values(x)), bounds)
    if operand.kind != "int":
        return None
    if isinstance(node.op, ast.UAdd):
        return operand
    if isinstance(node.op, ast.USub):
        def negated_bounds(low: int, high: int) -> Bounds | None:
            inner = bounds(low, high)
            return None if inner is None else _within(-inner[1], -inner[0])
        return _Compiled("int", lambda x: -values(x), negated_bounds)
    return None


def _binary(node: ast.BinOp, name: str) -> _Compiled | None:
    left, right = _compile(node.left, name), _compile(node.right, name)
    if left is None or right is None or left.kind != "int" or right.kind != "int":
        return None
    op = node.op
    if isinstance(op, (ast.FloorDiv, ast.Mod)):
        divisor = _constant_int(node.right)
        if not divisor:
            return None  # only a non-zero constant: nothing can divide by zero
        return _division(left, divisor, isinstance(op, ast.Mod))
    if isinstance(op, ast.Add):
        combine, span = operator.add, lambda a, b: (a[0] + b[0], a[1] + b[1])
    elif isinstance(op, ast.Sub):
        combine, span = operator.sub, lambda a, b: (a[0] - b[1], a[1] - b[0])
    elif isinstance(op, ast.Mult):
        combine = operator.mul

        def span(a, b):
            products = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
            return min(products), max(products)
    else:
        return None
    left_values, right_values, left_bounds, right_bounds = left.values, right.values, left.bounds, right.bounds

    def bounds(low: int, high: int) -> Bounds | None:
        a, b = left_bounds(low, high), right_bounds(low, high)
        return None if a is None or b is None else _within(*span(a, b))

    return _Compiled("int", lambda x: combine(left_values(x), right_values(x)), bounds)


def _constant_int(node: ast.expr) -> int | None:
    """The value of an integer constant, signed or not (``-3`` parses as minus three)."""
    sign = 1
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -sign if isinstance(node.op, ast.USub) else sign
        node = node.operand
    return sign * node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _division(dividend: _Compiled, divisor: int, remainder: bool) -> _Compiled:
    values, inner = dividend.values, dividend.bounds

    def bounds(low: int, high: int) -> Bounds | None:
        a = inner(low, high)
        if a is None:
            return None
        if remainder:
            return (0, divisor - 1) if divisor > 0 else (divisor + 1, 0)
        quotients = (a[0] // divisor, a[1] // divisor)
        return _within(min(quotients), max(quotients))

    if remainder:
        return _Compiled("int", lambda x: values(x) % divisor, bounds)
    return _Compiled("int", lambda x: values(x) // divisor, bounds)


def _comparison(node: ast.Compare, name: str) -> _Compiled | None:
    parts = [_compile(part, name) for part in [node.left, *node.comparators]]
    if any(part is None or part.kind != "int" for part in parts):
        return None
    tests = [_COMPARE.get(type(op)) for op in node.ops]
    if None in tests:
        return None
    pairs = list(zip(tests, parts, parts[1:]))

    def values(x):
        result = None
        for test, left, right in pairs:
            outcome = test(left.values(x), right.values(x))
            result = outcome if result is None else np.logical_and(result, outcome)
        return result

    def bounds(low: int, high: int) -> Bounds | None:
        return (0, 1) if all(part.bounds(low, high) is not None for part in parts) else None

    return _Compiled("bool", values, bounds)


def _boolean(node: ast.BoolOp, name: str) -> _Compiled | None:
    parts = [_compile(value, name) for value in node.values]
    if any(part is None for part in parts):
        return None
    combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or

    def values(x):
        result = _truth(parts[0].values(x))
        for part in parts[1:]:
            result = combine(result, _truth(part.values(x)))
        return result

    def bounds(low: int, high: int) -> Bounds | None:
        return (0, 1) if all(part.bounds(low, high) is not None for part in parts) else None

    return _Compiled("truth", values, bounds)  # a truth only: ``and``/``or`` give operands in Python


def _truth(values):
    return values if getattr(values, "dtype", None) == np.bool_ else np.not_equal(values, 0)


def _parse(source: str) -> ast.expr | None:
    try:
        return ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None


def compile_int_expression(source: str, name: str = "x") -> _Compiled | None:
    """The integer-valued expression ``source`` over arrays, or None when it is not in the subset."""
    node = _parse(source)
    compiled = _compile(node, name) if node is not None else None
    return compiled if compiled is not None and compiled.kind == "int" else None


def compile_int_steps(steps: list[tuple[str, str]], name: str = "x") -> Callable[[np.ndarray], np.ndarray | None] | None:
    """``("map", expression)`` and ``("filter", predicate)`` steps applied to an int64 array, or None
    when a step is not in the subset. The function returns None for a batch whose values could
    leave ``±LIMIT`` on the way (it must take the Python path). Its ``bounded`` attribute does the
    same and returns the result with bounds every value of it lies within (``(array, (low, high))``,
    the bounds None for an empty result), which a hash edge's key takes instead of a minimum and a
    maximum of its own (``IntKey.with_bounds``).

    >>> run = compile_int_steps([("map", "x * 2"), ("filter", "x % 3 != 0")])
    >>> run(np.arange(5)).tolist()
    [2, 4, 8]
    >>> result, bounds = run.bounded(np.arange(5))
    >>> result.tolist(), bounds
    ([2, 4, 8], (0, 8))
    """
    compiled = []
    for kind, source in steps:
        node = _parse(source)
        step = _compile(node, name) if node is not None else None
        if step is None or (kind == "map" and step.kind != "int"):
            return None
        compiled.append((kind == "map", step.values, step.bounds))

    def bounded(batch: np.ndarray) -> tuple[np.ndarray, Bounds | None] | None:
        if not len(batch):
            return batch, None
        low, high = int(batch.min()), int(batch.max())
        for is_map, values, bounds in compiled:
            computed = bounds(low, high)
            if computed is None:
                return None
            if is_map:
                batch = _as_array(values(batch), len(batch))
                low, high = computed
            else:  # what a filter keeps lies within the bounds of what it was given
                batch = batch[_truth(_as_array(values(batch), len(batch)))]
                if not len(batch):
                    return batch, None
        return batch, (low, high)

    def run(batch: np.ndarray) -> np.ndarray | None:
        result = bounded(batch)
        return None if result is None else result[0]

    run.bounded = bounded  # type: ignore[attr-defined]
    return run


def _as_array(values, length: int) -> np.ndarray:
    """An expression of constants only gives one number; a batch needs one per record."""
    return values if isinstance(values, np.ndarray) else np.full(length, values, dtype=np.int64)


class IntKey:
    """A key expression over int64 arrays (``compile_int_key``)."""

    __slots__ = ("_values", "_bounds")

    def __init__(self, values: Callable, bounds: Callable[[int, int], Bounds | None]):
        self._values, self._bounds = values, bounds

    def __call__(self, batch: np.ndarray) -> np.ndarray | None:
        """The keys of ``batch``, or None when they could leave ``±LIMIT``."""
        keyed = self.with_bounds(batch)
        return None if keyed is None else keyed[0]

    def with_bounds(self, batch: np.ndarray, batch_bounds: Bounds | None = None) -> tuple[np.ndarray, Bounds] | None:
        """The keys of ``batch`` and bounds every key lies within, or None as above (or when empty).
        ``batch_bounds``: bounds every record of ``batch`` lies within, when known (``compile_int_steps``'
        ``bounded``); else the batch's minimum and maximum."""
        if not len(batch):
            return None
        if batch_bounds is None:
            batch_bounds = int(batch.min()), int(batch.max())
        bounds = self._bounds(*batch_bounds)
        if bounds is None:
            return None
        return _as_array(self._values(batch), len(batch)), bounds


def compile_int_key(source: str, name: str = "x") -> IntKey | None:
    """The key expression ``source`` over int64 arrays, or None when it is not in the subset."""
    compiled = compile_int_expression(source, name)
    return None if compiled is None else IntKey(compiled.values, compiled.bounds)


GROUPED_FUNCTIONS = {"sum": np.add, "min": np.minimum, "max": np.maximum}
"""The aggregates ``grouped_aggregates`` computes with a ufunc's ``reduceat`` (count: run lengths)."""


def grouped_aggregates(keys: np.ndarray, values: np.ndarray | None, function: str) -> tuple[list, list]:
    """Each distinct key of ``keys`` once, with the ``function`` (sum, count, min, max) of its
    ``values`` (None for count), both as Python ints: a stable sort by key, then one ``reduceat``
    over the runs. The caller checked that no sum leaves int64 (values within ±``LIMIT`` divided
    by the length). Batch mode's aggregate folds int64 records this way (``aggregate.reduce``'s
    ``fold_int_array``): sum, count, min and max do not depend on the order of a key's records.

    >>> grouped_aggregates(np.array([3, 1, 3, 2, 1]), np.array([10, 20, 30, 40, 50]), "sum")
    ([1, 2, 3], [70, 40, 40])
    >>> grouped_aggregates(np.array([3, 1, 3]), None, "count")
    ([1, 3], [1, 2])
    """
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    if function == "count":
        partials = np.diff(np.append(starts, len(keys)))
    else:
        partials = GROUPED_FUNCTIONS[function].reduceat(values[order], starts)
    return sorted_keys[starts].tolist(), partials.tolist()


_GOLDEN_64 = np.uint64(_GOLDEN)
_MASK_64 = np.uint64(_MASK32)
_EIGHT = np.uint64(8)


def key_groups_of(keys: np.ndarray, max_parallelism: int) -> np.ndarray:
    """``key_group_for`` of each int64 key, a whole array at once."""
    scrambled = ((keys.astype(np.uint64) * _GOLDEN_64) & _MASK_64) >> _EIGHT
    return (scrambled % np.uint64(max_parallelism)).astype(np.intp)


KEY_TABLE_SPAN = 1 << 16
"""Widest range of keys whose channels ``ChannelsOfKeys`` keeps in a table."""


class ChannelsOfKeys:
    """The channel of each int64 key: its key group (``key_groups_of``) through the partitioner's
    group -> channel table, or one lookup where the keys' bounds are a small range seen before.

    Why: hashing a key to its group takes six array operations, and numpy's fixed cost per
    operation on a batch of a few hundred records is about that of the work itself. Keys of
    a bounded expression (``x % 1000``: 0..999) have the same bounds batch after batch, so
    the second batch with those bounds builds the channel of every key in the range once,
    and every later one is routed by ``table[keys - low]``.
    """

    _KEPT = 16
    """Tables (and sightings of bounds without one) kept at most; beyond, they start afresh."""

    def __init__(self, channel_of_group: np.ndarray, max_parallelism: int):
        self._channel_of_group = channel_of_group
        self._max_parallelism = max_parallelism
        self._tables: dict[Bounds, np.ndarray] = {}
        self._seen: set[Bounds] = set()

    def __call__(self, keys: np.ndarray, bounds: Bounds) -> np.ndarray:
        low, high = bounds
        if high - low < KEY_TABLE_SPAN:
            table = self._tables.get(bounds)
            if table is None and bounds in self._seen:
                table = self._table(low, high)
            if table is not None:
                return table[keys - low] if low else table[keys]
            if len(self._seen) >= self._KEPT:
                self._seen.clear()
            self._seen.add(bounds)
        return self._channel_of_group[key_groups_of(keys, self._max_parallelism)]

    def _table(self, low: int, high: int) -> np.ndarray:
        if len(self._tables) >= self._KEPT:
            self._tables.clear()
        keys = np.arange(low, high + 1, dtype=np.int64)
        table = self._tables[(low, high)] = self._channel_of_group[key_groups_of(keys, self._max_parallelism)]
        return table


def channel_table(channel_of_group: list[int], number_of_channels: int) -> np.ndarray:
    """The partitioner's key group -> channel list as the array ``ChannelsOfKeys`` looks channels up
    in, of the narrowest type ``split_by_channel`` splits by: at two channels a bool per group (True:
    channel 1), up to 8 a byte, beyond an ``intp``.

    Why: at parallelism 2 the split is the per-record work the exchange adds to a columnar source,
    and a bool mask halves it -- one gather of a byte per record and two selections, where channel
    numbers took a gather of 8 bytes, two comparisons and two selections."""
    dtype = np.bool_ if number_of_channels == 2 else np.uint8 if number_of_channels <= 8 else np.intp
    return np.array(channel_of_group, dtype=dtype)


def split_by_channel(values: np.ndarray, channels: np.ndarray, number_of_channels: int,
                     as_arrays: list[bool] | None = None) -> list[tuple]:
    """``(channel, records)`` for each channel that gets any, order kept within each: the records
    as Python ints, or as an int64 array for a channel ``as_arrays`` marks. ``channels``: each
    record's channel number, or at two channels a bool each (True: channel 1, ``channel_table``)."""
    if channels.dtype == np.bool_:  # (``compress``: about half the time of ``values[mask]``, measured)
        parts = ((0, values.compress(~channels)), (1, values.compress(channels)))
    elif number_of_channels <= 8:
        parts = ((channel, values.compress(channels == channel)) for channel in range(number_of_channels))
    else:
        order = np.argsort(channels, kind="stable")
        ordered = values[order]
        bounds = np.cumsum(np.bincount(channels, minlength=number_of_channels)).tolist()
        parts = ((channel, ordered[start:end]) for channel, (start, end) in enumerate(zip([0, *bounds], bounds)))
    return [(channel, part if as_arrays is not None and as_arrays[channel] else part.tolist())
            for channel, part in parts if len(part)]
