"""The expression language of pipeline definitions: what a user may write per record.

Operators take small expressions for map projections (``x * 2``,
``{"user": x % 10, "amount": x}``), filter predicates (``x % 3 != 0``), flat maps
(``[x, x + 1]``), key selectors (``x["user"]``), timestamp extractors (``x["ts"]``) and
aggregate values. A pipeline definition is untrusted input, so an expression is Python
expression syntax cut down to an allow-list. It is checked once and compiled once into
a plain Python function, which then runs per record about as fast as a lambda.

What you can write
------------------
Names
    ``x`` is the current record. Some operators provide more names (for example ``key``
    or ``window_end``); no other names exist.
Values
    Numbers (``1``, ``2.5``, ``1_000``, ``0xff``), strings (``"a"``, ``'b'``), ``True``,
    ``False``, ``None``. Tuples ``(1, 2)``, lists ``[x, x + 1]``, sets ``{"a", "b"}`` and
    dicts ``{"user": x % 10}``; ``{**x, "big": True}`` copies a dict record and adds keys.
    f-strings: ``f"{x['user']}: {x['amount']:.2f}"``; a format spec must be a constant.
Operators
    ``+ - * / // % **``, bitwise ``& | ^ ~ << >>``, comparisons ``== != < <= > >=``
    (chains such as ``0 <= x < 10`` too), ``in`` and ``not in``, ``is None`` and
    ``is not None``, ``and``, ``or``, ``not``, and ``a if condition else b``.
Items and fields
    ``x["user"]``, ``x[0]``, ``x[-1]``, ``x[1:3]``. ``x.user`` is short for ``x["user"]``,
    except for names that built-in types use (``x.count``, ``x.title``, ``x.real``):
    write ``x["count"]`` for those.
Functions
    ``abs all any bool dict float int len list max min round set sorted str sum tuple``.
    The ``key=`` of ``max``, ``min`` and ``sorted`` names one of them: ``max(x, key=len)``.
Methods
    Of strings: ``lower upper title strip lstrip rstrip startswith endswith split
    replace join find isdigit isalpha isalnum``. Of dicts: ``get keys values items``.

What you cannot write
---------------------
Other names, functions or methods; any other attribute; names with double underscores;
``lambda``; comprehensions (use a flat map or an aggregate operator); ``:=``; ``*args``
and ``**kwargs`` in calls; ``%`` formatting of strings (use an f-string); bytes and
complex literals; statements (``import``, ``;``); argument names starting with ``_``.
An expression has at most 2,000 characters, 50 levels of brackets and 100 levels of
nesting, and its format specs' widths and precisions add up to at most 1,000.

The budget of one evaluation
----------------------------
A definition is untrusted, and a small expression could otherwise make a huge result
or run for minutes. So every operation that can grow a value or cost more than linear
time is bounded, and one evaluation over a record of size R (its items written out:
characters of text, elements of lists, two per dict entry) keeps to these bounds:

- **Size**: its result, and every value made on the way, holds at most 1,000 copies of
  the record plus 100,000 items, and integers of at most 32,768 bits (about 10,000
  digits; or four times the bits of the record's largest integer, for a small power).
  ``[x, x]`` holds two copies; ``x * 1000`` a thousand. ``*`` refuses to repeat a
  string, list or tuple, and ``join`` and ``replace`` refuse to add text, beyond what is
  left of the 100,000 items, which all the guarded operations of one expression share;
  format widths add at most 1,000 characters in all. ``str()`` and f-strings refuse to write out a value of over
  1,000,000 items (a record holding one list a thousand times a thousand times is tiny
  in memory but not written out), and ``strip()`` takes at most 1,000 different characters.
- **Time**: every operation takes time linear in the sizes of its operands and result
  (``sorted`` n log n; ``sum`` of lists is linear, not quadratic as in Python), and
  arithmetic on integers within the size bound takes at most about a millisecond; an
  expression has at most a few hundred operations.

A guarded operation that would break a bound raises :class:`ResultTooLarge`. A
constant part that breaks one (``9 ** 9 ** 9``, ``"a" * 10 ** 10``) is rejected when the
expression is compiled: compiling evaluates the parts that do not depend on the record,
for at most 50 ms of CPU time (parts past that are left to evaluation, where the guards
hold them). CPython's own compiler folds only small constants (128-bit integers, 4,096
characters).

Guards cost time per record, so they sit only where a result can grow, and are inline
tests where they can be:

- ``*`` runs inline when one side is a float literal, or an integer literal and the other
  side a number (``len(x) * 2``); when one side is an integer literal of at most 1,000
  and the other holds no guarded operation, as long as the expression's copies of the
  record stay within 1,000 (``x["ts"] * 1000`` costs what it costs in Python; in
  ``[x * 1000, x]`` the product is guarded); and after a test that both sides are numbers
  under 16,384 bits when both can only be numbers (``(x + 1) * (x - 1)``).
- ``**`` runs inline for a float or negative constant exponent (the result is a float),
  and for a constant exponent of at most 4 on a base without guarded operations;
  ``<<`` for a constant shift of at most 64 on such a value.
- ``%`` formats when its left side is a string, with widths that come from the data
  (``"%999999999d" % 3``), so it is refused. It runs inline when its left side cannot be
  a string (``(x + 1) % 7``); otherwise a type test sends integers down the inline path.
- ``str(v)`` and ``f"{v}"`` write numbers, strings, booleans and None inline after a
  type test; other values are measured first.

The budget bounds what one evaluation makes out of its record. A pipeline that chains
operators can still grow records step by step (a map ``[x, x]`` after a map
``[x, x]``), as it can with ordinary Python code; memory limits on the workers are the
backstop for that, and the studio validates and previews in worker processes with
their own CPU, time and memory limits.

Errors
------
:func:`compile_expression` raises :class:`ExpressionError` for anything outside the
language, with a message naming the problem and the position. Errors while evaluating
(``KeyError`` for a missing field, ``ZeroDivisionError``, ``TypeError``, ``ValueError``,
``ResultTooLarge``) propagate as the ordinary Python exceptions; the runtime turns them
into a failure of the task, naming the operator. The compiled code's file name is
``<expression: source>``, so a traceback shows which expression failed.

Why this is safe
----------------
Evaluation only reaches the record, the values the expression makes from it, and the
functions above. The compiled function has an empty ``__builtins__`` and only the allowed
functions and this module's guards in its globals. Field reads become item reads and
method calls become calls of the unbound built-in methods (``str.lower``), so the
compiled code reads no attribute except ``__class__`` in the type tests written by this module.
That is checked again on the compiled bytecode, independently of the checks on the tree.
"""
from __future__ import annotations

import ast
import contextlib
import copy
import dis
import functools
import gc
import io
import itertools
import keyword
import re
import sys
import time
import tokenize
import types
import warnings
from collections.abc import Callable, Mapping, Sized
from types import MappingProxyType

__all__ = [
    "Expression", "ExpressionError", "ResultTooLarge", "compile_expression", "check_expression",
    "FUNCTIONS", "METHODS", "DEFAULT_NAMES", "MAX_LENGTH",
]

