"""``source.datagen``: the numbers start, start+1, ... split across subtasks.

Subtask i of p emits ``start + i, start + i + p, start + i + 2p, ...`` (below
``start + count`` when bounded), so the subtasks together emit every number exactly once
and each subtask's numbers are increasing. The position is one split
``{"next": n, "step": p, "end": e | None}`` in operator list state; after a restore at
another parallelism the splits are dealt out again and a subtask may serve several,
taking turns. ``rate`` (records per second over all subtasks) is enforced per subtask
with a token count since the subtask started; when no token is left the source waits for
the next one on a timer instead of sleeping.

Without an ``expression`` the records are the numbers themselves; when the operators
chained after it take columnar batches, the chain asks for them as int64 arrays
(``emit_int_arrays``, ``engine.runtime.columnar``).
"""
from __future__ import annotations

import math
import time

import numpy as np

from engine.runtime.columnar import LIMIT
from engine.runtime.operators.base import compile_expression_function
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator


ARRAY_POLL_BATCHES = 16
"""A poll that emits an int64 array takes this many batches' numbers (unless buffer debloating
sizes the polls). numpy's fixed cost per operation, a few microseconds, is the columnar
path's cost per array: mapping, filtering and hash-splitting the benchmark job's numbers
took 43 ns a number over 4,096-number arrays against 61 over 1,024. And each buffer a part
becomes costs a frame, a credit and a thread switch between slot processes: on Spark at
parallelism 2 the job ran at 6.4-8.0M records/s with 16 batches per poll against 5.1-5.7M
with 4 (interleaved runs), the same at parallelism 1 within the noise."""


class DatagenSource(SourceOperator):
    """Emits ranges of the sequence as batches; bounded by ``count``, paced by ``rate``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        self.count = params.get("count", 1000)
        self.start = int(params.get("start", 0))
        rate = float(params.get("rate") or 0)
        self.rate_per_subtask = rate / context.parallelism if rate > 0 else 0.0
        expression = params.get("expression")
        self.function = compile_expression_function(expression) if expression else None
        self.splits: list[dict] = []
        self.int_arrays = False
        """Emit batches as int64 arrays (the chain asked, ``emit_int_arrays``; numbers within ``LIMIT``)."""
        self._turn = 0
        self._started = time.monotonic()
        self._emitted = 0
        self._state = None

    def initialize_state(self):
        self._state = self.context.operator_state().list_state("splits")
        if self.context.is_restored:
            self.splits = [dict(split) for split in self._state.get()]
        else:
            self.splits = [self._initial_split()]
        self.splits = [split for split in self.splits if not _exhausted(split)]

    def _initial_split(self) -> dict:
        p, i = self.context.parallelism, self.context.subtask_index
        end = None if self.count is None else self.start + int(self.count)
        return {"next": self.start + i, "step": p, "end": end}

    def open(self):
        self._started = time.monotonic()
        self._emitted = 0

    def poll_next(self):
        if not self.splits:
            return END_OF_INPUT
        wanted = self.batch_size
        if self.int_arrays and self.context.poll_budget is None:
            wanted *= ARRAY_POLL_BATCHES
        if self.rate_per_subtask:
            allowed = int((time.monotonic() - self._started) * self.rate_per_subtask) - self._emitted
            wanted = min(wanted, allowed)
            if wanted <= 0:
                return []
        self._turn %= len(self.splits)
        split = self.splits[self._turn]
        numbers = _take(split, wanted)
        if _exhausted(split):
            del self.splits[self._turn]
        else:
            self._turn += 1
        self._emitted += len(numbers)
        function = self.function
        if function is not None:
            return [function(x) for x in numbers]
        if self.int_arrays and -LIMIT < numbers.start and numbers.stop < LIMIT:
            return np.arange(numbers.start, numbers.stop, numbers.step, dtype=np.int64)
        return list(numbers)

    def emit_int_arrays(self) -> bool:
        self.int_arrays = self.function is None
        return self.int_arrays

    def next_poll_delay(self) -> float:
        if not self.rate_per_subtask:
            return 0.0
        due = self._started + (self._emitted + 1) / self.rate_per_subtask
        return max(0.0, due - time.monotonic())

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)


def _take(split: dict, wanted: int) -> range:
    step = split["step"]
    first = split["next"]
    stop = first + step * wanted
    end = split["end"]
    if end is not None and stop > end:
        stop = end
    numbers = range(first, stop, step)
    split["next"] = first + step * len(numbers)
    return numbers


def _exhausted(split: dict) -> bool:
    return split["end"] is not None and split["next"] >= split["end"]


def total_emitted(count: int, parallelism: int, index: int) -> int:
    """How many numbers subtask ``index`` of ``parallelism`` emits in total (for tests)."""
    return max(0, math.ceil((count - index) / parallelism))
