"""State values as canonical JSON: what the state browser shows, searches, compares and exports.

State holds whatever records and accumulators are: dicts with int keys (a window's end),
tuples, sets, bytes, datetimes, decimals. The browser shows them as JSON, and compares two
snapshots by that JSON, so the text must be *canonical*: equal values give equal text
whatever order a dict was filled in. :func:`plain` turns a value into JSON-ready data with
every dict's keys as strings, sorted (a non-string key as its own JSON text), sets sorted,
tuples as lists; :func:`to_json` encodes that (msgspec: bytes as base64, decimals and
datetimes as strings, NaN as null).

    >>> to_json({2: "b", 1: ("a", {"y", "x"})})
    '{"1":["a",["x","y"]],"2":"b"}'
    >>> to_json(7), to_json("user-7")
    ('7', '"user-7"')
"""
from __future__ import annotations

from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode
_SCALARS = (str, int, float, bool, type(None))


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data in canonical form (see the module docstring)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict or isinstance(value, dict):
        items = [(key if type(key) is str else to_json(key), plain(item)) for key, item in value.items()]
        items.sort(key=_first)
        return dict(items)
    if kind is list or kind is tuple:
        return [plain(item) for item in value]
    if kind is set or kind is frozenset:
        return [item for _, item in sorted((to_json(item), plain(item)) for item in value)]
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value  # bytes, datetimes, decimals, UUIDs: msgspec writes them as strings


def to_json(value: Any) -> str:
    """The canonical JSON text of ``value``."""
    if type(value) in _SCALARS:
        return _encode(value).decode()
    return _encode(plain(value)).decode()


def json_texts(values) -> list[str]:
    """``to_json`` of each value; integers (the commonest keys and aggregates) the fast way."""
    values = values if isinstance(values, list) else list(values)
    if all(type(value) is int for value in values):
        return list(map(str, values))
    return list(map(to_json, values))


def _first(pair):
    return pair[0]