MAX_LENGTH = 2000
"""Longest expression source, in characters."""
MAX_BRACKET_DEPTH = 50
"""Deepest bracket nesting; checked before parsing, so the parser never recurses deeply."""
MAX_DEPTH = 100
"""Deepest syntax tree; checked before the tree is walked recursively."""
MAX_EXPONENT = 10_000
"""Largest constant integer exponent of ``**``."""
MAX_INT_BITS = 32_768
"""Largest integer ``*``, ``**`` and ``<<`` may make, in bits (about 10,000 digits). Dividing two
such numbers takes about a millisecond; CPython's quadratic division is why this is not larger."""
MAX_GROWTH = 100_000
"""Most items (characters, elements) the guarded operations of one evaluation may add together."""
MAX_COPIES = 1000
"""Most copies of the record one evaluation's result may hold (``[x, x]`` holds two)."""
MAX_WRITTEN = 1_000_000
"""Most items ``str()`` or an f-string may write out in one call (shared parts counted each time)."""
MAX_FORMAT_WIDTH = 1000
"""Largest total of the widths and precisions in an expression's f-string format specs."""
MAX_ROUND_DIGITS = 1000
"""Largest magnitude of round()'s ndigits (a big negative one computes a huge power)."""
MAX_STRIP_CHARS = 1000
"""Most different characters strip() may be given (stripping costs their number per character)."""
INLINE_FACTOR = 1000
"""Largest integer literal a product runs inline with (see "Results that would be too large")."""
INLINE_EXPONENT = 4
"""Largest constant exponent that runs inline."""
INLINE_SHIFT = 64
"""Largest constant shift that runs inline."""
FOLD_CPU_SECONDS = 0.05
"""CPU time spent at most on evaluating the constant parts of an expression when it is compiled."""

DEFAULT_NAMES = ("x",)


