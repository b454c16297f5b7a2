"""Helpers of the life-cycle tests: pipelines, committed output, kill plans."""
from __future__ import annotations

import json
import random
import threading
from collections import Counter
from pathlib import Path

from engine.testing.records import final_per_key  # noqa: F401 - streaming's last record per key: batch mode's
from tests.builders import edge, node, pipeline


def keyed_count(sink_dir: Path, *, count: int | None, rate: float = 0, parallelism: int = 2, **extra) -> dict:
    """datagen -> hash(x % 7) -> running count -> two-phase-commit file sink."""
    return pipeline([node("gen", "source.datagen", count=count, rate=rate),
                     node("count", "aggregate.reduce", function="count"),
                     node("sink", "sink.file", path=str(sink_dir))],
                    [edge("gen", "count", "hash", "x % 7"), edge("count", "sink")], parallelism=parallelism, **extra)


def committed(sink_dir: Path) -> list:
    """The records of every committed part file of a file sink (in-progress files are hidden)."""
    return [json.loads(line) for path in sorted(Path(sink_dir).glob("part-*.jsonl"))
            for line in path.read_text().splitlines() if line]


def as_counter(records) -> Counter:
    return Counter(json.dumps(record, sort_keys=True) for record in records)


def expected_counts(count: int, keys: int = 7) -> Counter:
    """The running counts of ``x % keys`` over 0..count-1, as [key, n] records."""
    seen: dict[int, int] = {}
    records = []
    for x in range(count):
        seen[x % keys] = seen.get(x % keys, 0) + 1
        records.append([x % keys, seen[x % keys]])
    return as_counter(records)


class KillOnce:
    """A kill hook that kills the first call matching ``point``, ``task`` and ``condition(info)``."""

    def __init__(self, point: str, task: tuple, condition=None):
        self.point, self.task, self.condition = point, task, condition
        self.fired: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, point: str, task: tuple, info: dict) -> bool:
        with self._lock:
            if self.fired or point != self.point or tuple(task) != self.task:
                return False
            if self.condition is not None and not self.condition(info):
                return False
            self.fired.append(dict(info))
            return True


class KillSeries:
    """Kills at ``kills`` random points, one after another (a thread-safe kill hook): ``arm(rng)`` picks the next
    :class:`KillOnce`; each armed kill lets 0-3 matching calls pass before it fires."""

    def __init__(self, seed: int, kills: int, arm):
        self.random = random.Random(seed)
        self.kills = kills
        self.fired: list[tuple] = []
        self._choose = arm
        self._lock = threading.Lock()
        self._arm()

    def _arm(self) -> None:
        self._next = self._choose(self.random)
        self._skip = self.random.randrange(0, 4)

    def __call__(self, point: str, task: tuple, info: dict) -> bool:
        with self._lock:
            if len(self.fired) >= self.kills or not self._next(point, task, info):
                return False
            if self._skip > 0:  # let this matching call pass; a later one fires
                self._skip -= 1
                self._next.fired.clear()
                return False
            self.fired.append((point, task, info.get("checkpoint_id")))
            self._arm()
            return True


def checkpoint_events(events: list[dict], event: str = "completed") -> list[dict]:
    return [e for e in events if e.get("type") == "checkpoint" and e.get("event") == event]


class Recorder:
    """Operator type ``test.recorder``: passes records on and logs every life-cycle call.

    Registered by the ``recorder`` fixture of ``test_task_end_of_data``; ``log`` is shared
    by all instances so a test can read it after the run.
    """

    log: list[tuple] = []

    def __new__(cls, node, context):
        from engine.runtime.operators.base import StreamOperator

        class _Recorder(StreamOperator):
            def initialize_state(self):
                Recorder.log.append(("initialize_state", self.context.subtask_index))

            def open(self):
                Recorder.log.append(("open", self.context.subtask_index))

            def process_batch(self, batch):
                Recorder.log.append(("process", list(batch)))
                self.emit(batch)

            def snapshot_state(self, checkpoint_id):
                Recorder.log.append(("snapshot", checkpoint_id))

            def finish(self):
                Recorder.log.append(("finish",))

            def close(self):
                Recorder.log.append(("close",))

        return _Recorder(node, context)
