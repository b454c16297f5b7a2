"""A deliberately slow operator, registered only in tests (``engine.api.register_operator``).

``transform.slow`` passes its records on unchanged, but takes ``delay_ms`` of wall time for
every batch first, as an operator calling a slow service would: its input queue fills, its
upstream is backpressured, and latency markers wait in front of it.
"""
from __future__ import annotations

import copy
import time

from engine.api import operator_spec, register_operator
from engine.runtime.operators.base import StreamOperator

SLOW = "transform.slow"


class SlowOperator(StreamOperator):
    """Passes each batch on after ``delay_ms`` (the time a slow call would take)."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.delay_s = float(self.params.get("delay_ms", 0)) / 1000.0

    def process_batch(self, batch):
        time.sleep(self.delay_s)  # the work this operator stands for, not a wait for an outcome
        self.emit(batch)


def register_slow_operator() -> str:
    """Register ``transform.slow`` in this process (and, through the jobs using it, in their slots)."""
    spec = copy.deepcopy(operator_spec("transform.map"))
    spec.update(type=SLOW, title="Slow pass-through (test only)",
                description="Passes records on, taking delay_ms per batch.",
                params_schema={"type": "object", "properties": {"delay_ms": {"type": "number", "minimum": 0, "maximum": 60_000}},
                               "additionalProperties": False})
    spec.pop("plugin", None)
    register_operator(spec, f"{__name__}:SlowOperator")
    return SLOW
