"""Model tests of the keyed, timer-driven operators against plain-Python references.

Hypothesis draws records ``{"k", "v", "t"}`` with out-of-order event times, a bound of
out-of-orderness that makes some of them late, and the batch size. The job reads them from
a file at parallelism 1 (so each key's records reach the operator in file order, and the
watermark after each batch of ``batch_size`` records is known), assigns event time, and
hashes by key into the operator at parallelism 1 or 2. The reference replays the same
batches and watermarks. Streaming mode must equal the reference with its late records;
batch mode (event time does not advance before the end: nothing is late) must equal the
reference without watermarks -- so on input without late records both modes agree. A running
aggregate is not rolling in batch mode: there the reference's last output of each key.
"""
from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from tests.engine.lifecycle.support import final_per_key

NO_WATERMARK = -(2**63)
FOLDS = {"sum": lambda a, v: a + v, "count": lambda a, v: a + v, "min": min, "max": max}


def job(records: list[dict], operator: dict, *, out_of_orderness: int, parallelism: int, mode: str,
        late: bool = False) -> dict:
    """src -> time -> hash(k) -> op -> out, and with ``late`` op's late port -> a second sink ``late``."""
    path = Path(tempfile.mkdtemp(prefix="keyed-model-")) / "records.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    late_sink = [{"id": "late", "type": "sink.collect", "params": {"max_records": 100000}}] if late else []
    late_edge = [{"id": "e4", "from": "op", "from_port": "late", "to": "late", "partitioning": "rebalance"}] \
        if late else []
    return {
        "format": 1, "name": "model", "mode": mode, "parallelism": 1, "max_parallelism": 64,
        "checkpointing": {"interval_ms": 50}, "restart": {"strategy": "none"},
        "nodes": [{"id": "src", "type": "source.file", "params": {"path": str(path)}},
                  {"id": "time", "type": "transform.watermark",
                   "params": {"timestamp": 'x["t"]', "max_out_of_orderness_ms": out_of_orderness}},
                  {"id": "op", "parallelism": parallelism, **operator},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 100000}}, *late_sink],
        "edges": [{"id": "e1", "from": "src", "to": "time"},
                  {"id": "e2", "from": "time", "to": "op", "partitioning": "hash", "key": 'x["k"]'},
                  {"id": "e3", "from": "op", "to": "out", "partitioning": "rebalance"}, *late_edge],
    }


def run(definition: dict, batch_size: int, sink: str = "out") -> Counter:
    return run_all(definition, batch_size)[sink]


def run_all(definition: dict, batch_size: int) -> dict[str, Counter]:
    result = LocalCluster(config={"batch_size": batch_size}).run(definition, timeout=60)
    assert result.status == "FINISHED", result.failure
    return {sink: canonical(result.collected.get(sink, [])) for sink in ("out", "late")}


def canonical(records) -> Counter:
    return Counter(json.dumps(record) for record in records)


def batches_and_watermarks(records: list[dict], batch_size: int, out_of_orderness: int, streaming: bool):
    """Yield each batch the operator sees with the watermark before it and the one after it
    (the assigner emits one after every batch; batch mode has none before the end)."""
    watermark = highest = NO_WATERMARK
    for first in range(0, len(records), batch_size):
        chunk = records[first:first + batch_size]
        before = watermark
        if streaming:
            highest = max(highest, max(record["t"] for record in chunk))
            watermark = max(watermark, highest - out_of_orderness - 1)
        yield chunk, before, watermark


record_lists = st.lists(st.fixed_dictionaries({"k": st.integers(0, 3), "v": st.integers(-5, 5),
                                               "t": st.integers(0, 600)}), max_size=80)


# -- window.session ---------------------------------------------------------------------------

def sessions_of(points: list[tuple[int, int]], gap: int) -> list[tuple[int, int, list[int]]]:
    """Split (time, value) points into sessions: sorted by time, a new one where the next point is
    more than ``gap`` after the last (windows [t, t + gap) that touch merge)."""
    sessions: list[tuple[int, int, list[int]]] = []
    for t, v in sorted(points):
        if sessions and t <= sessions[-1][1]:
            start, end, values = sessions[-1]
            sessions[-1] = (start, max(end, t + gap), values + [v])
        else:
            sessions.append((t, t + gap, [v]))
    return sessions


