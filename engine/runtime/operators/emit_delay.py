"""Emit delay: how long after its end, on the clock, a window's (or a window join's) result left the operator.

A window ending at event time ``end`` fires when the watermark passes ``end - 1``; the
result's event time is ``end - 1``. When event times are epoch milliseconds, the clock at
the emit minus ``end`` says how late results come out: the watermark's lag (sources behind,
out-of-orderness allowed for, idle inputs) plus the time to fire. Flink shows neither; users
of its windows ask for it first when output "comes late".

:class:`EmitDelays` keeps, per fired batch, its size, the sum of its delays and its largest,
for the last ``RECENT_BATCHES`` batches: two C-level passes over the batch's timestamps
(``min``, ``sum``), nothing per record in Python. Event times that are not epoch
milliseconds (plain numbers from a test, ``< EPOCH_MS_FROM``) have no delay and are skipped.
Mailbox thread only.

>>> delays = EmitDelays(clock_ms=lambda: 1_700_000_010_000.0)
>>> delays.observe([1_700_000_004_999, 1_700_000_007_999])  # windows ending at 5 s and 8 s
>>> delays.figures()
{'emit_delay_ms': 3500.0, 'emit_delay_max_ms': 5000.0, 'emit_delay_results': 2}
>>> delays.observe([41])  # not epoch milliseconds: no delay
>>> delays.figures()["emit_delay_results"]
2
"""
from __future__ import annotations

import time
from collections import deque
from typing import Callable

RECENT_BATCHES = 64
"""Fired batches the figures cover: recent enough to follow a change, enough to smooth one odd batch."""

EPOCH_MS_FROM = 100_000_000_000
"""Below this an event time is a plain number (1973 in epoch milliseconds): it has no emit delay."""


def _wall_clock_ms() -> float:
    return time.time() * 1000.0


class EmitDelays:
    """The emit delays of an operator's recent results (see the module)."""

    __slots__ = ("_clock_ms", "_recent")

    def __init__(self, clock_ms: Callable[[], float] = _wall_clock_ms):
        self._clock_ms = clock_ms
        self._recent: deque = deque(maxlen=RECENT_BATCHES)  # (results, sum of delays, largest delay)

    def observe(self, stamps) -> None:
        """Results with event times ``stamps`` (each its window's ``end - 1``) are emitted now."""
        if not stamps:
            return
        earliest = min(stamps)
        if earliest < EPOCH_MS_FROM:
            return
        now = self._clock_ms()
        count = len(stamps)
        total = count * (now - 1) - sum(stamps)
        self._recent.append((count, max(0.0, total), max(0.0, now - 1 - earliest)))

    def figures(self) -> dict:
        """``emit_delay_ms`` (the mean over the recent results), ``emit_delay_max_ms`` (their largest),
        ``emit_delay_results`` (how many); empty before the first result with an epoch event time."""
        if not self._recent:
            return {}
        results = sum(entry[0] for entry in self._recent)
        return {"emit_delay_ms": round(sum(entry[1] for entry in self._recent) / results, 1),
                "emit_delay_max_ms": round(max(entry[2] for entry in self._recent), 1),
                "emit_delay_results": results}
