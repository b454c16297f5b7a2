"""The driver's side of taps: each sample the engine delivers goes to its tap's channel group.

The engine calls the sink on its tap-delivery thread, never on a thread the job waits for
(``engine.cluster.taps``), so sending here may take as long as Redis takes.
"""
from __future__ import annotations

from studio.fanout import broadcast
from studio.taps.control import tap_group


def relay_sample(sample: dict) -> None:
    broadcast(tap_group(sample["tap"]), {"type": "tap.records", "sample": sample})
