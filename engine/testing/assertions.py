"""A test case's assertions, checked against what a node emitted (``engine.spec.test_cases`` says
what each expectation means). A check returns ``{"passed", "message", "difference"?}``; the
message names what was expected and what was found, the difference is what the editor shows
side by side (``engine.testing.records``)."""
from __future__ import annotations

from typing import Any, Callable

from engine.spec.expressions import compile_expression
from engine.testing.records import (SHOWN, canonical, first_of, multiset, multiset_difference, ordered_difference,
                                    plain)

Check = Callable[[dict, list, bool], dict]


def check_assertion(assertion: dict, records: list, promises_order: bool) -> dict:
    """Check ``assertion`` against ``records`` (what its node or port emitted, in order).
    ``promises_order``: the node's order is fixed by its input, so ``rows`` compares in order."""
    return CHECKS[assertion["expect"]](assertion, records, promises_order)


def target(assertion: dict) -> str:
    """``'node'`` or ``'node' (port late)``, as messages name an assertion's output."""
    port = assertion.get("port")
    return f"'{assertion['node']}'" + (f" (port {port})" if port else "")


def _rows(assertion: dict, records: list, promises_order: bool) -> dict:
    expected = assertion.get("rows") or []
    order = assertion.get("order") or "auto"
    in_order = order == "exact" or (order == "auto" and promises_order)
    difference = ordered_difference(expected, records) if in_order else multiset_difference(expected, records)
    if difference is None:
        return {"passed": True, "message": f"{target(assertion)} emitted the {len(expected)} expected records"
                                           + (" in order" if in_order else "")}
    return {"passed": False, "difference": difference,
            "message": f"{target(assertion)} emitted {len(records)} records, {len(expected)} expected"
                       + (", in order" if in_order else ", in any order")}


def _contains(assertion: dict, records: list, promises_order: bool) -> dict:
    wanted = assertion.get("rows") or []
    missing = multiset(wanted) - multiset(records)
    if not missing:
        return {"passed": True, "message": f"{target(assertion)} emitted all {len(wanted)} records it must contain"}
    difference = {**multiset_difference(wanted, []), "missing": first_of(missing),
                  "missing_count": sum(missing.values()), "actual_count": len(records)}
    return {"passed": False, "difference": difference,
            "message": f"{target(assertion)} lacks {sum(missing.values())} of the {len(wanted)} records it must contain"}


def _count(assertion: dict, records: list, promises_order: bool) -> dict:
    low, high, count = assertion.get("min"), assertion.get("max"), len(records)
    wanted = (f"exactly {low}" if low is not None and low == high else
              f"between {low} and {high}" if low is not None and high is not None else
              f"at least {low}" if low is not None else f"at most {high}")
    passed = (low is None or count >= low) and (high is None or count <= high)
    return {"passed": passed, "message": f"{target(assertion)} emitted {count} records, {wanted} expected"}


def _satisfying(assertion: dict, records: list, wanted: bool) -> dict:
    test = compile_expression(assertion["expression"]).function
    offending, failures = [], []
    for record in records:
        try:
            holds = bool(test(record))
        except Exception as error:  # noqa: BLE001 - a record the expression cannot take fails the assertion
            failures.append((record, f"{type(error).__name__}: {error}"))
            continue
        if holds != wanted:
            offending.append(record)
    verb = "satisfies" if wanted else "does not satisfy"
    if failures:
        record, error = failures[0]
        return {"passed": False, "difference": _offending([item for item, _ in failures], len(records)),
                "message": f"{target(assertion)}: the expression failed on {len(failures)} records, first on "
                           f"{canonical(record)[:120]}: {error}"}
    if not offending:
        return {"passed": True, "message": f"every record of {target(assertion)} {verb} {assertion['expression']}"}
    return {"passed": False, "difference": _offending(offending, len(records)),
            "message": f"{len(offending)} of {len(records)} records of {target(assertion)} "
                       f"{'do not satisfy' if wanted else 'satisfy'} {assertion['expression']}"}


def _every(assertion: dict, records: list, promises_order: bool) -> dict:
    return _satisfying(assertion, records, True)


def _none(assertion: dict, records: list, promises_order: bool) -> dict:
    return _satisfying(assertion, records, False)


def _unique(assertion: dict, records: list, promises_order: bool) -> dict:
    value_of = compile_expression(assertion["expression"]).function
    first_with: dict[str, Any] = {}
    repeated = []
    for record in records:
        try:
            value = canonical(value_of(record))
        except Exception as error:  # noqa: BLE001
            return {"passed": False, "difference": _offending([record], len(records)),
                    "message": f"{target(assertion)}: {assertion['expression']} failed on "
                               f"{canonical(record)[:120]}: {type(error).__name__}: {error}"}
        if value in first_with:
            repeated.append((first_with[value], record, value))
        else:
            first_with[value] = record
    if not repeated:
        return {"passed": True, "message": f"{assertion['expression']} is unique over the {len(records)} records "
                                           f"of {target(assertion)}"}
    first, second, value = repeated[0]
    return {"passed": False, "difference": _offending([first, second] + [r for _, r, _ in repeated[1:]], len(records)),
            "message": f"{len(repeated)} records of {target(assertion)} repeat a value of {assertion['expression']}, "
                       f"first {value[:80]}"}


def _empty(assertion: dict, records: list, promises_order: bool) -> dict:
    if not records:
        return {"passed": True, "message": f"{target(assertion)} emitted no record"}
    return {"passed": False, "difference": _offending(records, len(records)),
            "message": f"{target(assertion)} emitted {len(records)} records, none expected"}


def _offending(records: list, total: int) -> dict:
    """The records an assertion found wrong, as a difference with nothing expected in their place."""
    return {"order": "any", "missing": [], "unexpected": [plain(r) for r in records[:SHOWN]], "missing_count": 0,
            "unexpected_count": len(records), "expected_count": total - len(records), "actual_count": total}


CHECKS: dict[str, Check] = {"rows": _rows, "contains": _contains, "count": _count, "every": _every, "none": _none,
                            "unique": _unique, "empty": _empty}
