"""What redirected sinks wrote, and the diff of two sides' outputs, per sink.

A redirected sink (``redirect``) is a ``sink.file``: committed files ``part-*.jsonl`` in its
directory, hidden files still in progress or pending. :func:`committed_records` reads the
committed ones, so what is compared is exactly what the checkpoints covered.

The diff compares rows as the original sink would write them: a PostgreSQL sink's rows are
its ``columns`` expressions over the record (the record itself without them). Where the sink
has a key (a PostgreSQL upsert's key columns, a Kafka sink's ``key`` expression), rows are
compared by key, as the target would hold them: the last row of each key on each side;
*changed* keys hold different rows. Without a key the outputs are compared as multisets of
rows: a row written twice on one side and once on the other is once *only* on that side.
Rows are compared by their canonical JSON (``engine.snapshots.values``).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any, Callable

from engine.shadow.redirect import RedirectedSink
from engine.snapshots.values import plain, to_json
from engine.spec.expressions import compile_expression

SAMPLES = 20


class OutputTooLarge(ValueError):
    """A sink's committed output is beyond what may be compared."""


def committed_files(path: str) -> list[str]:
    """The committed files of a redirected sink's directory, in name order (none when it does not exist)."""
    try:
        names = os.listdir(path)
    except FileNotFoundError:
        return []
    return [os.path.join(path, name) for name in sorted(names) if name.startswith("part-") and name.endswith(".jsonl")]


def output_bytes(path: str) -> int:
    """Bytes in a redirected sink's directory, in progress and pending files included (what the cap counts)."""
    total = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass
    return total


def committed_records(path: str, max_bytes: int | None = None) -> list:
    """Every record of the committed files of ``path``; OutputTooLarge past ``max_bytes``."""
    records: list = []
    read = 0
    for file in committed_files(path):
        with open(file, "rb") as handle:
            data = handle.read()
        read += len(data)
        if max_bytes is not None and read > max_bytes:
            raise OutputTooLarge(f"the output in {path} is over {max_bytes} bytes")
        records.extend(json.loads(line) for line in data.splitlines() if line.strip())
    return records


def row_function(sink: RedirectedSink) -> Callable[[Any], Any]:
    """The row the original sink writes for a record: a PostgreSQL sink's columns, else the record."""
    columns = sink.params.get("columns") if sink.type == "sink.postgres" else None
    if not columns:
        return lambda record: record
    compiled = {column: compile_expression(expression).function for column, expression in columns.items()}
    return lambda record: {column: function(record) for column, function in compiled.items()}


def key_function(sink: RedirectedSink) -> tuple[Callable[[Any], Any] | None, str | None]:
    """``(row -> key, a description)`` of the sink's key, or ``(None, None)`` when it has none."""
    params = sink.params
    if sink.type == "sink.postgres" and params.get("mode") == "upsert" and params.get("key"):
        names = list(params["key"])
        return (lambda row: [row.get(name) if isinstance(row, dict) else None for name in names],
                f"key columns {', '.join(names)}")
    if sink.type == "sink.kafka" and params.get("key"):
        function = compile_expression(params["key"]).function
        return function, f"key {params['key']}"
    return None, None


def diff_outputs(production: RedirectedSink | None, candidate: RedirectedSink | None, *,
                 max_bytes: int | None = None, samples: int = SAMPLES) -> dict:
    """The diff of one sink's output on both sides (see the module docstring)."""
    sink = production or candidate
    rows_of = row_function(sink)
    key_of, key_description = key_function(sink)
    ours = [rows_of(record) for record in committed_records(production.path, max_bytes)] if production else []
    theirs = [rows_of(record) for record in committed_records(candidate.path, max_bytes)] if candidate else []
    result = {"node": sink.node, "type": sink.type, "keyed": key_of is not None, "key": key_description,
              "in_production": production is not None, "in_candidate": candidate is not None}
    if key_of is None:
        result.update(_multiset_diff(ours, theirs, samples))
    else:
        result.update(_keyed_diff(ours, theirs, key_of, samples))
    return result


def _multiset_diff(ours: list, theirs: list, samples: int) -> dict:
    left, right = Counter(map(to_json, ours)), Counter(map(to_json, theirs))
    only_ours, only_theirs = left - right, right - left
    return {"counts": {"production": len(ours), "candidate": len(theirs),
                       "only_production": sum(only_ours.values()), "only_candidate": sum(only_theirs.values()),
                       "changed": 0, "same": sum((left & right).values())},
            "samples": {"only_production": _sample(only_ours, samples),
                        "only_candidate": _sample(only_theirs, samples), "changed": []}}


def _keyed_diff(ours: list, theirs: list, key_of: Callable, samples: int) -> dict:
    left, right = _last_by_key(ours, key_of), _last_by_key(theirs, key_of)
    only_ours = sorted(left.keys() - right.keys())
    only_theirs = sorted(right.keys() - left.keys())
    both = sorted(left.keys() & right.keys())
    changed = [key for key in both if left[key][0] != right[key][0]]
    return {"counts": {"production": len(left), "candidate": len(right), "only_production": len(only_ours),
                       "only_candidate": len(only_theirs), "changed": len(changed),
                       "same": len(both) - len(changed)},
            "samples": {"only_production": [left[key][1] for key in only_ours[:samples]],
                        "only_candidate": [right[key][1] for key in only_theirs[:samples]],
                        "changed": [{"key": json.loads(key), "production": left[key][1], "candidate": right[key][1]}
                                    for key in changed[:samples]]}}


def _last_by_key(rows: list, key_of: Callable) -> dict[str, tuple[str, Any]]:
    """``{key JSON: (row JSON, row)}``: the last row of each key."""
    last = {}
    for row in rows:
        try:
            key = to_json(key_of(row))
        except Exception:  # noqa: BLE001 - a row the key cannot be taken of is keyed by nothing
            key = "null"
        last[key] = (to_json(row), plain(row))
    return last


def _sample(counter: Counter, samples: int) -> list:
    out = []
    for text, count in sorted(counter.items()):
        out.extend([json.loads(text)] * min(count, samples - len(out)))
        if len(out) >= samples:
            break
    return out
