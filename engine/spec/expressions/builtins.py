"""What compiled code can reach: the allowed functions and methods, and the guards.

The guards are the slow but safe versions of the operations that can blow up; the rewriter
(:mod:`.rewrite`) calls them where a result can grow. ``GLOBALS`` is the whole namespace a
compiled expression runs in: no ``__builtins__``, and every other name starts with ``_``,
which no name of the language does.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from types import MappingProxyType

from engine.spec.expressions.errors import ResultTooLarge
from engine.spec.expressions.limits import (MAX_EXPONENT, MAX_GROWTH, MAX_INT_BITS, MAX_ROUND_DIGITS, MAX_STRIP_CHARS,
                                            MAX_WRITTEN)

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


def expanded_size(value, budget: int) -> int:
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
    added = expanded_size(sequence, allowance // (times - 1) + 1) * (times - 1)
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
        size = expanded_size(value, MAX_WRITTEN)
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
GROWING_GUARDS = {"_multiply": "allowance", "_method_replace": "_allowance", "_method_join": "_allowance"}
"""Guards that can add items, with the keyword of their share of MAX_GROWTH: one expression's calls share it."""
_STRIPPING_METHODS = ("strip", "lstrip", "rstrip")
GLOBALS = {
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
