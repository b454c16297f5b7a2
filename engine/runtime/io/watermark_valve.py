"""The watermark valve: the event time of a subtask with several input channels.

Each channel's watermark only rises. The subtask's watermark is the minimum over the
channels that are still open (a finished channel holds nothing back) and active (an idle
channel, one whose producer said it has no records for a while, holds nothing back
either); it is passed to the operators only when that minimum rises. A channel becomes
active again with its next status or watermark; while its watermark is behind the
subtask's, the subtask's watermark waits for it to catch up (it never goes back).

The subtask is idle when every open channel is idle; ``idle`` says so, and the input
compares it before and after each event to tell the operators of a change.

Threading model: the subtask's mailbox thread.
"""
from __future__ import annotations

_NO_WATERMARK = -(2**63)


class WatermarkValve:
    """Combines per-channel watermarks into the subtask's watermark."""

    def __init__(self, number_of_channels: int):
        self._watermarks = [_NO_WATERMARK] * number_of_channels
        self._open = [True] * number_of_channels
        self._idle = [False] * number_of_channels
        self.current = _NO_WATERMARK

    @property
    def idle(self) -> bool:
        """Every open channel is idle (False once all channels finished: that is the end)."""
        statuses = [idle for idle, is_open in zip(self._idle, self._open) if is_open]
        return bool(statuses) and all(statuses)

    def input_watermark(self, channel: int, timestamp: int) -> int | None:
        """Record a channel's watermark (it is active); return the subtask's new watermark if it rose."""
        self._idle[channel] = False
        if timestamp > self._watermarks[channel]:
            self._watermarks[channel] = timestamp
        return self._advance()

    def input_status(self, channel: int, idle: bool) -> int | None:
        """A channel went idle or active; return the new watermark if leaving it out released one."""
        self._idle[channel] = idle
        return self._advance()

    def channel_finished(self, channel: int) -> int | None:
        """Stop waiting for a channel; return the new watermark if that released one."""
        self._open[channel] = False
        return self._advance()

    def _advance(self) -> int | None:
        candidates = [w for w, is_open, idle in zip(self._watermarks, self._open, self._idle) if is_open and not idle]
        if not candidates:
            return None
        lowest = min(candidates)
        if lowest > self.current:
            self.current = lowest
            return lowest
        return None
