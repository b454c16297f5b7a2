"""Restart strategies: whether and when a failed job restarts from its latest checkpoint.

Built from the definition's ``restart`` section::

    {"strategy": "none"}
    {"strategy": "fixed_delay", "attempts": 3, "delay_ms": 1000}
    {"strategy": "exponential_delay", "attempts": 10, "delay_ms": 100, "max_delay_ms": 60000,
     "multiplier": 2.0}
    {"strategy": "failure_rate", "max_failures": 3, "interval_ms": 60000, "delay_ms": 1000}

``attempts`` counts restarts, not runs: with ``attempts: 3`` the job restarts after each of
its first three failures and ends FAILED at the fourth.

Threading model: used by the JobMaster's driver thread only.
"""
from __future__ import annotations

import time
from collections import deque


class RestartStrategy:
    """Decides after each failure: restart (after ``delay`` seconds) or give up."""

    name = "none"

    def on_failure(self) -> float | None:
        """Record a failure; return the delay before restarting, or None to give up."""
        return None

    def describe(self) -> str:
        return self.name


class NoRestart(RestartStrategy):
    name = "none"


class FixedDelayRestart(RestartStrategy):
    name = "fixed_delay"

    def __init__(self, attempts: int, delay_ms: int):
        self.attempts = attempts
        self.delay = delay_ms / 1000.0
        self.restarts = 0

    def on_failure(self) -> float | None:
        if self.restarts >= self.attempts:
            return None
        self.restarts += 1
        return self.delay

    def describe(self) -> str:
        return f"fixed_delay ({self.restarts} of {self.attempts} restarts used)"


class ExponentialDelayRestart(RestartStrategy):
    name = "exponential_delay"

    def __init__(self, attempts: int, delay_ms: int, max_delay_ms: int, multiplier: float):
        self.attempts = attempts
        self.delay = delay_ms / 1000.0
        self.max_delay = max_delay_ms / 1000.0
        self.multiplier = multiplier
        self.restarts = 0

    def on_failure(self) -> float | None:
        if self.restarts >= self.attempts:
            return None
        delay = min(self.max_delay, self.delay * self.multiplier ** self.restarts)
        self.restarts += 1
        return delay


class FailureRateRestart(RestartStrategy):
    name = "failure_rate"

    def __init__(self, max_failures: int, interval_ms: int, delay_ms: int, clock=time.monotonic):
        self.max_failures = max_failures
        self.interval = interval_ms / 1000.0
        self.delay = delay_ms / 1000.0
        self._clock = clock
        self._failures: deque[float] = deque()

    def on_failure(self) -> float | None:
        now = self._clock()
        self._failures.append(now)
        while self._failures and self._failures[0] < now - self.interval:
            self._failures.popleft()
        if len(self._failures) > self.max_failures:
            return None
        return self.delay


def create_restart_strategy(section: dict | None) -> RestartStrategy:
    """The strategy of a definition's ``restart`` section (fixed_delay 3 x 1 s when absent)."""
    section = section or {"strategy": "fixed_delay", "attempts": 3, "delay_ms": 1000}
    name = section.get("strategy", "fixed_delay")
    delay_ms = int(section.get("delay_ms", 1000))
    if name in ("none", "no_restart", "disable"):
        return NoRestart()
    if name == "fixed_delay":
        return FixedDelayRestart(int(section.get("attempts", 3)), delay_ms)
    if name == "exponential_delay":
        return ExponentialDelayRestart(int(section.get("attempts", 2**31)), delay_ms,
                                       int(section.get("max_delay_ms", 60000)),
                                       float(section.get("multiplier", 2.0)))
    if name == "failure_rate":
        return FailureRateRestart(int(section.get("max_failures", 3)), int(section.get("interval_ms", 60000)),
                                  delay_ms)
    raise ValueError(f"unknown restart strategy '{name}'")