class ExpressionError(ValueError):
    """A rejected expression: ``message`` names the problem, ``position`` is where it is.

    ``position`` is the 0-based character offset in the source (the column, for the usual
    one-line expression), or None when the problem has no single place.
    """

    def __init__(self, message: str, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.position = position

    def __reduce__(self):
        return type(self), (self.message, self.position)


class ResultTooLarge(OverflowError):
    """An evaluation was stopped because its result would have been too large."""


# Guards: the slow but safe versions of the operations that can blow up.

_TEXT = (str, bytes, bytearray)
_CONTAINERS = (list, tuple, set, frozenset)
_PLAIN_NUMBERS = frozenset({int, float, bool})
_INTEGERS = frozenset({int, bool})
_HALF_INT = 1 << MAX_INT_BITS // 2
"""Two numbers below this in magnitude multiply to one within MAX_INT_BITS: the inline test of ``*``."""
_SCALARS = frozenset({str, int, float, bool, type(None)})
_DIGITS_PER_BIT = 0.30103


def _check_int_bits(bits: int, what: str) -> None:
    if bits > MAX_INT_BITS:
        raise ResultTooLarge(f"{what} would make a number of about {bits:,} bits; the limit is {MAX_INT_BITS:,}")


def _power(base, exponent):
    """Return ``base ** exponent`` unless the result would exceed MAX_INT_BITS."""
    if isinstance(exponent, int) and exponent > 1:
        if isinstance(base, int):
            bits = abs(base).bit_length()
            if bits > 1:
                _check_int_bits((bits - 1) * exponent, f"** {exponent}")
        elif not isinstance(base, float) and exponent > MAX_EXPONENT:
            raise ResultTooLarge(f"the exponent {exponent} is over the limit {MAX_EXPONENT:,}")
    return base ** exponent


def _shift_left(value, amount):
    """Return ``value << amount`` unless the result would exceed MAX_INT_BITS."""
    if isinstance(value, int) and isinstance(amount, int) and value and amount > 0:
        _check_int_bits(value.bit_length() + amount, f"<< {amount}")
    return value << amount


def _expanded_size(value, budget: int) -> int:
    """Count the items of a value written out in full, stopping once over ``budget``.

    Items are characters of text, elements of containers (two per dict entry) and the
    digits of integers over 64 bits. Shared references count every time, as str() or a
    JSON sink would write them, so ``[[0] * 1000] * 1000`` counts a million.
    """
    size, pending = 0, [value]
    while pending and size <= budget:
        item = pending.pop()
        if isinstance(item, _TEXT):
            size += len(item)
        elif isinstance(item, int):
            bits = item.bit_length()
            if bits > 64:
                size += int(bits * _DIGITS_PER_BIT)
        elif isinstance(item, dict):
            size += 2 * len(item)
            if size <= budget:
                pending.extend(item.keys())
                pending.extend(item.values())
        elif isinstance(item, _CONTAINERS):
            size += len(item)
            if size <= budget:
                pending.extend(item)
        elif isinstance(item, Sized):
            size += len(item)
    return size


def _check_repetition(sequence, times: int, allowance: int) -> None:
    """Refuse ``sequence * times`` when it would add more than ``allowance`` items."""
    if times <= 1:
        return
    added = _expanded_size(sequence, allowance // (times - 1) + 1) * (times - 1)
    if added > allowance:
        raise ResultTooLarge(
            f"repeating a {type(sequence).__name__} {times:,} times would add over {added:,} items; "
            f"the limit is {allowance:,}")


def _multiply(left, right, allowance=MAX_GROWTH):
    """Return ``left * right``, refusing a repetition or an integer that would grow too large."""
    if type(left) in _INTEGERS and type(right) in _INTEGERS:
        _check_int_bits(left.bit_length() + right.bit_length(), "*")
        return left * right
    if type(left) in _PLAIN_NUMBERS and type(right) in _PLAIN_NUMBERS:
        return left * right
    if isinstance(right, int) and not isinstance(left, (int, float, complex)):
        _check_repetition(left, right, allowance)
    elif isinstance(left, int) and not isinstance(right, (int, float, complex)):
        _check_repetition(right, left, allowance)
    return left * right


def _modulo(left, right):
    """Return ``left % right`` for numbers; refuse %-formatting, whose widths come from data."""
    if isinstance(left, _TEXT):
        raise TypeError("% formatting of strings is not supported in expressions; use an f-string")
    return left % right


def _replace(text, old, new, count=-1, *, _allowance=MAX_GROWTH):
    """Return ``text.replace(old, new, count)`` unless it would add more than its allowance of characters."""
    if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
        raise TypeError("replace() works on strings with string arguments")
    growth = len(new) - len(old)
    if growth > 0:
        found = len(text) + 1 if not old else text.count(old)
        if isinstance(count, int) and count >= 0:
            found = min(found, count)
        if found * growth > _allowance:
            raise ResultTooLarge(f"replace() would add {found * growth:,} characters; the limit is {_allowance:,}")
    return str.replace(text, old, new, count)


def _join(separator, items, *, _allowance=MAX_GROWTH):
    """Return ``separator.join(items)`` unless the separators alone would exceed its allowance."""
    if not isinstance(separator, str):
        raise TypeError("join() is a method of strings")
    items = list(items)
    added = len(separator) * max(len(items) - 1, 0)
    if added > _allowance:
        raise ResultTooLarge(f"join() would add {added:,} separator characters; the limit is {_allowance:,}")
    return str.join(separator, items)


def _strip_characters(characters):
    """The argument of strip(): at most MAX_STRIP_CHARS different characters.

    CPython looks every stripped character up in the argument, so a long argument on a
    long text costs their product; duplicates are dropped first.
    """
    if isinstance(characters, str) and len(characters) > MAX_STRIP_CHARS:
        characters = "".join(dict.fromkeys(characters))
        if len(characters) > MAX_STRIP_CHARS:
            raise ValueError(f"strip() takes at most {MAX_STRIP_CHARS:,} different characters")
    return characters


def _round(number, ndigits=None):
    """Return ``round(number, ndigits)``; a huge negative ndigits would compute a huge power of ten."""
    if isinstance(ndigits, int) and abs(ndigits) > MAX_ROUND_DIGITS:
        raise ValueError(f"round() takes ndigits between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}")
    return round(number, ndigits)


def _written(value):
    """Return ``value`` if writing it out takes at most MAX_WRITTEN items; else raise ResultTooLarge.

    str() and f-strings write shared parts out every time, so a small record that holds
    the same list a thousand times a thousand times would become a huge string.
    """
    if value.__class__ not in _SCALARS:
        size = _expanded_size(value, MAX_WRITTEN)
        if size > MAX_WRITTEN:
            raise ResultTooLarge(f"writing out this {type(value).__name__} would take over {MAX_WRITTEN:,} "
                                 "items (characters, elements)")
    return value


def _str(*arguments, **options):
    """``str()``, refusing values that would be too large written out (``str(x)`` of a scalar runs inline)."""
    if arguments:
        _written(arguments[0])
    return str(*arguments, **options)


def _sum(items, start=0):
    """``sum()`` in linear time: adding lists or tuples one by one copies the total every time."""
    if not isinstance(start, (list, tuple)):
        return sum(items, start)
    kind, total = type(start), list(start)
    for item in items:
        if type(item) is not kind:
            raise TypeError(f'can only concatenate {kind.__name__} (not "{type(item).__name__}") to {kind.__name__}')
        total.extend(item)
    return total if kind is list else tuple(total)


# What an expression may call.

FUNCTIONS: Mapping[str, Callable] = MappingProxyType({
    "abs": abs, "all": all, "any": any, "bool": bool, "dict": dict, "float": float,
    "int": int, "len": len, "list": list, "max": max, "min": min, "round": _round,
    "set": set, "sorted": sorted, "str": _str, "sum": _sum, "tuple": tuple,
})
"""The functions an expression may call, by the name it calls them by."""

METHODS: Mapping[str, Callable] = MappingProxyType({
    "lower": str.lower, "upper": str.upper, "title": str.title, "strip": str.strip,
    "lstrip": str.lstrip, "rstrip": str.rstrip, "startswith": str.startswith,
    "endswith": str.endswith, "split": str.split, "replace": _replace, "join": _join,
    "find": str.find, "isdigit": str.isdigit, "isalpha": str.isalpha, "isalnum": str.isalnum,
    "get": dict.get, "keys": dict.keys, "values": dict.values, "items": dict.items,
})
"""The methods an expression may call. Each is the unbound method of its built-in type
(or a guard around it), so ``x.lower()`` on a record that is no string raises TypeError
instead of looking anything up on the record."""

_GUARDS = {"_power": _power, "_shift_left": _shift_left, "_multiply": _multiply, "_modulo": _modulo,
           "_written": _written, "_strip_characters": _strip_characters}
_GROWING_GUARDS = {"_multiply": "allowance", "_method_replace": "_allowance", "_method_join": "_allowance"}
"""Guards that can add items, with the keyword of their share of MAX_GROWTH: one expression's calls share it."""
_STRIPPING_METHODS = ("strip", "lstrip", "rstrip")
_GLOBALS = {
    "__builtins__": {},
    **FUNCTIONS,
    **{f"_method_{name}": method for name, method in METHODS.items()},
    **_GUARDS,
    "_int": int,
    "_scalars": _SCALARS,
    "_text": str,
    "_half_int": _HALF_INT,
    "_minus_half_int": -_HALF_INT,
}
_KEY_FUNCTIONS = ("max", "min", "sorted")


def _attribute_names_of_builtin_types() -> frozenset[str]:
    """Names ``x.name`` must not mean a field by: those of built-in objects, frames and code."""
    kinds = (object, type, str, bytes, bytearray, int, float, complex, bool, list, tuple, dict,
             set, frozenset, type(None), types.FunctionType, types.BuiltinFunctionType,
             types.MethodType, types.CodeType, types.FrameType, types.GeneratorType,
             types.CoroutineType, types.AsyncGeneratorType, types.TracebackType,
             types.ModuleType, types.CellType, types.MappingProxyType)
    return frozenset(name for kind in kinds for name in dir(kind))


_BUILTIN_ATTRIBUTES = _attribute_names_of_builtin_types()

_COMPREHENSIONS = "comprehensions are not allowed; use a flat_map or an aggregate operator"
_REJECTED_NODES = {
    ast.Lambda: "lambda is not allowed", ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.ListComp: _COMPREHENSIONS, ast.SetComp: _COMPREHENSIONS, ast.DictComp: _COMPREHENSIONS,
    ast.GeneratorExp: _COMPREHENSIONS, ast.Starred: "* unpacking is not allowed",
    ast.Await: "await is not allowed", ast.Yield: "yield is not allowed", ast.YieldFrom: "yield is not allowed",
}
_REJECTED_CONSTANTS = {
    bytes: "bytes literals are not allowed", complex: "complex numbers are not allowed",
    type(...): "... (Ellipsis) is not allowed",
}
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
              ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd)
_CONSTANT_TYPES = (int, float, str, bool, type(None))


def _is_reserved(name: str) -> bool:
    """Names with double underscores belong to Python's machinery, never to expressions."""
    return name.startswith("__") or name.endswith("__")


# Reading the source.

class _Source:
    """The text being compiled, and the conversion of parser positions to character offsets."""

    def __init__(self, text: str):
        stripped = text.lstrip(" \t\r\n\f")
        self.text = stripped
        self.base = len(text) - len(stripped)
        self.lines = stripped.split("\n")

    def offset(self, lineno: int | None, column: int | None) -> int | None:
        """Return the offset of a 1-based line and a 0-based character column."""
        if lineno is None or column is None:
            return None
        lineno = min(max(lineno, 1), len(self.lines))
        start = sum(len(line) + 1 for line in self.lines[:lineno - 1])
        return self.base + min(max(start + column, 0), len(self.text))

    def node_offset(self, node: ast.AST) -> int | None:
        """Return the offset of a node; for an attribute, of its name after the dot."""
        if isinstance(node, ast.Attribute) and node.end_col_offset is not None:
            end = self.byte_offset(node.end_lineno, node.end_col_offset)
            return None if end is None else max(end - len(node.attr), 0)
        return self.byte_offset(getattr(node, "lineno", None), getattr(node, "col_offset", None))

    def byte_offset(self, lineno: int | None, column: int | None) -> int | None:
        """Return the offset of a parser position, whose columns count UTF-8 bytes."""
        if lineno is None or column is None:
            return None
        line = self.lines[min(max(lineno, 1), len(self.lines)) - 1]
        return self.offset(lineno, len(line.encode()[:column].decode(errors="ignore")))


def _scan_tokens(source: _Source) -> None:
    """Check bracket depth and identifiers before parsing.

    The tokenizer is iterative, so this is safe on any input; the parser is recursive
    and must only see shallow text. Identifiers must be ASCII: Python folds ``ｘ`` into
    ``x`` and ``__ｃlass__`` into ``__class__``, which would hide what a reader sees.
    """
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source.text).readline):
            if token.type == tokenize.NAME and not token.string.isascii():
                raise ExpressionError(f"the name {token.string!r} must be plain ASCII",
                                      source.offset(token.start[0], token.start[1]))
            if token.type == tokenize.OP and token.string in ("(", "[", "{"):
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    raise ExpressionError(f"brackets nest deeper than {MAX_BRACKET_DEPTH} levels",
                                          source.offset(token.start[0], token.start[1]))
            elif token.type == tokenize.OP and token.string in (")", "]", "}"):
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        pass  # the parser reports malformed text with a better message