def reference_sessions(records, gap, function, batch_size, out_of_orderness, streaming) -> dict[str, Counter]:
    """Pending (unfired) points per key; a record is late when its window fired already and it touches
    no pending session; after each watermark the sessions ending at or before it are emitted."""
    pending: dict[int, list[tuple[int, int]]] = {}
    output, late = [], []

    def fire(key, up_to):
        for start, end, values in sessions_of(pending[key], gap):
            if end - 1 <= up_to:
                aggregate = len(values) if function == "count" else _fold(function, values)
                output.append([key, start, end, aggregate])
                pending[key] = [(t, v) for t, v in pending[key] if not start <= t < end]

    for chunk, before, watermark in batches_and_watermarks(records, batch_size, out_of_orderness, streaming):
        for record in chunk:
            key, t = record["k"], record["t"]
            touches = any(start <= t + gap and end >= t for start, end, _ in sessions_of(pending.get(key, []), gap))
            if not touches and t + gap - 1 <= before:
                late.append(record)
                continue
            pending.setdefault(key, []).append((t, record["v"]))
        for key in list(pending):
            fire(key, watermark)
    for key in list(pending):
        fire(key, 2**63)
    return {"out": canonical(output), "late": canonical(late)}


def _fold(function: str, values: list[int]):
    result = values[0]
    for value in values[1:]:
        result = FOLDS[function](result, value)
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=record_lists, gap=st.sampled_from([1, 15, 60]), function=st.sampled_from(list(FOLDS)),
       out_of_orderness=st.sampled_from([0, 40, 200]), batch_size=st.sampled_from([1, 4, 16]),
       parallelism=st.integers(1, 2))
def test_session_windows_equal_the_reference(records, gap, function, out_of_orderness, batch_size, parallelism):
    operator = {"type": "window.session", "params": {"gap_ms": gap, "function": function, "value": 'x["v"]'}}
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=out_of_orderness, parallelism=parallelism, mode=mode,
                         late=True)
        expected = reference_sessions(records, gap, function, batch_size, out_of_orderness, mode == "streaming")
        assert run_all(definition, batch_size) == expected, mode


# -- window.tumbling / window.sliding: the late port --------------------------------------------

def reference_windows(records, size, slide, function, batch_size, out_of_orderness, streaming) -> dict[str, Counter]:
    """Each record folds into the windows [start, start + size) holding it whose end - 1 is after the
    watermark before its batch; one that folds into none is late."""
    windows: dict[tuple[int, int], int] = {}
    late = []
    for chunk, before, _ in batches_and_watermarks(records, batch_size, out_of_orderness, streaming):
        for record in chunk:
            t, value = record["t"], 1 if function == "count" else record["v"]
            ends = [start + size for start in range(t - t % slide, t - size, -slide) if start + size - 1 > before]
            for end in ends:
                slot = (record["k"], end)
                windows[slot] = value if slot not in windows else FOLDS[function](windows[slot], value)
            if not ends:
                late.append(record)
    return {"out": canonical([k, end, total] for (k, end), total in windows.items()), "late": canonical(late)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=record_lists, size=st.sampled_from([10, 50]), sliding=st.booleans(),
       function=st.sampled_from(list(FOLDS)), out_of_orderness=st.sampled_from([0, 40, 200]),
       batch_size=st.sampled_from([1, 4, 16]), parallelism=st.integers(1, 2))
def test_late_records_of_tumbling_and_sliding_windows_leave_through_the_late_port(
        records, size, sliding, function, out_of_orderness, batch_size, parallelism):
    slide = size // 2 if sliding else size
    params = {"size_ms": size, "function": function, "value": 'x["v"]', **({"slide_ms": slide} if sliding else {})}
    operator = {"type": "window.sliding" if sliding else "window.tumbling", "params": params}
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=out_of_orderness, parallelism=parallelism, mode=mode,
                         late=True)
        expected = reference_windows(records, size, slide, function, batch_size, out_of_orderness,
                                     mode == "streaming")
        assert run_all(definition, batch_size) == expected, mode


# -- window.count -----------------------------------------------------------------------------

