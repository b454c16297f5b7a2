"""What a rollup keeps of a figure of many checkpoints (a duration, a size): enough for the summary.

A :class:`Figure` holds the count, sum, min and max of the values it saw, exactly, and a
sketch of their distribution: the count of values per logarithmic bucket, each bucket
``(γ^(i-1), γ^i]`` with ``γ = (1 + a) / (1 - a)`` and ``a = RELATIVE_ACCURACY`` (values ≤ 0,
which durations and sizes are not but for zero, share the bucket ``"0"``). Figures merge by
adding their parts, so a minute's rollups add up to the hour's and the hours to the run's,
and the nearest-rank percentile read from the merged sketch is the one of the bucket that
holds the exact nearest-rank value: it is within ``a`` of that value (relative), and
clamped to the exact min and max. Count, sum (so the average), min and max are exact.

>>> figure = Figure.of([40, 41, 42, 1000])
>>> figure.statistics()["min"], figure.statistics()["max"], figure.statistics()["avg"]
(40, 1000, 280.75)
>>> abs(figure.percentile(50) - 41) <= 41 * RELATIVE_ACCURACY
True
>>> Figure.from_json(Figure.of([1, 2]).merge(Figure.of([3])).to_json()).count
3
>>> round(Figure.of([0, 0, 1]).percentile(90), 2), Figure.of([0, 0, 1]).percentile(50)  # 1 is not 0
(0.99, 0)
"""
from __future__ import annotations

import math
from typing import Iterable

RELATIVE_ACCURACY = 0.01
"""The largest relative error of a percentile read from a sketch."""
_GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY)
_LOG_GAMMA = math.log(_GAMMA)
ZERO = "0"
"""The bucket of the values ≤ 0."""
INDEX_ZERO = "+0"
"""The bucket of index 0, the values in ``(1/γ, 1]``: ``str(0)`` would be :data:`ZERO`'s key, and a duration of
1 ms or a size of 1 byte was read back as 0. Rollups written before kept those in ``"0"``, read as 0 still."""


def bucket_of(value: float) -> str:
    """The sketch bucket of ``value``: :data:`ZERO` for values ≤ 0, else the index ``ceil(log_γ value)``
    (``"+0"`` for index 0)."""
    if value <= 0:
        return ZERO
    index = math.ceil(math.log(value) / _LOG_GAMMA)
    return INDEX_ZERO if index == 0 else str(index)


def _index(key: str) -> float:
    return -math.inf if key == ZERO else int(key)


def representative(key: str) -> float:
    """The value a bucket stands for: within ``RELATIVE_ACCURACY`` of every value in it."""
    if key == ZERO:
        return 0
    return 2 * _GAMMA ** int(key) / (_GAMMA + 1)


class Figure:
    """Count, sum, min, max and the sketch of one figure's values (see the module doc)."""

    __slots__ = ("count", "sum", "min", "max", "sketch")

    def __init__(self, count: int = 0, total: float = 0, minimum=None, maximum=None, sketch: dict | None = None):
        self.count = count
        self.sum = total
        self.min = minimum
        self.max = maximum
        self.sketch: dict[str, int] = dict(sketch or {})

    @classmethod
    def of(cls, values: Iterable[float | None]) -> "Figure":
        """The figure of the values that are not None."""
        figure = cls()
        for value in values:
            figure.add(value)
        return figure

    def add(self, value: float | None) -> None:
        if value is None:
            return
        self.count += 1
        self.sum += value
        self.min = value if self.min is None or value < self.min else self.min
        self.max = value if self.max is None or value > self.max else self.max
        key = bucket_of(value)
        self.sketch[key] = self.sketch.get(key, 0) + 1

    def merge(self, other: "Figure") -> "Figure":
        """Add ``other`` into this figure; return it."""
        if not other.count:
            return self
        self.count += other.count
        self.sum += other.sum
        self.min = other.min if self.min is None or other.min < self.min else self.min
        self.max = other.max if self.max is None or other.max > self.max else self.max
        for key, count in other.sketch.items():
            self.sketch[key] = self.sketch.get(key, 0) + count
        return self

    def percentile(self, percent: float):
        """The nearest-rank percentile, from the sketch (None without values)."""
        if not self.count:
            return None
        rank = max(1, math.ceil(percent / 100 * self.count))
        seen = 0
        for key in sorted(self.sketch, key=_index):
            seen += self.sketch[key]
            if seen >= rank:
                return min(self.max, max(self.min, representative(key)))
        return self.max

    def statistics(self) -> dict:
        """The summary's shape (``studio.runs.checkpoint_stats.statistics``): min, max, avg, p50, p90, p99."""
        if not self.count:
            return {"min": None, "max": None, "avg": None, "p50": None, "p90": None, "p99": None}
        return {"min": self.min, "max": self.max, "avg": self.sum / self.count,
                "p50": self.percentile(50), "p90": self.percentile(90), "p99": self.percentile(99)}

    def to_json(self) -> dict:
        return {"count": self.count, "sum": self.sum, "min": self.min, "max": self.max, "sketch": self.sketch}

    @classmethod
    def from_json(cls, data: dict | None) -> "Figure":
        data = data or {}
        return cls(int(data.get("count") or 0), data.get("sum") or 0, data.get("min"), data.get("max"),
                   data.get("sketch"))


def figures_from_json(data: dict | None, names: Iterable[str]) -> dict[str, Figure]:
    return {name: Figure.from_json((data or {}).get(name)) for name in names}


def figures_to_json(figures: dict[str, Figure]) -> dict:
    return {name: figure.to_json() for name, figure in figures.items()}
