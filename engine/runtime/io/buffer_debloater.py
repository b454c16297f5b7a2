"""Buffer debloating: size in-flight buffers by throughput, so barriers are not stuck behind them.

Under backpressure every channel is full: ``capacity`` buffers of up to ``batch_size``
records wait in front of the slow subtask. A checkpoint barrier queues behind all of
them, so aligning it takes as long as the subtask needs to work through that backlog --
seconds or minutes when the subtask is slow, which is how checkpoints time out exactly
when a job is under stress (seed 002, "Buffer Debloating"). Debloating keeps the backlog
at about ``target_ms`` worth of work instead:

1. the *receiving* subtask measures its throughput every ``period_ms``: records taken
   from its input per millisecond it was not idle (time spent waiting for input does not
   count; time spent backpressured by its own output does, it cannot take more then);
2. it wants ``throughput * target_ms`` records in flight in total, that is
   ``throughput * target_ms / (channels * capacity)`` records per buffer;
3. that size is smoothed with an exponential moving average over about ``samples``
   periods, bounded to ``[min_buffer_records, max_buffer_records]``, and announced to the
   producers only when it moved by at least ``threshold_percent`` since the last
   announcement (an announcement costs a message per channel);
4. producers then cut what they send into buffers of at most the announced size, and
   sources poll no more than their channels' buffers hold, so one step of output stays
   small too (``RecordWriter``, ``SourceOperator.batch_size``).

The knobs are the pipeline definition's ``"debloat"`` object (off unless ``enabled``)::

    "debloat": {"enabled": true, "target_ms": 1000, "period_ms": 100, "samples": 10,
                "min_buffer_records": 8, "max_buffer_records": <batch size>,
                "threshold_percent": 25}

Threading model: one debloater per subtask, used by its mailbox thread (a timer mail).
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULTS = {"enabled": False, "target_ms": 1000, "period_ms": 100, "samples": 10, "min_buffer_records": 8,
            "threshold_percent": 25}


@dataclass(frozen=True)
class DebloatSettings:
    """The ``"debloat"`` section of a definition, with defaults."""

    enabled: bool
    target_ms: float
    period_ms: float
    samples: int
    min_buffer_records: int
    max_buffer_records: int
    threshold_percent: float

    @classmethod
    def from_config(cls, section: dict | None, batch_size: int) -> "DebloatSettings":
        values = {**DEFAULTS, "max_buffer_records": batch_size, **(section or {})}
        minimum = max(1, int(values["min_buffer_records"]))
        return cls(enabled=bool(values["enabled"]), target_ms=max(1.0, float(values["target_ms"])),
                   period_ms=max(10.0, float(values["period_ms"])), samples=max(1, int(values["samples"])),
                   min_buffer_records=minimum,
                   max_buffer_records=max(minimum, int(values["max_buffer_records"])),
                   threshold_percent=max(0.0, float(values["threshold_percent"])))


class BufferDebloater:
    """Turns throughput samples of one subtask into the buffer size its producers should use."""

    def __init__(self, settings: DebloatSettings, number_of_channels: int, capacity: int):
        self.settings = settings
        self.buffers_in_flight = max(1, number_of_channels * capacity)
        self._alpha = 2.0 / (settings.samples + 1)
        self.buffer_size = float(settings.max_buffer_records)
        """The smoothed size (records per buffer)."""
        self.announced: int | None = None
        """The size last announced to the producers (None: none yet, producers send whole batches)."""
        self.throughput = 0.0
        """The latest measured throughput, records per millisecond of non-idle time."""

    def on_sample(self, records: int, busy_ms: float) -> int | None:
        """Take one period's measurement; return a new size to announce, or None to keep the old one."""
        if busy_ms <= 0.5:
            return None  # idle the whole period: nothing to learn about how fast it can go
        settings = self.settings
        self.throughput = records / busy_ms
        desired = self.throughput * settings.target_ms / self.buffers_in_flight
        desired = min(settings.max_buffer_records, max(settings.min_buffer_records, desired))
        self.buffer_size += self._alpha * (desired - self.buffer_size)
        size = int(round(min(settings.max_buffer_records, max(settings.min_buffer_records, self.buffer_size))))
        reference = self.announced if self.announced is not None else settings.max_buffer_records
        if abs(size - reference) * 100.0 < settings.threshold_percent * reference:
            return None
        self.announced = size
        return size