def _parse(source: _Source) -> ast.Expression:
    """Parse one expression, turning every parser complaint into an ExpressionError.

    An expression may span lines (the editor's expression field is multi-line): it is parsed
    inside brackets, as Python joins lines there, with positions moved back to the text's own."""
    multiline = "\n" in source.text.rstrip()
    text = f"(\n{source.text}\n)" if multiline else source.text
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like; the user sees errors only
            warnings.simplefilter("ignore")
            tree = ast.parse(text, "<expression>", mode="eval")
    except SyntaxError as exc:
        if multiline and exc.lineno:
            exc.lineno -= 1
        raise _syntax_error(source, exc) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"cannot parse the expression: {exc}") from None
    if multiline:
        ast.increment_lineno(tree, -1)
    return tree


def _children(node: ast.AST) -> list[ast.AST]:
    """Return the sub-expressions of a node (not its operators or contexts)."""
    return [child for child in ast.iter_child_nodes(node) if isinstance(child, (ast.expr, ast.keyword))]


def _syntax_error(source: _Source, exc: SyntaxError) -> ExpressionError:
    """Translate the parser's error; it reports column 0 when the text ended too early."""
    message = exc.msg or "invalid syntax"
    if not exc.offset:
        position = source.base + len(source.text.rstrip())
        if message == "invalid syntax":
            message = "invalid syntax: the expression ends too early"
    else:
        position = source.offset(exc.lineno, exc.offset - 1)
    if message == "invalid syntax" and source.text.split(None, 1)[0] in keyword.kwlist:
        message = "invalid syntax: an expression cannot be a statement"
    return ExpressionError(f"syntax error: {message}", position)


