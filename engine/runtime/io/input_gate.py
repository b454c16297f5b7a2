"""The input gate: all input channels of one subtask, read as one stream of items.

A subtask reads from many channels (one per upstream subtask and input edge). The gate
keeps a queue of the channels that have data and are not blocked, and hands out one item
at a time, taking turns among the channels (round robin per buffer). It never blocks:
``poll_next`` returns None when nothing is available, and ``when_available`` registers a
callback that the gate calls once data arrives, which the task uses to resume its
suspended default action.

Barrier alignment blocks single channels (``block``): a blocked channel keeps its data
queued and is skipped until ``unblock_all``; its producer runs into backpressure instead
of the consumer buffering without bound.

Threading model
    ``poll_next``, ``block``, ``unblock_all`` and ``when_available`` are called from the
    consumer's mailbox thread; ``_channel_available`` from producer threads (via a
    channel's push) or network threads. ``self._available`` and ``self._listener`` are
    guarded by ``self._lock``; no channel lock is held while it is taken.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Callable, Sequence


class InputGate:
    """The channels of one subtask's input, with availability notification."""

    def __init__(self, channels: Sequence, channel_infos: Sequence | None = None):
        self.channels = list(channels)
        self.channel_infos = list(channel_infos) if channel_infos is not None else [None] * len(self.channels)
        """Per channel, what it carries (for example the job edge); indexes match ``channels``."""
        self._lock = threading.Lock()
        self._available: deque[int] = deque()  # guarded by: self._lock
        self._listener: Callable[[], None] | None = None  # guarded by: self._lock
        for index, channel in enumerate(self.channels):
            channel.attach(self, index)

    @property
    def number_of_channels(self) -> int:
        return len(self.channels)

    def _channel_available(self, index: int) -> None:
        """A channel announces data. Any thread."""
        with self._lock:
            self._available.append(index)
            listener, self._listener = self._listener, None
        if listener is not None:
            listener()

    def _channel_prioritized(self, index: int) -> None:
        """A channel got a priority event (an unaligned barrier) at its head: serve it next. Any thread."""
        with self._lock:
            try:
                self._available.remove(index)
            except ValueError:
                pass
            self._available.appendleft(index)
            listener, self._listener = self._listener, None
        if listener is not None:
            listener()

    def poll_next(self):
        """Return ``(channel_index, item)`` of the next available channel, or None. Mailbox thread."""
        while True:
            with self._lock:
                if not self._available:
                    return None
                index = self._available.popleft()
            item, still_available = self.channels[index].pop()
            if still_available:
                with self._lock:
                    self._available.append(index)
            if item is not None:
                return index, item

    def when_available(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` once some channel has data (immediately if one has now)."""
        with self._lock:
            if not self._available:
                self._listener = listener
                return
        listener()

    def block(self, index: int) -> None:
        """Skip channel ``index`` until ``unblock_all``. Mailbox thread."""
        self.channels[index].block()

    def unblock_all(self) -> None:
        """Read every blocked channel again. Mailbox thread."""
        for channel in self.channels:
            if channel.is_blocked:
                channel.unblock()

    def is_blocked(self, index: int) -> bool:
        return self.channels[index].is_blocked