def reference_count_windows(records, size, slide, function) -> Counter:
    """Each key's values in arrival order; at its slide-th, 2·slide-th, ... record, the last ``size``."""
    seen: dict[int, list[int]] = {}
    output = []
    for record in records:
        values = seen.setdefault(record["k"], [])
        values.append(1 if function == "count" else record["v"])
        if len(values) % slide == 0:
            window = values[-size:]
            output.append([record["k"], len(window) if function == "count" else _fold(function, window)])
    return canonical(output)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=record_lists, size=st.integers(1, 6), slide=st.one_of(st.none(), st.integers(1, 6)),
       function=st.sampled_from(list(FOLDS)), batch_size=st.sampled_from([1, 4, 16]), parallelism=st.integers(1, 2))
def test_count_windows_equal_the_reference(records, size, slide, function, batch_size, parallelism):
    operator = {"type": "window.count",
                "params": {"size": size, "slide": slide, "function": function, "value": 'x["v"]'}}
    expected = reference_count_windows(records, size, slide or size, function)
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=0, parallelism=parallelism, mode=mode)
        assert run(definition, batch_size) == expected, mode


# -- allowed lateness ---------------------------------------------------------------------------

def _aggregate(function: str, values: list[int]):
    return len(values) if function == "count" else _fold(function, values)


def reference_sessions_with_lateness(records, gap, lateness, function, batch_size, out_of_orderness,
                                     streaming) -> dict[str, Counter]:
    """Sessions as [start, end, values, fired]. A record merges with every session it touches; a
    merged session that ends at or before the watermark fires (again) at once. Sessions fire when
    the watermark passes their end and are forgotten when it passes end + lateness."""
    sessions: dict[int, list[list]] = {}
    output, late = [], []
    for chunk, before, after in batches_and_watermarks(records, batch_size, out_of_orderness, streaming):
        for record in chunk:
            key, t = record["k"], record["t"]
            mine = sessions.setdefault(key, [])
            touched = [s for s in mine if s[0] <= t + gap and s[1] >= t]
            if not touched and t + gap - 1 + lateness <= before:
                late.append(record)
                continue
            merged = [min([t] + [s[0] for s in touched]), max([t + gap] + [s[1] for s in touched]),
                      [record["v"]] + [v for s in touched for v in s[2]], False]
            mine[:] = [s for s in mine if s not in touched] + [merged]
            if merged[1] - 1 <= before:
                merged[3] = True
                output.append([key, merged[0], merged[1], _aggregate(function, merged[2])])
        for key, mine in sessions.items():
            for s in mine:
                if not s[3] and s[1] - 1 <= after:
                    s[3] = True
                    output.append([key, s[0], s[1], _aggregate(function, s[2])])
            mine[:] = [s for s in mine if s[1] - 1 + lateness > after]
    for key, mine in sessions.items():
        output += [[key, s[0], s[1], _aggregate(function, s[2])] for s in mine if not s[3]]
    return {"out": canonical(output), "late": canonical(late)}


def reference_windows_with_lateness(records, size, slide, lateness, function, batch_size, out_of_orderness,
                                    streaming) -> dict[str, Counter]:
    """Windows as {(key, end): [values, fired]}: fire at end - 1, forgotten at end - 1 + lateness; a
    record for a fired window folds in and the window fires again at once."""
    windows: dict[tuple[int, int], list] = {}
    output, late = [], []
    for chunk, before, after in batches_and_watermarks(records, batch_size, out_of_orderness, streaming):
        for record in chunk:
            t, value = record["t"], 1 if function == "count" else record["v"]
            taken = False
            for start in range(t - t % slide, t - size, -slide):
                end, slot = start + size, (record["k"], start + size)
                if slot not in windows and end - 1 + lateness <= before:
                    continue
                taken = True
                window = windows.setdefault(slot, [[], end - 1 <= before])
                window[0].append(value)
                if window[1]:
                    output.append([record["k"], end, _aggregate(function, window[0])])
            if not taken:
                late.append(record)
        for (key, end), window in list(windows.items()):
            if not window[1] and end - 1 <= after:
                window[1] = True
                output.append([key, end, _aggregate(function, window[0])])
            if end - 1 + lateness <= after:
                del windows[(key, end)]
    output += [[key, end, _aggregate(function, w[0])] for (key, end), w in windows.items() if not w[1]]
    return {"out": canonical(output), "late": canonical(late)}


