"""Plain-Python references of the joins, shared by their model and exactly-once tests.

A step is ``("watermark", t)`` or ``(side, [events])`` with events ``{"k", "t", "id"}``; a
reference returns the joined ``[left id, right id]`` pairs (``right id`` None for an
unmatched left) as a Counter of their JSON texts. The references keep every record
forever and decide lateness record by record, so they share no bookkeeping with the
operators' buckets and timers.
"""
from __future__ import annotations

import json
from collections import Counter


def interval_reference(steps, lower, upper, lateness, outer) -> Counter:
    """Every pair of non-late records of one key within the interval; unmatched lefts if outer."""
    watermark = -(2**63)
    lefts, rights = [], []
    for step in steps:
        if step[0] == "watermark":
            watermark = max(watermark, step[1])
            continue
        side, events = step
        kept = [e for e in events if e["t"] > watermark - lateness]
        (lefts if side == "left" else rights).extend(kept)
    pairs = Counter()
    for left in lefts:
        partners = [r for r in rights if r["k"] == left["k"] and left["t"] + lower <= r["t"] <= left["t"] + upper]
        for right in partners:
            pairs[json.dumps([left["id"], right["id"]])] += 1
        if outer and not partners:
            pairs[json.dumps([left["id"], None])] += 1
    return pairs


def window_ends(t, size, slide):
    return range(t - t % slide + size, t, -slide)


def window_reference(steps, size, slide, lateness, outer=False) -> Counter:
    """Per key and window, the pairs of the records that arrived before the window was cleaned.

    If ``outer``, also each left record that found no right record in its window when the window
    fired (the watermark reached its end - 1, or, for a window first seen after that, the end of
    the step that brought it), or when the left record arrived for a fired window."""
    watermark = -(2**63)
    members = {}  # (key, end) -> {"left": [...], "right": [...]}
    fired = set()
    pairs = Counter()

    def unmatched(lefts):
        for left in lefts:
            pairs[json.dumps([left["id"], None])] += 1

    def fire(up_to):
        for window_id, window in members.items():
            if window_id not in fired and window_id[1] - 1 <= up_to:
                fired.add(window_id)
                if outer and not window["right"]:
                    unmatched(window["left"])

    for step in steps:
        if step[0] == "watermark":
            watermark = max(watermark, step[1])
            fire(watermark)
            continue
        side, events = step
        for e in events:
            for end in window_ends(e["t"], size, slide):
                if end - 1 + lateness > watermark:
                    window = members.setdefault((repr(e["k"]), end), {"left": [], "right": []})
                    if outer and side == "left" and (repr(e["k"]), end) in fired and not window["right"]:
                        unmatched([e])
                    window[side].append(e)
        fire(watermark)
    fire(2**63)
    for window in members.values():
        for left in window["left"]:
            for right in window["right"]:
                pairs[json.dumps([left["id"], right["id"]])] += 1
    return pairs


def late_reference(steps, lateness, is_late) -> Counter:
    """The ``(side, id)`` of every record ``is_late(t, watermark)`` calls late when it arrives."""
    watermark = -(2**63)
    late = Counter()
    for step in steps:
        if step[0] == "watermark":
            watermark = max(watermark, step[1])
            continue
        side, events = step
        late.update((side, e["id"]) for e in events if is_late(e["t"], watermark))
    return late
