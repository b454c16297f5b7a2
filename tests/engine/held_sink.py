"""A sink that a test holds back and lets go, registered only in tests (``engine.api.register_operator``).

``sink.held`` is ``sink.collect`` whose ``process_batch`` waits while its ``gate`` file exists:
the test creates the file to hold the sink, and deletes it to let the records through. A file,
not an event, so that it holds the sink in a Spark executor as in this process. The waiting
blocks the sink's subtask as a slow database would; backpressure then stops its sources.
"""
from __future__ import annotations

import copy
import os
import time

from engine.api import operator_spec, register_operator
from engine.runtime.operators.connectors.collect_sink import CollectSink

HELD = "sink.held"
GATE_POLL_S = 0.005


class HeldSink(CollectSink):
    """``sink.collect``, held while ``params.gate`` exists."""

    def process_batch(self, batch):
        while os.path.exists(self.params["gate"]):
            time.sleep(GATE_POLL_S)  # holding the subtask is the point
        super().process_batch(batch)


def register_held_sink() -> str:
    """Register ``sink.held`` in this process (and, through the jobs using it, in their slots)."""
    spec = copy.deepcopy(operator_spec("sink.collect"))
    spec.update(type=HELD, title="Held sink (test only)", description="sink.collect, held while a file exists.")
    spec["params_schema"]["properties"]["gate"] = {"type": "string", "minLength": 1}
    spec["params_schema"]["required"] = ["gate"]
    spec.pop("plugin", None)
    register_operator(spec, f"{__name__}:HeldSink")
    return HELD