def _deepest_node(tree: ast.Expression) -> tuple[int, ast.AST]:
    """Return how deep expressions nest in a tree, and the deepest one, without recursion."""
    deepest, found, pending = 0, tree.body, [(tree.body, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > deepest:
            deepest, found = depth, node
        pending.extend((child, depth + 1) for child in _children(node))
    return deepest, found


# Checking the tree against the allow-list.

class _Checker(ast.NodeVisitor):
    """Walk a parsed expression and raise ExpressionError at the first thing outside the language."""

    def __init__(self, source: _Source, names: tuple[str, ...]):
        self.source = source
        self.names = names
        self.format_width = 0

    def fail(self, node: ast.AST, message: str):
        raise ExpressionError(message, self.source.node_offset(node))

    def visit_children(self, node: ast.AST) -> None:
        for child in _children(node):
            self.visit(child)

    def generic_visit(self, node: ast.AST) -> None:
        self.fail(node, _REJECTED_NODES.get(type(node), f"{type(node).__name__} is not allowed in an expression"))

    def visit_Expression(self, node: ast.Expression) -> None:
        self.visit(node.body)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, _CONSTANT_TYPES):
            self.fail(node, _REJECTED_CONSTANTS.get(type(node.value), f"the literal {node.value!r} is not allowed"))

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.names:
            return
        if _is_reserved(node.id):
            self.fail(node, f"the name {node.id!r} is not allowed: names with double underscores are reserved")
        if node.id in FUNCTIONS:
            self.fail(node, f"{node.id!r} is a function: call it, as in {node.id}(...)")
        available = ", ".join(self.names) or "none"
        self.fail(node, f"unknown name {node.id!r}; the names available here are: {available}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.check_attribute_name(node)
        item = f"{ast.unparse(node.value)}[{node.attr!r}]"
        if node.attr in METHODS:
            self.fail(node, f"the method {node.attr!r} must be called, as in .{node.attr}(); "
                            f"for a field named {node.attr!r} write {item}")
        if node.attr in _BUILTIN_ATTRIBUTES:
            self.fail(node, f"{node.attr!r} is an attribute of built-in types and cannot be read; "
                            f"for a field named {node.attr!r} write {item}")
        self.visit(node.value)

    def check_attribute_name(self, node: ast.Attribute) -> None:
        if _is_reserved(node.attr):
            self.fail(node, f"the attribute {node.attr!r} is not allowed: names with double underscores are reserved")

    def visit_Call(self, node: ast.Call) -> None:
        self.check_callee(node.func)
        for argument in node.args:
            self.visit(argument)
        for keyword_ in node.keywords:
            self.check_keyword(node, keyword_)

    def check_callee(self, func: ast.expr) -> None:
        if isinstance(func, ast.Name):
            if func.id not in FUNCTIONS:
                self.fail(func, f"calling {func.id!r} is not allowed; the functions are: {', '.join(FUNCTIONS)}")
        elif isinstance(func, ast.Attribute):
            self.check_attribute_name(func)
            if func.attr not in METHODS:
                self.fail(func, f"the method {func.attr!r} is not allowed; the methods are: {', '.join(METHODS)}")
            self.visit(func.value)
        else:
            self.fail(func, "only the allowed functions and methods can be called")

    def check_keyword(self, call: ast.Call, keyword_: ast.keyword) -> None:
        if keyword_.arg is None:
            self.fail(keyword_.value, "** unpacking is not allowed in a call")
        if keyword_.arg.startswith("_"):
            self.fail(keyword_.value, f"the argument name {keyword_.arg!r} is not allowed")
        value = keyword_.value
        is_key_function = (keyword_.arg == "key" and isinstance(call.func, ast.Name)
                           and call.func.id in _KEY_FUNCTIONS and isinstance(value, ast.Name))
        if is_key_function and value.id in FUNCTIONS:
            return
        self.visit(value)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if not isinstance(node.op, _OPERATORS):
            self.fail(node, f"the operator {type(node.op).__name__} is not allowed")
        _check_constant_operands(self, node)
        self.visit_children(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                    _is_none(operand) for operand in operands[index:index + 2]):
                self.fail(node, "'is' and 'is not' only compare with None; use == or != for values")
        self.visit_children(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                self.visit(part.value)
                self.check_format_spec(part)
            elif not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                self.fail(part, "unexpected part in an f-string")

    def check_format_spec(self, part: ast.FormattedValue) -> None:
        spec = part.format_spec
        if spec is None:
            return
        if not all(isinstance(piece, ast.Constant) for piece in spec.values):
            self.fail(part, "an f-string format spec must be a constant, as in {x:.2f}")
        text = "".join(piece.value for piece in spec.values)
        self.format_width += sum(int(number) for number in re.findall(r"\d+", text))
        if self.format_width > MAX_FORMAT_WIDTH:
            self.fail(part, f"the widths and precisions of format specs add up to over {MAX_FORMAT_WIDTH:,}")

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.visit(key)
            self.visit(value)

    def allow(self, node: ast.AST) -> None:
        self.visit_children(node)

    visit_UnaryOp = visit_BoolOp = visit_IfExp = visit_Subscript = visit_Slice = allow
    visit_Tuple = visit_List = visit_Set = allow


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _number(node: ast.expr) -> int | float | None:
    """Return the value of a number literal, also a negated one; None for anything else."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return sign * node.value
    return None


def _check_constant_operands(checker: _Checker, node: ast.BinOp) -> None:
    """Reject what the literals alone show is wrong: huge exponents and shifts, %-formatting."""
    right = _number(node.right)
    if isinstance(node.op, ast.Pow) and isinstance(right, int) and right > MAX_EXPONENT:
        checker.fail(node.right, f"the exponent {right:,} is too large (at most {MAX_EXPONENT:,})")
    if isinstance(node.op, ast.LShift) and isinstance(right, int) and right > MAX_INT_BITS:
        checker.fail(node.right, f"the shift {right:,} is too large (at most {MAX_INT_BITS:,})")
    left_is_text = isinstance(node.left, ast.JoinedStr) or (
        isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))
    if isinstance(node.op, ast.Mod) and left_is_text:
        checker.fail(node, "% formatting of strings is not allowed; use an f-string, as in f\"{x:.2f}\"")


# Deciding where guards are needed, on the checked (user's) tree.

_NUMBER_OPERATORS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow, ast.LShift, ast.RShift,
                     ast.BitOr, ast.BitXor, ast.BitAnd)
_NUMBER_FUNCTIONS = frozenset({"abs", "all", "any", "bool", "dict", "float", "int", "len", "round", "set"})


def _never_sequence(node: ast.expr) -> bool:
    """Whether a node can never be a str, list or tuple, the types ``*`` repeats and ``%`` formats.

    ``x + 1`` qualifies: if it does not raise, x was a number. ``x * 2`` does not.
    """
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, str)
    if isinstance(node, (ast.UnaryOp, ast.Compare, ast.Dict, ast.Set)):
        return True
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, _NUMBER_OPERATORS):
            return True
        if isinstance(node.op, ast.Add):
            return _never_sequence(node.left) or _never_sequence(node.right)
        if isinstance(node.op, ast.Mult):
            return _never_sequence(node.left) and _never_sequence(node.right)
        return _never_sequence(node.left)  # %
    if isinstance(node, ast.BoolOp):
        return all(_never_sequence(value) for value in node.values)
    if isinstance(node, ast.IfExp):
        return _never_sequence(node.body) and _never_sequence(node.orelse)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in _NUMBER_FUNCTIONS
    return False


def _is_amplifier(node: ast.AST) -> bool:
    """Whether a node can make a result much larger than its operands."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Pow, ast.LShift)):
            return True
        if isinstance(node.op, ast.Mult):
            return not _scales_a_number(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("join", "replace")
    return False


def _has_amplifier(node: ast.AST) -> bool:
    return any(_is_amplifier(inner) for inner in ast.walk(node))


def _scales_a_number(node: ast.BinOp) -> bool:
    """Whether a product is a number times a literal: it grows by the literal's digits, no more."""
    for factor, other in ((node.left, node.right), (node.right, node.left)):
        value = _number(factor)
        if isinstance(value, float) or (isinstance(value, int) and _never_sequence(other)):
            return True
    return False


def _makes_a_float(node: ast.BinOp) -> bool:
    """Whether one factor is surely a float (a float() call, a division) and the other never repeats."""
    def is_float(operand: ast.expr) -> bool:
        return (isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Div)) or (
            isinstance(operand, ast.Call) and isinstance(operand.func, ast.Name) and operand.func.id == "float")
    return any(is_float(factor) and _never_sequence(other)
               for factor, other in ((node.left, node.right), (node.right, node.left)))


def _references(node: ast.AST, names: tuple[str, ...]) -> int:
    """How many times a node names the record (or another of the expression's names)."""
    return sum(isinstance(inner, ast.Name) and inner.id in names for inner in ast.walk(node))


def _inline_power(node: ast.BinOp) -> bool:
    """A power runs inline for a float or negative exponent (the result is a float) or a small one on a tame base."""
    exponent = _number(node.right)
    if isinstance(exponent, float) or (isinstance(exponent, int) and exponent < 0):
        return True
    return isinstance(exponent, int) and exponent <= INLINE_EXPONENT and not _has_amplifier(node.left)


def _inline_shift(node: ast.BinOp) -> bool:
    amount = _number(node.right)
    return isinstance(amount, int) and 0 <= amount <= INLINE_SHIFT and not _has_amplifier(node.left)


def _inline_modulo(node: ast.BinOp) -> bool:
    return _never_sequence(node.left)


_SCALAR_OPERATORS = (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
_SCALAR_FUNCTIONS = frozenset({"abs", "bool", "float", "int", "len", "round"})


def _is_scalar(node: ast.expr) -> bool:
    """Whether a node is surely a number, a bool, None or text it wrote itself: cheap to write out."""
    if isinstance(node, (ast.Constant, ast.Compare, ast.UnaryOp, ast.JoinedStr)):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _SCALAR_OPERATORS)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SCALAR_FUNCTIONS


# Rewriting the checked tree into the tree that is compiled.

def _name(identifier: str, node: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id=identifier, ctx=ast.Load()), node)


def _call(function: str, arguments: list[ast.expr], node: ast.AST, keywords=()) -> ast.Call:
    return ast.copy_location(ast.Call(func=_name(function, node), args=arguments, keywords=list(keywords)), node)


class _Rewriter(ast.NodeTransformer):
    """Turn a checked tree into the compiled one: fields into items, methods and risky operators into guards.

    Decisions read the user's tree, so every ``visit_`` decides before rewriting children.
    ``copies_left`` is what inline products may still add to MAX_COPIES; ``allowances``
    are the growing guards' shares of MAX_GROWTH, set once all of them are known.
    """

    def __init__(self, names: tuple[str, ...], tree: ast.AST):
        self.names = names
        self.temporaries = 0
        self.copies_left = MAX_COPIES - _references(tree, names)
        self.allowances: list[ast.Constant] = []

    def rewrite(self, tree: ast.Expression) -> ast.expr:
        body = self.visit(tree).body
        for allowance in self.allowances:
            allowance.value = MAX_GROWTH // len(self.allowances)
        return body

    def allowance(self, function: str) -> list[ast.keyword]:
        if function not in _GROWING_GUARDS:
            return []
        share = ast.Constant(MAX_GROWTH)
        self.allowances.append(share)
        return [ast.keyword(arg=_GROWING_GUARDS[function], value=share)]

    def temporary(self, value: ast.expr) -> tuple[ast.expr, ast.expr]:
        """``(probe, subject)``: evaluate ``value`` once in ``probe``, read it again as ``subject``."""
        if isinstance(value, (ast.Name, ast.Constant)):
            return value, copy.deepcopy(value)
        name = f"_t{self.temporaries}"
        self.temporaries += 1
        target = ast.copy_location(ast.Name(id=name, ctx=ast.Store()), value)
        return ast.copy_location(ast.NamedExpr(target=target, value=value), value), _name(name, value)

    def scalar_test(self, value: ast.expr, fast, slow) -> ast.expr:
        """``fast(v) if v.__class__ in _scalars else slow(v)``, ``v`` evaluated once."""
        probe, subject = self.temporary(value)
        kind = ast.Attribute(value=probe, attr="__class__", ctx=ast.Load())
        test = ast.Compare(left=kind, ops=[ast.In()], comparators=[_name("_scalars", value)])
        return ast.copy_location(ast.IfExp(test=test, body=fast(subject), orelse=slow(copy.deepcopy(subject))), value)

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        value = self.visit(node.value)
        return ast.copy_location(ast.Subscript(value=value, slice=ast.Constant(node.attr), ctx=ast.Load()), node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1 and not node.keywords:
            return self.scalar_test(self.visit(node.args[0]), lambda subject: _call("_text", [subject], node),
                                    lambda subject: _call("str", [subject], node))
        if not isinstance(node.func, ast.Attribute):
            return self.generic_visit(node)
        receiver = self.visit(node.func.value)
        arguments = [self.visit(argument) for argument in node.args]
        keywords = [self.visit(keyword_) for keyword_ in node.keywords]
        if node.func.attr in _STRIPPING_METHODS and arguments:
            arguments[0] = _call("_strip_characters", [arguments[0]], node)
        function = f"_method_{node.func.attr}"
        return _call(function, [receiver, *arguments], node, keywords + self.allowance(function))

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.FormattedValue:
        scalar = _is_scalar(node.value)
        node = self.generic_visit(node)
        if not scalar:
            node.value = self.scalar_test(node.value, lambda subject: subject,
                                          lambda subject: _call("_written", [subject], node))
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        guard, runs_inline = _GUARDED_OPERATORS.get(type(node.op), (None, None))
        inline = guard is None or runs_inline(self, node)
        numbers = _never_sequence(node.left) and _never_sequence(node.right)
        node = self.generic_visit(node)
        if inline:
            return node
        if guard == "_modulo":
            return self.type_tested_modulo(node)
        if guard == "_multiply" and numbers:
            return self.size_tested_product(node)
        return _call(guard, [node.left, node.right], node, self.allowance(guard))

    def size_tested_product(self, node: ast.BinOp) -> ast.expr:
        """``a * b`` of two numbers: inline when both are below _HALF_INT, else through the guard.

        ``a * b if (-H < (a := ...) < H) & (-H < (b := ...) < H) else _multiply(a, b)``: each
        operand is evaluated once, in order, and written once (copying an operand into both
        branches would double the code at every level of nesting).
        """
        def below_half(probe: ast.expr) -> ast.Compare:
            return ast.Compare(left=_name("_minus_half_int", node), ops=[ast.Lt(), ast.Lt()],
                               comparators=[probe, _name("_half_int", node)])

        left_probe, left = self.temporary(node.left)
        right_probe, right = self.temporary(node.right)
        test = ast.BinOp(below_half(left_probe), ast.BitAnd(), below_half(right_probe))
        fast = ast.BinOp(left, ast.Mult(), right)
        guarded = _call("_multiply", [copy.deepcopy(left), copy.deepcopy(right)], node, self.allowance("_multiply"))
        return ast.copy_location(ast.IfExp(test=test, body=fast, orelse=guarded), node)

    def type_tested_modulo(self, node: ast.BinOp) -> ast.expr:
        """``a % b`` inline when ``a`` is an int, else through the guard; each operand evaluated once.

        A right operand other than a name or a constant is bound first, with
        ``(... .__class__ is _int) & ((b := ...) is b)``, so that it is written once.
        """
        left_probe, left = self.temporary(node.left)
        test = ast.Compare(left=ast.Attribute(value=left_probe, attr="__class__", ctx=ast.Load()), ops=[ast.Is()],
                           comparators=[_name("_int", node)])
        if isinstance(node.right, (ast.Name, ast.Constant)):
            right_in_fast, right = node.right, copy.deepcopy(node.right)
        else:
            right_probe, right = self.temporary(node.right)
            test = ast.BinOp(test, ast.BitAnd(), ast.Compare(left=right_probe, ops=[ast.Is()],
                                                             comparators=[copy.deepcopy(right)]))
            right_in_fast = copy.deepcopy(right)
        fast = ast.BinOp(left, ast.Mod(), right_in_fast)
        guarded = _call("_modulo", [copy.deepcopy(left), right], node)
        return ast.copy_location(ast.IfExp(test=test, body=fast, orelse=guarded), node)

    def inline_multiply(self, node: ast.BinOp) -> bool:
        """A product runs inline when it scales a number or makes a float, or repeats a tame operand at
        most INLINE_FACTOR times within what MAX_COPIES leaves."""
        if _scales_a_number(node) or _makes_a_float(node):
            return True
        for factor, other in ((node.left, node.right), (node.right, node.left)):
            value = _number(factor)
            if isinstance(value, int) and abs(value) <= INLINE_FACTOR and not _has_amplifier(other):
                extra = max(abs(value) - 1, 0) * _references(other, self.names)
                if extra <= self.copies_left:
                    self.copies_left -= extra
                    return True
        return False


_GUARDED_OPERATORS = {
    ast.Mult: ("_multiply", _Rewriter.inline_multiply),
    ast.Pow: ("_power", lambda rewriter, node: _inline_power(node)),
    ast.LShift: ("_shift_left", lambda rewriter, node: _inline_shift(node)),
    ast.Mod: ("_modulo", lambda rewriter, node: _inline_modulo(node)),
}


# Compiling.

def _arguments(names: tuple[str, ...]) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=name) for name in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _filename(source: str) -> str:
    shown = source if len(source) <= 80 else source[:77] + "..."
    return f"<expression: {shown}>"


def _make_function(body: ast.expr, names: tuple[str, ...], filename: str) -> Callable:
    """Compile ``lambda <names>: <body>`` with nothing but the allowed globals."""
    return _compile_lambda(ast.Lambda(args=_arguments(names), body=body), filename, nesting=1)


def _make_batch_function(body: ast.expr, name: str, filename: str) -> Callable:
    """Compile ``lambda _batch: [<body> for <name> in _batch]``: the body inline, no call per record."""
    loop = ast.comprehension(target=ast.Name(id=name, ctx=ast.Store()), iter=ast.Name(id="_batch", ctx=ast.Load()),
                             ifs=[], is_async=0)
    return _compile_lambda(ast.Lambda(args=_arguments(("_batch",)), body=ast.ListComp(elt=body, generators=[loop])),
                           filename, nesting=2)


def _make_batch_filter(body: ast.expr, name: str, filename: str) -> Callable:
    """Compile ``lambda _batch: [<name> for <name> in _batch if <body>]``: the predicate inline."""
    loop = ast.comprehension(target=ast.Name(id=name, ctx=ast.Store()), iter=ast.Name(id="_batch", ctx=ast.Load()),
                             ifs=[body], is_async=0)
    kept = ast.ListComp(elt=ast.Name(id=name, ctx=ast.Load()), generators=[loop])
    return _compile_lambda(ast.Lambda(args=_arguments(("_batch",)), body=kept), filename, nesting=2)


def _make_batch_steps(steps: list[tuple[str, ast.expr]], name: str, filename: str) -> Callable:
    """Compile ``lambda _batch: [<name> for <name> in _batch for <name> in [<map>] if <predicate> ...]``:
    maps and filters one after another in one comprehension (CPython turns ``for <name> in [<map>]``
    into an assignment)."""
    def target() -> ast.Name:
        return ast.Name(id=name, ctx=ast.Store())

    generators = [ast.comprehension(target=target(), iter=ast.Name(id="_batch", ctx=ast.Load()), ifs=[], is_async=0)]
    for kind, body in steps:
        if kind == "map":
            generators.append(ast.comprehension(target=target(), iter=ast.List(elts=[body], ctx=ast.Load()), ifs=[],
                                                is_async=0))
        else:
            generators[-1].ifs.append(body)
    kept = ast.ListComp(elt=ast.Name(id=name, ctx=ast.Load()), generators=generators)
    return _compile_lambda(ast.Lambda(args=_arguments(("_batch",)), body=kept), filename, nesting=2)


def _make_router(body: ast.expr, name: str, filename: str) -> Callable[[list, dict, list], None]:
    """Compile ``for <name> in _batch: _appends[_routes[<body>]](<name>)`` as a function of
    ``(_batch, _routes, _appends)``: the key inline, its channel looked up, the record appended."""
    def load(identifier: str) -> ast.Name:
        return ast.Name(id=identifier, ctx=ast.Load())

    channel = ast.Subscript(value=load("_routes"), slice=body, ctx=ast.Load())
    append = ast.Call(func=ast.Subscript(value=load("_appends"), slice=channel, ctx=ast.Load()), args=[load(name)],
                      keywords=[])
    loop = ast.For(target=ast.Name(id=name, ctx=ast.Store()), iter=load("_batch"), body=[ast.Expr(value=append)],
                   orelse=[])
    function = ast.FunctionDef(name="route", args=_arguments(("_batch", "_routes", "_appends")), body=[loop],
                               decorator_list=[], returns=None, type_comment=None)
    module = _compile_tree(ast.Module(body=[function], type_ignores=[]), filename, "exec")
    code = next(const for const in module.co_consts if isinstance(const, types.CodeType))
    _verify_code(code, nesting=0)  # the function itself: no code object inside it
    return types.FunctionType(code, dict(_GLOBALS), "route")  # never runs the module: nothing else is defined


_FOLD_STEPS = {
    "sum": "_a = _get(_k, 0) + VALUE",
    "count": "_a = _get(_k, 0) + 1",
    "min": "_v = VALUE\n        _a = _get(_k, _missing)\n        if _a is _missing or _v < _a:\n            _a = _v",
    "max": "_v = VALUE\n        _a = _get(_k, _missing)\n        if _a is _missing or _v > _a:\n            _a = _v",
}
"""Each running aggregate's step, as ``min(current, value)`` and ``max(current, value)`` decide
(the current aggregate unless the value is strictly smaller or larger)."""

_FOLD_TEMPLATE = """
def fold(_batch, _get, _entries, _append, _missing):
    for x in _batch:
        _k = KEY
        STEP
        _entries[_k] = _a
        _append([_k, _a])
"""


class _Inline(ast.NodeTransformer):
    """Puts checked expression bodies in place of the template's ``KEY`` and ``VALUE`` names."""

    def __init__(self, bodies: dict[str, ast.expr]):
        self.bodies = bodies

    def visit_Name(self, node: ast.Name) -> ast.AST:
        body = self.bodies.get(node.id)
        return copy.deepcopy(body) if body is not None else node


def _make_keyed_fold(key: ast.expr, value: ast.expr, function: str, name: str, filename: str) -> Callable:
    """Compile ``_FOLD_TEMPLATE`` with ``function``'s step, the key and value bodies inline."""
    tree = ast.parse(_FOLD_TEMPLATE.replace("STEP", _FOLD_STEPS[function]))
    loop = tree.body[0].body[0]
    loop.target = ast.Name(id=name, ctx=ast.Store())
    tree = _Inline({"KEY": key, "VALUE": value}).visit(tree)
    module = _compile_tree(tree, filename, "exec")
    code = next(const for const in module.co_consts if isinstance(const, types.CodeType))
    _verify_code(code, nesting=0)  # the function itself: no code object inside it
    return types.FunctionType(code, dict(_GLOBALS), "fold")  # never runs the module: nothing else is defined


def _compile_lambda(function: ast.Lambda, filename: str, nesting: int) -> Callable:
    code = _compile_tree(ast.Expression(body=function), filename, "eval")
    _verify_code(code, nesting)
    return eval(code, dict(_GLOBALS))  # noqa: S307 - our own checked code, empty builtins


def _compile_tree(tree: ast.AST, filename: str, mode: str) -> types.CodeType:
    """Compile a built tree without the compiler's syntax warnings (the checks said what is wrong)."""
    ast.fix_missing_locations(tree)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(tree, filename, mode, dont_inherit=True)


def _verify_code(code: types.CodeType, nesting: int = 1) -> None:
    """Check the compiled code itself, independently of the checks on the tree.

    Every global or attribute a code object touches is named in its co_names. The only
    names allowed are the allowed globals and ``__class__``, and ``__class__`` only in the
    type tests the rewriter writes (``... .__class__ is _int``, ``... .__class__ in
    _scalars``), patterns user text cannot produce because those are no names of the language. So even a hole in the checks
    could not reach builtins, module globals, frames or dunder attributes. Code objects
    nest exactly as deep as the compiler's own wrapping: ``nesting`` 1 for the lambda,
    2 for the list comprehension of a batch function, 0 for a router's own code; user
    text defines none.
    """
    pending = [(code, 0)]
    while pending:
        inner, depth = pending.pop()
        stray = [name for name in inner.co_names if name not in _GLOBALS and name != "__class__"]
        if "__builtins__" in inner.co_names or stray:
            raise ExpressionError(f"the expression uses something that is not allowed: {', '.join(stray)}")
        nested = [const for const in inner.co_consts if isinstance(const, types.CodeType)]
        if nested and depth >= nesting:
            raise ExpressionError("the expression defines a function, which is not allowed")
        pending.extend((function, depth + 1) for function in nested)
        if "__class__" in inner.co_names:
            _verify_type_tests(inner)


_TYPE_TESTS = ([("LOAD_GLOBAL", "_int"), ("IS_OP", 0)], [("LOAD_GLOBAL", "_scalars"), ("CONTAINS_OP", 0)])
"""What may follow a read of ``__class__``: the rewriter's ``is _int`` and ``in _scalars`` tests."""


def _verify_type_tests(code: types.CodeType) -> None:
    """Check that ``__class__`` is only read to compare it with int or the scalar types, as the rewriter does."""
    instructions = list(dis.get_instructions(code))
    for index, instruction in enumerate(instructions):
        if instruction.opcode not in dis.hasname or instruction.argval != "__class__":
            continue
        following = [(step.opname, step.argval) for step in instructions[index + 1:index + 3]]
        if instruction.opname != "LOAD_ATTR" or following not in _TYPE_TESTS:
            raise ExpressionError("the expression reads an attribute that is not allowed: __class__")


_PARTS_OF_A_WHOLE = (ast.keyword, ast.Slice, ast.FormattedValue)
"""Nodes that are no expression on their own: look inside them instead of evaluating them."""


def _depends_on_the_record(node: ast.AST, names: tuple[str, ...]) -> bool:
    """Whether a node of the rewritten tree reads a name of the record, or a temporary it does not bind itself."""
    read, bound = set(), set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            (bound if isinstance(inner.ctx, ast.Store) else read).add(inner.id)
    return any(name in names or (name not in _GLOBALS and name not in bound) for name in read)


_FOLDED_FILES = frozenset({"<constant part>", __file__})
"""The code _cpu_deadline interrupts: constant parts and this module's guards."""


class _FoldingBudgetSpent(BaseException):
    """Raised inside a constant part once FOLD_CPU_SECONDS are spent (no ``except Exception`` stops it)."""



@contextlib.contextmanager
def _cpu_deadline(deadline: float):
    """Raise _FoldingBudgetSpent in constant parts and guards run inside, once the thread's CPU
    clock passes ``deadline``.

    A trace function looks at the clock every few dozen bytecodes, also in the guards'
    loops. One C operation runs to its end, but the guards bound each of those (integers
    of MAX_INT_BITS, MAX_GROWTH items) to about a millisecond.
    """
    ticks = itertools.count()

    def on_opcode(frame, event, argument):
        if next(ticks) % 32 == 0 and time.thread_time() > deadline:
            raise _FoldingBudgetSpent
        return on_opcode

    def on_call(frame, event, argument):
        if frame.f_code.co_filename not in _FOLDED_FILES:
            return None  # never raise inside someone else's code (a gc callback, a finalizer)
        frame.f_trace_opcodes = True
        return on_opcode

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)


def _check_constant_parts(body: ast.expr, names: tuple[str, ...], source: _Source) -> None:
    """Evaluate the parts that do not depend on the record now, for at most FOLD_CPU_SECONDS.

    So ``9 ** 9 ** 9`` or ``"a" * 10 ** 10`` fail when the expression is written rather than
    on the first record. Other errors of a constant part (``1 / 0``) are left to evaluation:
    the part may sit in a branch never taken. Once the budget is spent the remaining parts
    are left to evaluation too, where the guards hold them: compiling never takes long.
    """
    spent = 0.0  # CPU seconds spent evaluating (compiling the parts is linear in their size: not counted)
    pending = [body]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Constant, ast.Name)):
            continue
        if isinstance(node, _PARTS_OF_A_WHOLE) or _depends_on_the_record(node, names):
            pending.extend(_children(node) if not isinstance(node, ast.keyword) else [node.value])
            continue
        part = _make_function(node, (), "<constant part>")
        collecting = gc.isenabled()
        gc.disable()  # a full collection of a big heap is not this expression's cost
        started = time.thread_time()
        try:
            with _cpu_deadline(started + FOLD_CPU_SECONDS - spent):
                part()
        except _FoldingBudgetSpent:
            return
        except OverflowError as exc:
            raise ExpressionError(f"{exc} (in a part that does not depend on the record)",
                                  source.node_offset(node)) from None
        except MemoryError:
            raise ExpressionError("a part that does not depend on the record is too large",
                                  source.node_offset(node)) from None
        except Exception:  # noqa: BLE001 - the same error will surface if evaluation reaches it
            pass
        finally:
            if collecting:
                gc.enable()
        spent += time.thread_time() - started


