"""Per-call cost of compiled expressions against plain lambdas.

The engine's hot path calls ``Expression.function`` once per record, so an expression
must cost about what the equivalent lambda costs. Run it as

    .venv/bin/python tests/bench/bench_expressions.py

It prints one line per expression and, last, one JSON object with the figures
(``ns_per_call_<case>``, ``ns_per_call_<case>_lambda``, ``ratio_<case>``; the
``ns_per_call_lambda`` of the map case; the map → filter → key chain in records/s; and
``ns_per_record_batch_<case>`` with its ``ratio_batch_<case>`` for the per-batch forms the
operators run, including the cases that pay for a guard's type test: a product of two
computed numbers, str() and an f-string of a field).
"""
from __future__ import annotations

import json
import sys
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.spec.expressions import (  # noqa: E402
    compile_batch_expression,
    compile_batch_filter,
    compile_expression,
)
from tests.bench.smoke import sized  # noqa: E402

RECORDS = sized(100_000, 1_000)
REPEATS = sized(15, 1)

CASES = {
    "map": ("x * 2", lambda x: x * 2),
    "filter": ("x % 3 != 0", lambda x: x % 3 != 0),
    "key": ("x % 1000", lambda x: x % 1000),
    "project": ('{"user": x % 10, "amount": x}', lambda x: {"user": x % 10, "amount": x}),
}


def best_of(measure, contenders) -> list[float]:
    """Best time of each contender over REPEATS rounds, taken in turns so load hits both alike."""
    best = [float("inf")] * len(contenders)
    for _ in range(REPEATS):
        for index, contender in enumerate(contenders):
            best[index] = min(best[index], measure(contender))
    return best


def seconds_per_call(function, records=None) -> float:
    """One call's time, with the loop in C (map) so that the call is what is measured."""
    records = records or _RECORDS
    started = time.perf_counter()
    deque(map(function, records), maxlen=0)
    return (time.perf_counter() - started) / len(records)


def run_chain(map_, filter_, key, records) -> int:
    """The benchmark pipeline's per-record work: map(x*2) → filter(x%3!=0) → key_by(x%1000)."""
    kept = 0
    for record in records:
        value = map_(record)
        if filter_(value):
            key(value)
            kept += 1
    return kept


def seconds_per_chain_record(functions) -> float:
    started = time.perf_counter()
    run_chain(*functions, _RECORDS)
    return (time.perf_counter() - started) / len(_RECORDS)


_RECORDS = list(range(RECORDS))
_DICTS = [{"user": f"u{index % 100}", "ts": index, "amount": index % 7} for index in range(RECORDS)]

BATCH_CASES = {
    "map": ("x * 2", lambda batch: [x * 2 for x in batch], _RECORDS, compile_batch_expression),
    "filter": ("x % 3 != 0", lambda batch: [x for x in batch if x % 3 != 0], _RECORDS, compile_batch_filter),
    "scale": ('x["ts"] * 1000', lambda batch: [x["ts"] * 1000 for x in batch], _DICTS, compile_batch_expression),
    "numbers": ("(x + 1) * (x - 1)", lambda batch: [(x + 1) * (x - 1) for x in batch], _RECORDS,
                compile_batch_expression),
    "str": ('str(x["amount"])', lambda batch: [str(x["amount"]) for x in batch], _DICTS, compile_batch_expression),
    "format": ('f"user:{x[\'user\']}"', lambda batch: [f"user:{x['user']}" for x in batch], _DICTS,
               compile_batch_expression),
}


def seconds_per_batch_record(function, records) -> float:
    started = time.perf_counter()
    function(records)
    return (time.perf_counter() - started) / len(records)


def compile_microseconds(count: int = 200) -> float:
    """Cost of checking and compiling a fresh (uncached) expression."""
    started = time.perf_counter()
    for index in range(count):
        compile_expression(f'{{"user": x % 10, "amount": x * {index + 2}}}')
    return (time.perf_counter() - started) / count * 1e6


def main() -> dict:
    figures: dict[str, float] = {}
    for case, (source, plain) in CASES.items():
        compiled = compile_expression(source).function
        ours, theirs = (seconds * 1e9 for seconds in best_of(seconds_per_call, [compiled, plain]))
        figures[f"ns_per_call_{case}"] = round(ours, 1)
        figures[f"ns_per_call_{case}_lambda"] = round(theirs, 1)
        figures[f"ratio_{case}"] = round(ours / theirs, 3)
        print(f"{case:8} {source:34} {ours:7.1f} ns/call   lambda {theirs:7.1f} ns/call   ratio {ours / theirs:.2f}")
    figures["ns_per_call_lambda"] = figures["ns_per_call_map_lambda"]
    chain = [compile_expression(CASES[case][0]).function for case in ("map", "filter", "key")]
    plain_chain = [CASES[case][1] for case in ("map", "filter", "key")]
    ours, theirs = best_of(seconds_per_chain_record, [chain, plain_chain])
    figures["chain_records_per_s"] = round(1 / ours)
    figures["chain_records_per_s_lambda"] = round(1 / theirs)
    figures["ratio_chain"] = round(ours / theirs, 3)
    for case, (source, plain, records, compiler) in BATCH_CASES.items():
        ours, theirs = (seconds * 1e9 for seconds in best_of(lambda f: seconds_per_batch_record(f, records),
                                                               [compiler(source), plain]))
        figures[f"ns_per_record_batch_{case}"] = round(ours, 1)
        figures[f"ratio_batch_{case}"] = round(ours / theirs, 3)
        print(f"batch {case:8} {source:28} {ours:7.1f} ns/record   comprehension {theirs:7.1f}   "
              f"ratio {ours / theirs:.2f}")
    figures["compile_us"] = round(compile_microseconds(), 1)
    print(f"chain    map → filter → key            {figures['chain_records_per_s']:,} records/s   "
          f"lambda {figures['chain_records_per_s_lambda']:,} records/s   ratio {figures['ratio_chain']:.2f}")
    print(f"compile  {figures['compile_us']} µs per new expression")
    print(json.dumps(figures))
    return figures


if __name__ == "__main__":
    main()
