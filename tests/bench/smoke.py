"""Smoke mode for the benchmarks: ``--smoke`` (or ``BENCH_SMOKE=1``) runs a benchmark with tiny sizes and
one round, asserting no target, so ``make test`` runs every benchmark in seconds and a change that breaks
one fails CI (``tests/test_benchmarks_smoke.py``). The figures of a smoke run mean nothing.

A benchmark imports ``SMOKE`` before it reads ``sys.argv``: the flag is taken out of the arguments here.
"""
from __future__ import annotations

import os
import sys

SMOKE = "--smoke" in sys.argv[1:] or os.environ.get("BENCH_SMOKE") == "1"
while "--smoke" in sys.argv[1:]:
    sys.argv.remove("--smoke")
if SMOKE:
    os.environ["BENCH_SMOKE"] = "1"  # children a benchmark starts (``--measure`` processes) are smoke runs too


def sized(full, smoke):
    """``full`` in a measured run, ``smoke`` in a smoke run."""
    return smoke if SMOKE else full