def _check_names(names) -> tuple[str, ...]:
    """Validate the names an operator declares; a bad one is a programming error, not user input."""
    if isinstance(names, str):
        raise TypeError(f"names must be a tuple of names, not the string {names!r}")
    names = tuple(names)
    for name in names:
        if not (isinstance(name, str) and name.isidentifier() and name.isascii()) or keyword.iskeyword(name) \
                or name.startswith("_") or name in FUNCTIONS:
            raise ValueError(f"{name!r} cannot be an expression variable name")
    if len(set(names)) != len(names):
        raise ValueError(f"expression variable names repeat: {names!r}")
    return names


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
    return _compile(_require_text(source), _check_names(names))


@functools.lru_cache(maxsize=1024)
def _compile(source: str, names: tuple[str, ...]) -> Expression:
    """Compile once per (source, names): every subtask of an operator shares the result."""
    return Expression(source, names, _make_function(_checked_body(source, names), names, _filename(source)))


def compile_batch_expression(source: str, name: str = "x") -> Callable[[list], list]:
    """Check and compile an expression over one name into ``f(batch) -> [value per record]``.

    The expression runs inside one list comprehension, so a batch costs no Python call
    per record: about a third cheaper than ``[f(x) for x in batch]`` for short expressions.

    >>> compile_batch_expression("x % 3")([4, 5, 6])
    [1, 2, 0]
    """
    return _compile_batch(_require_text(source), _check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_batch(source: str, name: str) -> Callable[[list], list]:
    return _make_batch_function(_checked_body(source, (name,)), name, _filename(source))


def compile_batch_filter(source: str, name: str = "x") -> Callable[[list], list]:
    """Check and compile a predicate over one name into ``f(batch) -> [records it holds for]``.

    Like ``compile_batch_expression``, the predicate runs inside one list comprehension:
    no Python call per record.

    >>> compile_batch_filter("x % 3 != 0")([4, 5, 6])
    [4, 5]
    """
    return _compile_filter(_require_text(source), _check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_filter(source: str, name: str) -> Callable[[list], list]:
    return _make_batch_filter(_checked_body(source, (name,)), name, _filename(source))


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
    return _compile_router(_require_text(source), _check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_router(source: str, name: str) -> Callable[[list, dict, list], None]:
    return _make_router(_checked_body(source, (name,)), name, _filename(source))


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
    return _compile_steps(tuple((kind, _require_text(source)) for kind, source in steps), _check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_steps(steps: tuple[tuple[str, str], ...], name: str) -> Callable[[list], list] | None:
    bodies = [(kind, _checked_body(source, (name,))) for kind, source in steps]
    if any(kind == "map" and any(isinstance(node, ast.NamedExpr) for node in ast.walk(body))
           for kind, body in bodies):
        return None
    return _make_batch_steps(bodies, name, _filename("; ".join(f"{kind} {source}" for kind, source in steps)))


KEYED_FOLDS = tuple(_FOLD_STEPS)
"""The running aggregates ``compile_keyed_fold`` compiles."""


def compile_keyed_fold(key: str, value: str | None, function: str,
                       name: str = "x") -> Callable[[list, Callable, dict, Callable, object], None]:
    """Check and compile a running aggregate by key into ``fold(batch, get, entries, append, missing)``.

    For each record, in one loop with both expressions inline: its key, its value (``None``:
    the record itself), the key's new aggregate from ``get(key, 0 or missing)`` (``missing``
    stands for a key without one), stored into ``entries[key]`` and passed to
    ``append([key, aggregate])``. Computing the keys and values as lists first and folding
    them afterwards cost ``aggregate.reduce`` about a sixth more per record. An expression
    that fails raises part-way through the batch, with the entries of the records before it
    already updated (the subtask then fails and restarts from its checkpoint).

    >>> totals, output = {}, []
    >>> compile_keyed_fold("x % 2", None, "sum")([1, 2, 3], totals.get, totals, output.append, object())
    >>> output
    [[1, 1], [0, 2], [1, 4]]
    """
    if function not in _FOLD_STEPS:
        raise ExpressionError(f"unknown aggregate function '{function}'")
    return _compile_keyed_fold(_require_text(key), None if value is None else _require_text(value), function,
                               _check_names((name,))[0])


@functools.lru_cache(maxsize=1024)
def _compile_keyed_fold(key: str, value: str | None, function: str, name: str) -> Callable:
    value_body = ast.Name(id=name, ctx=ast.Load()) if value is None else _checked_body(value, (name,))
    filename = _filename(f"{function} of {value or name} by {key}")
    return _make_keyed_fold(_checked_body(key, (name,)), value_body, function, name, filename)


def _require_text(source) -> str:
    if not isinstance(source, str):
        raise ExpressionError(f"an expression must be a string, not {type(source).__name__}")
    return source


def _checked_body(source: str, names: tuple[str, ...]) -> ast.expr:
    """Parse, check and rewrite ``source``: the body every compiled form is built from."""
    if len(source) > MAX_LENGTH:
        raise ExpressionError(f"the expression is longer than {MAX_LENGTH:,} characters ({len(source):,})")
    text = _Source(source)
    if not text.text.strip():
        raise ExpressionError("the expression is empty", 0)
    _scan_tokens(text)
    tree = _parse(text)
    depth, deepest = _deepest_node(tree)
    if depth > MAX_DEPTH:
        raise ExpressionError(f"the expression nests deeper than {MAX_DEPTH} levels; split it up",
                              text.node_offset(deepest))
    _Checker(text, names).visit(tree)
    body = _Rewriter(names, tree).rewrite(tree)
    _check_constant_parts(body, names, text)
    return body


def check_expression(source: str, names: tuple[str, ...] = DEFAULT_NAMES) -> str | None:
    """Return None when the expression is valid, else the message saying what is wrong."""
    try:
        compile_expression(source, names)
    except ExpressionError as exc:
        return exc.message
    return None
