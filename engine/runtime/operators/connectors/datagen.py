"""``source.datagen``: the numbers start, start+1, ... split across subtasks.

Subtask i of p emits ``start + i, start + i + p, start + i + 2p, ...`` (below
``start + count`` when bounded; unbounded without a count), so the subtasks together emit
every number exactly once. A position is a split ``{"next": n, "step": s, "end": e | None}``:
the numbers n, n + s, ... below e. The splits are a union list state: on restore every
subtask sees all of them and takes its share (``deal_splits``), dividing splits where there
are fewer than subtasks, so that after a rescale from 1 to 2 both subtasks have numbers to
emit, and the total rate holds. A subtask holding several splits emits their numbers merged in
increasing order, so each subtask's numbers are increasing, as they are before any restore.
``rate`` (records per second over all subtasks) is enforced per subtask with a token count
since the subtask started; when no token is left the source waits on a timer instead of
sleeping, until ``PACED_POLL_S`` of its rate is due (at least one record): a source at 100
records/s polls 20 times a second, five records a poll, not a hundred times one record.

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
from engine.runtime.operators.restored_state import require, restored_dicts
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator


ARRAY_POLL_BATCHES = 16
"""A poll that emits an int64 array takes this many batches' numbers (unless buffer debloating
sizes the polls). numpy's fixed cost per operation, a few microseconds, is the columnar
path's cost per array: mapping, filtering and hash-splitting the benchmark job's numbers
took 43 ns a number over 4,096-number arrays against 61 over 1,024. And each buffer a part
becomes costs a frame, a credit and a thread switch between slot processes: on Spark at
parallelism 2 the job ran at 6.4-8.0M records/s with 16 batches per poll against 5.1-5.7M
with 4 (interleaved runs), the same at parallelism 1 within the noise."""

PACED_POLL_S = 0.05
"""How much of a paced source's rate one poll takes (at least one record, at most a batch). Each poll
is a timer's wake-up, a mail and a turn of the subtask's thread; at a record per poll a run at 100
records/s spent most of its slot's CPU (about 20 ms a second) on those turns, and a hundred such
runs in one session more than the machine's two cores. The records wait for their output
buffer's timeout (100 ms) after the poll anyway."""


