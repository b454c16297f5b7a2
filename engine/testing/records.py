"""Records as comparable JSON values, and the first differences between two outputs.

Outputs are compared as their canonical JSON texts (``engine.snapshots.values``: keys sorted,
tuples as lists; here also an integral float as its integer: ``2.0`` equals ``2``), in order
or as multisets. A difference is data the
editor shows side by side: the position and the expected and actual records from there
(in order), or the records missing and the records not expected (as multisets).
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any, Iterable

from engine.snapshots.values import plain as canonical_data
from engine.snapshots.values import to_json

SHOWN = 5
"""Records of each side a difference shows."""


def plain(value: Any) -> Any:
    """``value`` as canonical JSON-ready data (``engine.snapshots.values``), an integral float as its
    integer: a browser writes ``2.0`` as ``2``, so a row typed there must equal the float it stands for.

    >>> plain((1, 2.0, {"a": {3}}))
    [1, 2, {'a': [3]}]
    """
    return _integral_floats_as_ints(canonical_data(value))


def _integral_floats_as_ints(value: Any) -> Any:
    if type(value) is float:
        return int(value) if value.is_integer() and abs(value) < 2 ** 53 else value
    if type(value) is list:
        return [_integral_floats_as_ints(item) for item in value]
    if type(value) is dict:
        return {key: _integral_floats_as_ints(item) for key, item in value.items()}
    return value


def canonical(value: Any) -> str:
    """The JSON text records are compared by."""
    return to_json(plain(value))


def multiset(records: Iterable[Any]) -> Counter:
    return Counter(canonical(record) for record in records)


def final_per_key(records: Iterable[Any]) -> list:
    """The last of each key's ``[key, ...]`` records, in the order the keys first came: what a bounded
    run of a running aggregate emits, given its streaming records (each key's in emission order)."""
    last: dict[str, Any] = {}
    for record in records:
        last[canonical(record[0])] = record
    return list(last.values())


def contained_difference(superset: Iterable, actual: Iterable) -> dict | None:
    """None when every record of ``actual`` is one of ``superset`` (as often at most), else the records
    not expected (``difference["unexpected"]``)."""
    expected_counts, actual_counts = multiset(superset), multiset(actual)
    unexpected = actual_counts - expected_counts
    if not unexpected:
        return None
    return {"order": "any", "missing": [], "unexpected": first_of(unexpected), "missing_count": 0,
            "unexpected_count": sum(unexpected.values()), "expected_count": sum(expected_counts.values()),
            "actual_count": sum(actual_counts.values())}


def ordered_difference(expected: list, actual: list) -> dict | None:
    """None when equal, else where the two first differ and a few records of each from there."""
    for index, (want, have) in enumerate(zip(expected, actual)):
        if canonical(want) != canonical(have):
            return _at(index, expected, actual)
    if len(expected) != len(actual):
        return _at(min(len(expected), len(actual)), expected, actual)
    return None


def _at(index: int, expected: list, actual: list) -> dict:
    return {"order": "exact", "at": index, "expected": [plain(r) for r in expected[index:index + SHOWN]],
            "actual": [plain(r) for r in actual[index:index + SHOWN]], "expected_count": len(expected),
            "actual_count": len(actual)}


def multiset_difference(expected: Iterable, actual: Iterable) -> dict | None:
    """None when both hold the same records as often, else the first records missing and not expected."""
    expected_counts, actual_counts = multiset(expected), multiset(actual)
    missing, unexpected = expected_counts - actual_counts, actual_counts - expected_counts
    if not missing and not unexpected:
        return None
    return {"order": "any", "missing": first_of(missing), "unexpected": first_of(unexpected),
            "missing_count": sum(missing.values()), "unexpected_count": sum(unexpected.values()),
            "expected_count": sum(expected_counts.values()), "actual_count": sum(actual_counts.values())}


def first_of(counts: Counter) -> list:
    """The first few records of a multiset of JSON texts, as records."""
    shown = []
    for text, count in counts.items():
        shown.extend([json.loads(text)] * min(count, SHOWN - len(shown)))
        if len(shown) >= SHOWN:
            break
    return shown


def describe_difference(difference: dict) -> str:
    """One line for a difference (the CLI's and JUnit's message)."""
    if difference["order"] == "exact":
        expected = difference["expected"][0] if difference["expected"] else "no record"
        actual = difference["actual"][0] if difference["actual"] else "no record"
        return (f"record {difference['at'] + 1}: expected {_short(expected)}, got {_short(actual)} "
                f"({difference['expected_count']} expected, {difference['actual_count']} found)")
    parts = []
    if difference["missing_count"]:
        parts.append(f"{difference['missing_count']} missing, first {_short(difference['missing'][0])}")
    if difference["unexpected_count"]:
        parts.append(f"{difference['unexpected_count']} not expected, first {_short(difference['unexpected'][0])}")
    return "; ".join(parts)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) and value == "no record" else canonical(value)
    return text if len(text) <= 120 else text[:117] + "..."
