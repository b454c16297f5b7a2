"""What an operator's state means: its kind, and one key's state as a person reads it.

A state file holds named states (``windows``, ``left``, ``aggregate`` ...) of plain values;
what they mean depends on the operator that wrote them. A window's map ``{end: accumulator}``
is a list of *panes* ``[end - size, end)`` each with a timer at ``end - 1`` (timers are not
checkpointed: every keyed operator rebuilds them from its state, so they are derived here
the same way); a join's bucket state is a buffer of records per window or event time with
the time it is dropped at; a deduplication keeps a TTL per key. A :class:`Layout` says so
for one operator type; an operator without one is shown as its named states (keyed value,
map or list, told apart by the values it holds).

Rendering is for reading and comparing, so it is deterministic: panes by time, every
value through ``values.plain``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from engine.snapshots.values import plain

Render = Callable[[dict[str, Any], dict], dict]


@dataclass(frozen=True)
class Layout:
    """How an operator type's keyed state reads: its ``kind`` and ``render(states, params)``, where
    ``states`` is one key's ``{state name: value}``."""

    kind: str
    render: Render
    shows_states_as_they_are: bool = False
    """``render`` of a key's one state (not a TTL's) is ``{name: value}``: the reader writes it without the call."""


def _int(params: dict, name: str, default: int = 0) -> int:
    try:
        return int(params.get(name) or default)
    except (TypeError, ValueError):
        return default


def _window_panes(states: dict, params: dict) -> dict:
    size, lateness = _int(params, "size_ms"), _int(params, "allowed_lateness_ms")
    result: dict[str, Any] = {"panes": [
        {"window": [end - size, end], "accumulator": plain(accumulator), "timer": end - 1}
        for end, accumulator in sorted(_items(states.get("windows")))]}
    if "fired" in states:
        result["fired"] = [{"window": [end - size, end], "accumulator": plain(accumulator),
                            "cleanup_timer": end - 1 + lateness}
                           for end, accumulator in sorted(_items(states.get("fired")))]
    return result


def _session_panes(states: dict, params: dict) -> dict:
    lateness = _int(params, "allowed_lateness_ms")
    result: dict[str, Any] = {"panes": [
        {"window": [start, end], "accumulator": plain(accumulator), "timer": end - 1}
        for start, (end, accumulator) in sorted(_items(states.get("sessions")))]}
    if "fired" in states:
        result["fired"] = [{"window": [start, end], "accumulator": plain(accumulator),
                            "cleanup_timer": end - 1 + lateness}
                           for start, (end, accumulator) in sorted(_items(states.get("fired")))]
    return result


def _window_join_buffers(states: dict, params: dict) -> dict:
    size = _int(params, "size_ms")
    lateness = _int(params, "allowed_lateness_ms")
    fired = states.get("fired") or {}
    result = {}
    for side in ("left", "right"):
        result[side] = [{"window": [end - size, end], "records": plain(records), "fired": end in fired,
                         "timer": end - 1, "dropped_at": end - 1 + lateness}
                        for end, records in sorted(_items(states.get(side)))]
    return result


def _interval_join_buffers(states: dict, params: dict) -> dict:
    lower, upper = _int(params, "lower_ms"), _int(params, "upper_ms")
    lateness = _int(params, "allowed_lateness_ms")
    matched = states.get("matched") or {}
    left = [{"time": time, "records": plain(records), "dropped_at": time + upper + lateness,
             **({"matched": time in matched} if "matched" in states else {})}
            for time, records in sorted(_items(states.get("left")))]
    right = [{"time": time, "records": plain(records), "dropped_at": time - lower + lateness}
             for time, records in sorted(_items(states.get("right")))]
    return {"left": left, "right": right}


def _dedup_ttl(states: dict, params: dict) -> dict:
    ttl = _int(params, "ttl_ms")
    if "first" in states:
        end = states["first"]
        return {"keep": "first", "ttl": [end - ttl, end], "timer": end - 1}
    if "last" in states:
        end, record, time = states["last"]
        return {"keep": "last", "ttl": [end - ttl, end], "kept": plain(record), "event_time": time, "timer": end - 1}
    return plain(states)


def _with_ttl(states: dict, params: dict) -> dict:
    """Named states, and with a state TTL the event time the key's state expires at (``state_ttl``)."""
    result = {name: plain(value) for name, value in sorted(states.items()) if name != "ttl_latest"}
    if "ttl_latest" in states:
        result["expires_at"] = states["ttl_latest"] + _int(params, "state_ttl_ms")
    return result


def _items(entries) -> list:
    return list(entries.items()) if isinstance(entries, dict) else []


LAYOUTS: dict[str, Layout] = {
    "window.tumbling": Layout("windows (panes and timers)", _window_panes),
    "window.sliding": Layout("windows (panes and timers)", _window_panes),
    "window.session": Layout("session windows (panes and timers)", _session_panes),
    "window.count": Layout("count windows", _with_ttl, True),
    "join.window": Layout("join buffers (per window)", _window_join_buffers),
    "join.interval": Layout("join buffers (per event time)", _interval_join_buffers),
    "transform.deduplicate": Layout("deduplication TTLs", _dedup_ttl),
    "aggregate.reduce": Layout("keyed value (running aggregate)", _with_ttl, True),
}


def keyed_layout(operator_type: str | None, sample: dict[str, Any] | None) -> Layout:
    """The layout of an operator type; for another type, keyed value, map or list by the ``sample`` of one
    key's states."""
    layout = LAYOUTS.get(operator_type or "")
    if layout is not None:
        return layout
    kinds = sorted({_keyed_kind(value) for value in (sample or {}).values()}) or ["value"]
    return Layout(f"keyed {' and '.join(kinds)}", _generic, True)


def _keyed_kind(value) -> str:
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    return "value"


def _generic(states: dict, params: dict) -> dict:
    return plain(states)


def operator_state_kind(operator_type: str | None, names: list[str]) -> str:
    """What an operator's (non-keyed) list states hold, by its type and their names."""
    kind = operator_type or ""
    if kind.startswith("source."):
        return "source offsets and splits"
    if "pending" in names or "transaction_prefix" in names:
        return "pending sink transactions"
    if kind.startswith("lookup."):
        return "in-flight elements (async I/O)"
    if kind.startswith("sink."):
        return "sink state"
    return "operator list state"
