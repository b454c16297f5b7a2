"""Deliberately slow operators, registered only in tests (``engine.api.register_operator``).

``transform.slow`` passes its records on unchanged, but takes ``delay_ms`` of wall time for
every batch first, as an operator calling a slow service would: its input queue fills, its
upstream is backpressured, and latency markers wait in front of it.

A pair that gives latency markers a delay of known length to measure:

- ``transform.batch_per_marker`` drops what its source sends and, whenever a latency marker
  passes it, emits one record stamped with the marker's emission time (``marked_ms``) just
  before the marker goes on: downstream, every marker travels right behind one record of
  its own moment.
- ``transform.hold`` passes each batch on once ``delay_ms`` have passed since the time its
  records carry in ``stamp_field`` (holding its subtask meanwhile, as a slow call would), and
  writes into each record when it let it go (``released_ms``). A marker behind such a record
  waits in the queue until then, however often markers come: each record's hold is counted
  from its own stamp, not from the previous one's release.
"""
from __future__ import annotations

import copy
import time

from engine.api import operator_spec, register_operator
from engine.runtime.operators.base import StreamOperator

SLOW = "transform.slow"
BATCH_PER_MARKER = "transform.batch_per_marker"
HOLD = "transform.hold"


class SlowOperator(StreamOperator):
    """Passes each batch on after ``delay_ms`` (the time a slow call would take)."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.delay_s = float(self.params.get("delay_ms", 0)) / 1000.0

    def process_batch(self, batch):
        time.sleep(self.delay_s)  # the work this operator stands for, not a wait for an outcome
        self.emit(batch)


class BatchPerMarker(StreamOperator):
    """Emits ``{"marked_ms", "marker"}`` ahead of every latency marker that passes; drops its input."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.markers = 0

    def process_batch(self, batch):
        pass  # the source only keeps the job running; the records that matter are made below

    def latency_marker_reached(self, source: str, marked_ms: float) -> None:
        # called before the chain sends the marker on: this record is ahead of it in the channel
        self.markers += 1
        self.emit([{"marked_ms": marked_ms, "marker": self.markers}])


class HoldOperator(StreamOperator):
    """Passes each batch on ``delay_ms`` after its records' ``stamp_field``, adding ``released_ms``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.delay_ms = float(self.params.get("delay_ms", 0))
        self.stamp_field = self.params.get("stamp_field", "marked_ms")

    def process_batch(self, batch):
        until_ms = max(record[self.stamp_field] for record in batch) + self.delay_ms
        wait_ms = until_ms - time.time() * 1000.0
        if wait_ms > 0:
            time.sleep(wait_ms / 1000.0)  # the work this operator stands for: it ends delay_ms after the stamp
        released_ms = time.time() * 1000.0
        self.emit([{**record, "released_ms": released_ms} for record in batch])


def _register(type_: str, title: str, description: str, properties: dict, factory: str) -> str:
    spec = copy.deepcopy(operator_spec("transform.map"))
    spec.update(type=type_, title=title, description=description,
                params_schema={"type": "object", "properties": properties, "additionalProperties": False})
    spec.pop("plugin", None)
    register_operator(spec, f"{__name__}:{factory}")
    return type_


DELAY = {"type": "number", "minimum": 0, "maximum": 60_000}


def register_slow_operator() -> str:
    """Register ``transform.slow`` in this process (and, through the jobs using it, in their slots)."""
    return _register(SLOW, "Slow pass-through (test only)", "Passes records on, taking delay_ms per batch.",
                     {"delay_ms": DELAY}, "SlowOperator")


def register_marker_delay_operators() -> tuple[str, str]:
    """Register ``transform.batch_per_marker`` and ``transform.hold``; their types."""
    return (_register(BATCH_PER_MARKER, "One record per latency marker (test only)",
                      "Emits a record stamped with each latency marker's time, ahead of the marker.", {},
                      "BatchPerMarker"),
            _register(HOLD, "Hold until a time after the stamp (test only)",
                      "Passes each batch on delay_ms after the time its records carry.",
                      {"delay_ms": DELAY, "stamp_field": {"type": "string", "minLength": 1}}, "HoldOperator"))
