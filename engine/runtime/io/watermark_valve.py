"""The watermark valve: the event time of a subtask with several input channels.

Each channel's watermark only rises. The subtask's watermark is the minimum over the
channels that are still open (a finished channel holds nothing back); it is passed to
the operators only when that minimum rises.

Threading model: the subtask's mailbox thread.
"""
from __future__ import annotations

_NO_WATERMARK = -(2**63)


class WatermarkValve:
    """Combines per-channel watermarks into the subtask's watermark."""

    def __init__(self, number_of_channels: int):
        self._watermarks = [_NO_WATERMARK] * number_of_channels
        self._open = [True] * number_of_channels
        self.current = _NO_WATERMARK

    def input_watermark(self, channel: int, timestamp: int) -> int | None:
        """Record a channel's watermark; return the subtask's new watermark if it rose."""
        if timestamp > self._watermarks[channel]:
            self._watermarks[channel] = timestamp
        return self._advance()

    def channel_finished(self, channel: int) -> int | None:
        """Stop waiting for a channel; return the new watermark if that released one."""
        self._open[channel] = False
        return self._advance()

    def _advance(self) -> int | None:
        candidates = [w for w, is_open in zip(self._watermarks, self._open) if is_open]
        if not candidates:
            return None
        lowest = min(candidates)
        if lowest > self.current:
            self.current = lowest
            return lowest
        return None