dense_record_lists = st.lists(st.fixed_dictionaries({"k": st.integers(0, 1), "v": st.integers(-5, 5),
                                                     "t": st.integers(0, 300)}), min_size=10, max_size=60)
"""Few keys, short times, many records: late records meet windows that fired with records in them."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=dense_record_lists, kind=st.sampled_from(["session", "tumbling", "sliding"]),
       lateness=st.sampled_from([1, 30, 150]), function=st.sampled_from(list(FOLDS)),
       out_of_orderness=st.sampled_from([0, 40]), batch_size=st.sampled_from([1, 4, 16]),
       parallelism=st.integers(1, 2))
def test_allowed_lateness_updates_fired_windows_and_only_later_records_are_late(
        records, kind, lateness, function, out_of_orderness, batch_size, parallelism):
    params = {"function": function, "value": 'x["v"]', "allowed_lateness_ms": lateness}
    if kind == "session":
        operator = {"type": "window.session", "params": {"gap_ms": 20, **params}}
    elif kind == "tumbling":
        operator = {"type": "window.tumbling", "params": {"size_ms": 50, **params}}
    else:
        operator = {"type": "window.sliding", "params": {"size_ms": 50, "slide_ms": 25, **params}}
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=out_of_orderness, parallelism=parallelism, mode=mode,
                         late=True)
        streaming = mode == "streaming"
        if kind == "session":
            expected = reference_sessions_with_lateness(records, 20, lateness, function, batch_size,
                                                        out_of_orderness, streaming)
        else:
            expected = reference_windows_with_lateness(records, 50, 50 if kind == "tumbling" else 25, lateness,
                                                       function, batch_size, out_of_orderness, streaming)
        assert run_all(definition, batch_size) == expected, mode


# -- transform.deduplicate ----------------------------------------------------------------------

def reference_deduplicate(records, ttl, keep, batch_size, out_of_orderness, streaming) -> dict[str, Counter]:
    """Per key in arrival order: a record with no open TTL opens [t, t + ttl) (late instead when the
    watermark before its batch reached t); later ones before the end are duplicates. A TTL ends when
    the watermark after a batch reaches end - 1, or when a record at or after its end opens the next."""
    open_ttl: dict[int, list] = {}  # key -> [end, kept record]
    output, late = [], []
    for chunk, before, after in batches_and_watermarks(records, batch_size, out_of_orderness, streaming):
        for record in chunk:
            key, t = record["k"], record["t"]
            current = open_ttl.get(key)
            if current is not None and t < current[0]:
                if keep == "last":
                    current[1] = record
                continue
            if current is None and t <= before:
                late.append(record)
                continue
            if current is not None and keep == "last":
                output.append(current[1])
            open_ttl[key] = [t + ttl, record]
            if keep == "first":
                output.append(record)
        for key, (end, kept) in list(open_ttl.items()):
            if end - 1 <= after:
                del open_ttl[key]
                if keep == "last":
                    output.append(kept)
    if keep == "last":
        output += [kept for _, kept in open_ttl.values()]
    return {"out": canonical(output), "late": canonical(late)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.one_of(record_lists, dense_record_lists), ttl=st.sampled_from([1, 20, 100]),
       keep=st.sampled_from(["first", "last"]), out_of_orderness=st.sampled_from([0, 40, 200]),
       batch_size=st.sampled_from([1, 4, 16]), parallelism=st.integers(1, 2))
def test_deduplicate_equals_the_reference(records, ttl, keep, out_of_orderness, batch_size, parallelism):
    operator = {"type": "transform.deduplicate", "params": {"ttl_ms": ttl, "keep": keep}}
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=out_of_orderness, parallelism=parallelism, mode=mode,
                         late=True)
        expected = reference_deduplicate(records, ttl, keep, batch_size, out_of_orderness, mode == "streaming")
        assert run_all(definition, batch_size) == expected, mode


# -- state TTL ------------------------------------------------------------------------------------

def reference_with_state_ttl(records, ttl, batch_size, out_of_orderness, streaming, fold_record, final_only=False):
    """Per key: ``latest`` event time and a state; a record ``ttl`` or more after the key's latest starts
    from no state; a watermark that advanced after a batch removes keys whose latest + ttl - 1 it
    reached (timers fire when the watermark moves, as Flink's do, also those set for a time it passed).
    ``fold_record(state | None, record) -> (state, outputs)``; ``final_only``: each key's last output
    alone (a running aggregate in batch mode)."""
    latest: dict[int, int] = {}
    states: dict[int, object] = {}
    output = []
    for chunk, before, after in batches_and_watermarks(records, batch_size, out_of_orderness, streaming):
        for record in chunk:
            key, t = record["k"], record["t"]
            if key in latest and t >= latest[key] + ttl:
                states.pop(key, None)
                latest[key] = t
            else:
                latest[key] = max(latest.get(key, t), t)
            states[key], outputs = fold_record(states.get(key), record)
            output += outputs
        for key in [key for key, time in latest.items() if after > before and time + ttl - 1 <= after]:
            del latest[key]
            states.pop(key, None)
    return canonical(final_per_key(output) if final_only else output)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.one_of(record_lists, dense_record_lists), ttl=st.sampled_from([1, 30, 150]),
       function=st.sampled_from(list(FOLDS)), out_of_orderness=st.sampled_from([0, 40]),
       batch_size=st.sampled_from([1, 4, 16]), parallelism=st.integers(1, 2))
def test_running_aggregates_with_a_state_ttl_equal_the_reference(records, ttl, function, out_of_orderness,
                                                                 batch_size, parallelism):
    def fold_record(state, record):
        value = 1 if function == "count" else record["v"]
        state = value if state is None else FOLDS[function](state, value)
        return state, [[record["k"], state]]

    operator = {"type": "aggregate.reduce", "params": {"function": function, "value": 'x["v"]', "state_ttl_ms": ttl}}
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=out_of_orderness, parallelism=parallelism, mode=mode)
        expected = reference_with_state_ttl(records, ttl, batch_size, out_of_orderness, mode == "streaming",
                                            fold_record, final_only=mode == "batch")
        assert run(definition, batch_size) == expected, mode


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=st.one_of(record_lists, dense_record_lists), ttl=st.sampled_from([1, 30, 150]),
       size=st.integers(1, 4), slide=st.one_of(st.none(), st.integers(1, 4)), out_of_orderness=st.sampled_from([0, 40]),
       batch_size=st.sampled_from([1, 4, 16]), parallelism=st.integers(1, 2))
def test_count_windows_with_a_state_ttl_equal_the_reference(records, ttl, size, slide, out_of_orderness,
                                                            batch_size, parallelism):
    def fold_record(values, record):
        values = (values or []) + [record["v"]]
        return values, ([[record["k"], sum(values[-size:])]] if len(values) % (slide or size) == 0 else [])

    operator = {"type": "window.count",
                "params": {"size": size, "slide": slide, "value": 'x["v"]', "state_ttl_ms": ttl}}
    for mode in ("streaming", "batch"):
        definition = job(records, operator, out_of_orderness=out_of_orderness, parallelism=parallelism, mode=mode)
        expected = reference_with_state_ttl(records, ttl, batch_size, out_of_orderness, mode == "streaming",
                                            fold_record)
        assert run(definition, batch_size) == expected, mode


def test_expired_keys_are_removed_by_the_watermark_and_counted(tmp_path):
    """Keys 0..9 appear once each early; key 10 keeps going: the watermark removes the ten, the state keeps one key."""
    records = [{"k": k, "v": 1, "t": k} for k in range(10)] + [{"k": 10, "v": 1, "t": t} for t in range(100, 2000, 10)]
    operator = {"type": "aggregate.reduce", "params": {"function": "count", "state_ttl_ms": 50}}
    handle = LocalCluster(config={"batch_size": 8}).submit(
        job(records, operator, out_of_orderness=0, parallelism=1, mode="streaming"), checkpoint_dir=str(tmp_path))
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    assert handle.metrics()["op#0"]["expired_keys"] >= 10
    assert canonical(result.collected["out"])[json.dumps([10, 190])] == 1, "key 10 never expired: one running count"
