"""The driver's side of taps: the driver opens and closes a tap on its job when told to
(``tap_open`` / ``tap_close``, commands this app registers with the run's driver), and each
sample the engine delivers goes to its tap's channel group.

The engine calls the sink on its tap-delivery thread, never on a thread the job waits for
(``engine.cluster.taps``), so sending here may take as long as Redis takes.
"""
from __future__ import annotations

import logging

from studio.fanout import broadcast
from studio.taps.control import tap_group

logger = logging.getLogger(__name__)


def relay_sample(sample: dict) -> None:
    broadcast(tap_group(sample["tap"]), {"type": "tap.records", "sample": sample})


def open_tap(command: dict, run_id: int, job_master) -> None:
    """``tap_open``: sample the command's edge within its limits, into the tap's channel group."""
    from engine.api import TapError  # here: every process registers these commands at start-up

    try:
        job_master.open_tap(command["edge"], relay_sample, command.get("limits"), tap_id=command["tap_id"])
    except TapError as error:
        logger.warning("run %s: tap %s not opened: %s", run_id, command["tap_id"], error)


def close_tap(command: dict, run_id: int, job_master) -> None:
    """``tap_close``: stop sampling."""
    job_master.close_tap(command["tap_id"])
