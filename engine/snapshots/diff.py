"""Two snapshots of one operator compared key by key: added, removed and changed keys.

Both sides are :class:`~engine.snapshots.index.StateIndex` files, so the comparison is one
columnar join on the canonical key JSON and a comparison of the canonical state JSON: a
key is *added* when only the later snapshot has it, *removed* when only the earlier one
does, *changed* when both have it with different state.
"""
from __future__ import annotations

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from engine.snapshots.index import KEY_ORDER, StateIndex

CHANGES = ("added", "removed", "changed")
_decode = msgspec.json.decode


def diff_states(before: StateIndex, after: StateIndex, change: str | None = None, offset: int = 0,
                limit: int = 50) -> dict:
    """``{"counts": {"added", "removed", "changed", "unchanged"}, "change", "total", "offset", "rows"}``;
    ``rows`` are keys of ``change`` (every kind when None), in key order: ``{"change", "key", "key_group",
    "before", "after"}`` with the states decoded (None on the side without the key)."""
    if change is not None and change not in CHANGES:
        raise ValueError(f"unknown change {change!r}: one of {', '.join(CHANGES)}")
    joined = _joined(before.table, after.table)
    kinds = _kinds(joined)
    counts = {kind: int(pc.sum(pc.equal(kinds, kind)).as_py() or 0) for kind in (*CHANGES, "unchanged")}
    joined = joined.append_column("change", kinds)
    selected = joined.filter(pc.equal(kinds, change) if change else pc.not_equal(kinds, "unchanged"))
    selected = selected.take(pc.sort_indices(selected, KEY_ORDER))
    page = selected.slice(max(0, offset), max(0, limit)).to_pydict()
    rows = [{"change": kind, "key": _decode(key), "key_json": key, "key_group": group,
             "before": None if old is None else _decode(old), "after": None if new is None else _decode(new)}
            for kind, key, group, old, new in zip(page["change"], page["key"], page["key_group"], page["before"],
                                                   page["after"])]
    return {"counts": counts, "change": change, "total": selected.num_rows, "offset": max(0, offset), "rows": rows}


def _joined(before: pa.Table, after: pa.Table) -> pa.Table:
    """``key, number, key_group, before, after``: a full outer join of the two sides on ``key``."""
    left = before.select(["key", "number", "key_group", "state"]).rename_columns(
        ["key", "number_before", "group_before", "before"])
    right = after.select(["key", "number", "key_group", "state"]).rename_columns(
        ["key", "number_after", "group_after", "after"])
    joined = left.join(right, keys="key", join_type="full outer")
    return pa.table({
        "key": joined["key"],
        "number": pc.coalesce(joined["number_after"], joined["number_before"]),
        "key_group": pc.coalesce(joined["group_after"], joined["group_before"]),
        "before": joined["before"], "after": joined["after"],
    })


def _kinds(joined: pa.Table) -> pa.Array:
    before, after = joined["before"], joined["after"]
    return pc.if_else(pc.is_null(before), "added",
                      pc.if_else(pc.is_null(after), "removed",
                                 pc.if_else(pc.equal(before, after), "unchanged", "changed")))
