"""The cyclic garbage collector, tuned for batches while subtasks run.

CPython's collector runs a young-generation pass whenever the tracked objects allocated
minus those freed exceed 700 (``gc.get_threshold()[0]``). A subtask builds one container
per output record of many operators (``[key, aggregate]`` pairs, tuples, dicts) and keeps
a whole batch of them alive until the batch is passed on, so a batch of about a thousand
records crosses that line on every batch: each pass walks the batch, promotes it to an
older generation, and every few hundred batches a full collection walks the whole heap.
Measured on the benchmark job at parallelism 2 with 1024-record batches reaching its
keyed sum, that took 20% of the run (~1,000 young, ~90 middle and 8 full collections per
2M records), while the records themselves are freed by reference counting and never
need the collector. So while any subtask runs in a process, the young generation's
threshold is raised to ``YOUNG_THRESHOLD`` (a few dozen batches): the collector still
runs, reclaims cycles and bounds their memory, but about once per few dozen batches
instead of once per batch. When the last subtask of the process ends, the thresholds
the process had are put back (a Spark Python worker is reused by other jobs; an
in-process cluster runs inside someone else's program).

Threading model: any thread; a lock guards the count of running subtasks.
"""
from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

YOUNG_THRESHOLD = 50_000
"""Net allocations of tracked objects between two young-generation collections while subtasks run."""

_lock = threading.Lock()
_running = 0  # guarded by: _lock
_saved_thresholds: tuple[int, ...] | None = None  # guarded by: _lock


@contextlib.contextmanager
def collector_tuned_for_batches() -> Iterator[None]:
    """Raise the young generation's threshold while the ``with`` body (a subtask) runs."""
    global _running, _saved_thresholds
    with _lock:
        if _running == 0:
            _saved_thresholds = gc.get_threshold()
            young, *older = _saved_thresholds
            gc.set_threshold(max(young, YOUNG_THRESHOLD), *older)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _saved_thresholds is not None:
                gc.set_threshold(*_saved_thresholds)
                _saved_thresholds = None
