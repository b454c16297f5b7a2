"""Live taps: a sample of the records an operator emits (every edge leaving it carries exactly these),
sent to the JobMaster without ever slowing the job.

Costs
    Every operator output that feeds something has a :class:`TapPoint`; with no tap open
    its cost is one attribute check per *batch* (``tap_point.open``). With taps open,
    :meth:`TapPoint.offer` takes at most the sampler's per-second budget of records from a
    batch (evenly spread), encodes each as JSON text cut to ``max_record_bytes``, and
    hands the sample to the slot's :class:`TapSender` without waiting: a full queue drops
    the sample (counted in the next one's ``dropped``). Nothing here blocks or allocates
    per record of the batch beyond the sampled ones.

Threading model
    A tap point and its samplers belong to the subtask's mailbox thread: taps are opened
    and closed by mails (``StreamTask.open_tap``/``close_tap``). The sender's thread is the
    only one that calls the gateway's ``report_tap``.
"""
from __future__ import annotations

import json
import logging
import queue
import threading
import time
from dataclasses import dataclass

import numpy as np

from engine.runtime.json_fields import FieldBatch

logger = logging.getLogger(__name__)

SENDER_QUEUE_SAMPLES = 64


@dataclass(frozen=True)
class TapLimits:
    """Per subtask: records a second, bytes a second, bytes of one record's JSON text (cut beyond)."""

    records_per_second: int = 20
    bytes_per_second: int = 32 * 1024
    max_record_bytes: int = 1024

    @classmethod
    def from_dict(cls, values: dict | None) -> "TapLimits":
        values = values or {}
        return cls(**{name: max(1, int(values[name])) for name in cls.__dataclass_fields__ if values.get(name)})

    def as_dict(self) -> dict:
        return {"records_per_second": self.records_per_second, "bytes_per_second": self.bytes_per_second,
                "max_record_bytes": self.max_record_bytes}


class TapSampler:
    """One open tap's budget on one operator output: a window of one second of records and bytes."""

    def __init__(self, tap_id: str, limits: TapLimits):
        self.tap_id = tap_id
        self.limits = limits
        self._window_start: float | None = None
        self._records = 0
        self._bytes = 0
        self.dropped = 0
        """Records not sampled for want of budget or room since the last sample went out."""

    def sample(self, batch, now: float) -> list[list] | None:
        """Up to the remaining budget of ``batch``'s records as ``[json_text, truncated]``, or None."""
        if self._window_start is None or now - self._window_start >= 1.0:
            self._window_start, self._records, self._bytes = now, 0, 0
        budget = min(self.limits.records_per_second - self._records, len(batch))
        if budget <= 0 or self._bytes >= self.limits.bytes_per_second:
            self.dropped += len(batch)
            return None
        step = len(batch) / budget
        sampled = []
        for position in range(budget):
            text = _encode(batch[int(position * step)])
            cut = len(text) > self.limits.max_record_bytes
            if cut:
                text = text[:self.limits.max_record_bytes]
            if self._bytes + len(text) > self.limits.bytes_per_second:
                break
            self._bytes += len(text)
            sampled.append([text, cut])
        self._records += len(sampled)
        self.dropped += len(batch) - len(sampled)
        return sampled or None


def _encode(record) -> str:
    """JSON text of a record, ASCII only (so characters are bytes); what JSON cannot say, as its repr."""
    try:
        return json.dumps(record, default=repr, separators=(",", ":"))
    except (TypeError, ValueError):
        return json.dumps(repr(record))


class TapPoint:
    """The taps open on one operator's output in one subtask. Mailbox thread only."""

    __slots__ = ("node_id", "task", "open", "_samplers", "_sender")

    def __init__(self, node_id: str, task: tuple[str, int], sender: "TapSender | None"):
        self.node_id = node_id
        self.task = task
        self.open = False
        """Whether any tap is open here: the one check the emitting path makes per batch."""
        self._samplers: dict[str, TapSampler] = {}
        self._sender = sender

    def add(self, tap_id: str, limits: TapLimits) -> None:
        if self._sender is None:
            return  # a subtask without a sender (tests building tasks by hand) has nowhere to send to
        self._samplers[tap_id] = TapSampler(tap_id, limits)
        self.open = True

    def remove(self, tap_id: str) -> None:
        self._samplers.pop(tap_id, None)
        self.open = bool(self._samplers)

    def offer(self, batch) -> None:
        """Sample ``batch`` for every open tap and hand the samples over; never blocks."""
        if type(batch) is np.ndarray:  # a columnar batch (engine.runtime.columnar): its records as Python ints
            batch = batch.tolist()
        elif type(batch) is FieldBatch:  # projected JSON records in fields (engine.runtime.json_fields)
            batch = batch.records()
        now = time.monotonic()
        stamp = time.time() * 1000.0
        for sampler in self._samplers.values():
            records = sampler.sample(batch, now)
            if records is not None and self._sender.offer(sampler.tap_id, self.task, records, sampler.dropped, stamp):
                sampler.dropped = 0


def tapped(emit, point: TapPoint):
    """``emit`` with ``point`` looking at each batch first (when a tap is open)."""
    def emit_and_tap(batch) -> None:
        if point.open:
            point.offer(batch)
        emit(batch)

    return emit_and_tap


class TapSender:
    """A slot's samples on their way to the JobMaster: a bounded queue and one thread, started with the
    first sample. ``offer`` never waits: when the queue is full the sample is dropped."""

    def __init__(self, gateway):
        self._gateway = gateway
        self._queue: queue.Queue = queue.Queue(maxsize=SENDER_QUEUE_SAMPLES)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # guards: self._thread
        self._stopped = threading.Event()

    def offer(self, tap_id: str, task, records: list, dropped: int, stamp_ms: float) -> bool:
        self._ensure_thread()
        try:
            self._queue.put_nowait((tap_id, list(task), records, dropped, stamp_ms))
            return True
        except queue.Full:
            return False

    def stop(self) -> None:
        self._stopped.set()

    def _ensure_thread(self) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="tap-sender", daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                first = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            for (tap_id, task), sample in self._merge_queued(first).items():
                try:
                    self._gateway.report_tap(tap_id, list(task), sample)
                except Exception:
                    logger.warning("could not send a sample of tap %s", tap_id, exc_info=True)

    def _merge_queued(self, first) -> dict:
        """``first`` and every sample already queued, one per tap and subtask (the oldest time kept):
        one message for what piled up while the last one was sent."""
        merged: dict = {}
        item = first
        while item is not None:
            tap_id, task, records, dropped, stamp_ms = item
            current = merged.setdefault((tap_id, tuple(task)), {"records": [], "dropped": 0, "ts": stamp_ms})
            current["records"].extend(records)
            current["dropped"] += dropped
            current["ts"] = min(current["ts"], stamp_ms)
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                item = None
        return merged