class DatagenSource(SourceOperator):
    """Emits ranges of the sequence as batches; bounded by ``count``, paced by ``rate``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        self.count = params.get("count")
        self.start = int(params.get("start", 0))
        rate = float(params.get("rate") or 0)
        self.rate_per_subtask = rate / context.parallelism if rate > 0 else 0.0
        expression = params.get("expression")
        self.function = compile_expression_function(expression) if expression else None
        self.splits: list[dict] = []
        self.int_arrays = False
        """Emit batches as int64 arrays (the chain asked, ``emit_int_arrays``; numbers within ``LIMIT``)."""
        self._started = time.monotonic()
        self._emitted = 0
        self._state = None

    def initialize_state(self):
        operator_state = self.context.operator_state()
        self._state = operator_state.union_list_state("splits")
        if self.context.is_restored:
            pooled = self._restored(self._state.get())
            # a snapshot from before the splits were a union state: already dealt round robin
            dealt = operator_state.list_state("splits")
            self.splits = deal_splits(pooled, self.context.subtask_index, self.context.parallelism)
            self.splits += [split for split in self._restored(dealt.get()) if not _exhausted(split)]
            dealt.clear()
        else:
            self.splits = [split for split in [self._initial_split()] if not _exhausted(split)]

    def _restored(self, elements) -> list[dict]:
        splits = restored_dicts(self.node, self.context, "splits", elements)
        for split in splits:
            require(set(split) == {"next", "step", "end"} and type(split["next"]) is int
                    and type(split["step"]) is int and split["step"] >= 1
                    and (split["end"] is None or type(split["end"]) is int), self.node, self.context,
                    f"holds the split {split!r:.200}, which is not a range of numbers this source writes")
        return splits

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
            # (a millionth of a record: a timer due exactly at a poll's records finds them all due)
            allowed = int((time.monotonic() - self._started) * self.rate_per_subtask + 1e-6) - self._emitted
            wanted = min(wanted, allowed)
            if wanted <= 0:
                return []
        if len(self.splits) == 1:
            numbers = _take(self.splits[0], wanted)
        else:
            numbers = _take_in_order(self.splits, wanted)
        self.splits = [split for split in self.splits if not _exhausted(split)]
        self._emitted += len(numbers)
        function = self.function
        if function is not None:
            return [function(x) for x in (numbers if isinstance(numbers, range) else numbers.tolist())]
        if isinstance(numbers, range):
            if self.int_arrays and -LIMIT < numbers.start and numbers.stop < LIMIT:
                return np.arange(numbers.start, numbers.stop, numbers.step, dtype=np.int64)
            return list(numbers)
        if self.int_arrays and numbers.dtype == np.int64:
            return numbers
        return numbers.tolist()

    def emit_int_arrays(self) -> bool:
        self.int_arrays = self.function is None
        return self.int_arrays

    def next_poll_delay(self) -> float:
        if not self.rate_per_subtask:
            return 0.0
        records = max(1, min(self.batch_size, int(self.rate_per_subtask * PACED_POLL_S)))
        due = self._started + (self._emitted + records) / self.rate_per_subtask
        return max(0.0, due - time.monotonic())

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)


def deal_splits(splits: list[dict], index: int, parallelism: int) -> list[dict]:
    """Subtask ``index``'s share of ``splits`` (every subtask's, pooled in subtask order).

    Dealt round robin once each split is divided into as many pieces as it takes for the
    pieces to deal out evenly (a split into ``ways`` pieces of ``ways`` times its step), so
    every subtask gets as many: p=1 -> 2 gives each subtask every other number of the one
    split; p=2 -> 1 gives the one subtask both; p=2 -> 3 divides both splits in three, two
    pieces each. Every subtask computes the same division, so together they keep every
    number exactly once; the splits grow only to the least common multiple of the
    parallelisms a job went through."""
    live = [split for split in splits if not _exhausted(split)]
    if not live:
        return []
    ways = parallelism // math.gcd(len(live), parallelism)
    pieces = [{"next": split["next"] + part * split["step"], "step": split["step"] * ways, "end": split["end"]}
              for split in live for part in range(ways)]
    return [piece for piece in pieces[index::parallelism] if not _exhausted(piece)]


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


def _take_in_order(splits: list[dict], wanted: int) -> np.ndarray:
    """The ``wanted`` smallest numbers left in ``splits``, in increasing order, each split advanced past
    the ones it gave.

    A subtask holding several splits (after a restore at another parallelism) emits their numbers
    merged, not split by split in turns: its numbers stay increasing, as a subtask's always were, so
    event time derived from them never goes back behind the subtask's own watermark."""
    live = [split for split in splits if not _exhausted(split)]  # an ended split bounds nothing
    if not live:
        return np.empty(0, dtype=np.int64)
    bound = min(split["next"] + split["step"] * wanted for split in live)
    candidates = np.concatenate([
        np.arange(split["next"], bound if split["end"] is None else min(bound, split["end"]), split["step"],
                  dtype=np.int64 if -LIMIT < min(split["next"] for split in live) and bound < LIMIT else object)
        for split in live])
    candidates.sort()
    taken = candidates[:wanted]
    if len(taken):
        last = int(taken[-1])
        for split in splits:
            if split["next"] <= last:
                split["next"] += split["step"] * ((last - split["next"]) // split["step"] + 1)
    return taken


def _exhausted(split: dict) -> bool:
    return split["end"] is not None and split["next"] >= split["end"]


def total_emitted(count: int, parallelism: int, index: int) -> int:
    """How many numbers subtask ``index`` of ``parallelism`` emits in total (for tests)."""
    return max(0, math.ceil((count - index) / parallelism))
