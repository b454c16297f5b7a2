"""Opening and closing a tap in the run's driver (through the run's command list), and its channel group."""
from __future__ import annotations

import logging

from django.utils import timezone

from studio.fanout import broadcast
from studio.runs.commands import send_command
from studio.taps.models import Tap

logger = logging.getLogger(__name__)


def tap_group(tap_id: str) -> str:
    return f"tap-{tap_id}"


def open_in_driver(tap: Tap) -> None:
    """The socket is there: the driver starts sampling. Raises ``redis.RedisError`` when Redis cannot take it."""
    send_command(tap.run, {"command": "tap_open", "tap_id": tap.tap_id, "edge": tap.edge, "limits": tap.limits})
    Tap.objects.filter(pk=tap.pk, opened_at=None).update(opened_at=timezone.now())


def close(tap: Tap) -> bool:
    """Close the tap for good (idempotent): the driver stops sampling, its socket is told. True if it was open."""
    if not Tap.objects.filter(pk=tap.pk, closed_at=None).update(closed_at=timezone.now()):
        return False
    if tap.opened_at is not None or Tap.objects.filter(pk=tap.pk).exclude(opened_at=None).exists():
        try:
            send_command(tap.run, {"command": "tap_close", "tap_id": tap.tap_id})
        except Exception:  # the driver ends the tap with the run anyway; its samples find no group
            logger.warning("could not tell run %s's driver to close tap %s", tap.run_id, tap.tap_id, exc_info=True)
    broadcast(tap_group(tap.tap_id), {"type": "tap.closed"})
    return True
