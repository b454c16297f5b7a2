"""Fan-out of stored events to channel-layer groups, from synchronous code.

``async_to_sync(layer.group_send)`` would start a fresh event loop (and with it a fresh
Redis connection) for every event; a driver publishing dozens of events per second pays
for that in latency. Instead one daemon thread per process owns an event loop that lives
as long as the process, and ``broadcast`` hands it each message and waits for the send,
so messages leave in the order they were stored.

Threading model: ``broadcast`` may be called from any thread that is not the fan-out
thread itself; the loop and the layer's connections belong to the fan-out thread.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from channels.layers import get_channel_layer

from studio.secret_masking import masked

logger = logging.getLogger(__name__)

SEND_TIMEOUT_S = 5.0


class _FanoutLoop:
    """A background event loop, started on first use (so forking before that is safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None  # guarded by: self._lock

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="event-fanout", daemon=True).start()
                self._loop = loop
            return self._loop


_fanout = _FanoutLoop()


def broadcast(group: str, message: dict[str, Any]) -> bool:
    """Send ``message`` to ``group``; False (and a warning) when the channel layer is unreachable.

    The caller has stored whatever the message carries: a failed broadcast loses nothing,
    clients catch up from the database when they reconnect.
    """
    layer = get_channel_layer()
    if layer is None:
        return False
    message = masked(message)  # a run's secrets never leave its driver, a tap's samples included
    future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), _fanout.loop())
    try:
        future.result(SEND_TIMEOUT_S)
        return True
    except Exception as error:  # Redis down or slow: the event is stored already
        future.cancel()
        logger.warning("could not broadcast to %s: %s", group, error or type(error).__name__)
        return False


def broadcast_many(messages: list[tuple[str, dict[str, Any]]]) -> int:
    """Send each ``(group, message)``, all at once (the sends to different groups overlap on the loop; each
    group gets its messages in order); how many went. A failed send is a warning, as in :func:`broadcast`."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return 0
    by_group: dict[str, list[dict[str, Any]]] = {}
    for group, message in messages:
        by_group.setdefault(group, []).append(masked(message))

    async def send_in_order(group: str, ordered: list[dict[str, Any]]) -> int:
        for message in ordered:
            await layer.group_send(group, message)
        return len(ordered)

    async def send_all() -> list:
        return await asyncio.gather(*(send_in_order(group, ordered) for group, ordered in by_group.items()),
                                    return_exceptions=True)

    future = asyncio.run_coroutine_threadsafe(send_all(), _fanout.loop())
    try:
        outcomes = future.result(SEND_TIMEOUT_S)
    except Exception as error:  # Redis down or slow: the events are stored already
        future.cancel()
        logger.warning("could not broadcast to %s groups: %s", len(by_group), error or type(error).__name__)
        return 0
    failed = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    if failed:
        logger.warning("could not broadcast to %s of %s groups: %s", len(failed), len(by_group), failed[0])
    return sum(outcome for outcome in outcomes if not isinstance(outcome, BaseException))
