"""The parameters every async operator shares: capacity, timeout, output mode, retries, failures.

They come from the node's ``params`` (the catalog's ``lookup.*`` schemas list them; the
defaults here and there are the same, a test checks it):

``capacity`` (100)
    Most records in the operator at once: in flight, or completed but not yet emitted.
``timeout_ms`` (10000; 0 or null: none)
    Per record, for all its attempts and the delays between them together (as Flink's
    retry support counts it). What happens then is ``on_timeout``.
``output_mode`` ("ordered")
    ``ordered``: results leave in input order. ``unordered``: as they complete, but never
    across a watermark.
``retry`` ("none") | "fixed_delay" | "exponential_backoff"
    With ``retry_max_attempts`` (3, the first attempt included), ``retry_delay_ms`` (100:
    the fixed delay, or the first delay of the backoff), ``retry_multiplier`` (2.0) and
    ``retry_max_delay_ms`` (10000) for the backoff. An attempt is retried when it raised and
    ``retry_on_error`` (true), or when its result matched the operator's result predicate
    (the lookups' ``retry_if``). When the attempts are used up, an error goes to
    ``on_error`` and a result that still matches is emitted as it is.
``on_timeout`` / ``on_error`` ("fail") | "drop" | "default"
    ``fail`` fails the subtask (and so the job restarts from its last checkpoint); ``drop``
    emits nothing for the record; ``default`` emits the record as if the call had returned
    ``default_value`` (null). Dropped and defaulted records are counted in the metrics.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

OUTPUT_MODES = ("ordered", "unordered")
RETRY_STRATEGIES = ("none", "fixed_delay", "exponential_backoff")
FAILURE_POLICIES = ("fail", "drop", "default")

DEFAULTS: dict[str, Any] = {
    "capacity": 100,
    "timeout_ms": 10000,
    "output_mode": "ordered",
    "retry": "none",
    "retry_max_attempts": 3,
    "retry_delay_ms": 100,
    "retry_multiplier": 2.0,
    "retry_max_delay_ms": 10000,
    "retry_on_error": True,
    "on_timeout": "fail",
    "on_error": "fail",
    "default_value": None,
}
"""The defaults of the shared parameters (the catalog's schemas repeat them)."""


class RetryStrategy:
    """When to try a record again and how long to wait first (Flink's ``AsyncRetryStrategy``).

    >>> backoff = RetryStrategy("exponential_backoff", max_attempts=4, delay_s=0.1, multiplier=2, max_delay_s=0.3)
    >>> [backoff.can_retry(n) for n in (1, 2, 3, 4)], [backoff.delay_after(n) for n in (1, 2, 3)]
    ([True, True, True, False], [0.1, 0.2, 0.3])
    """

    def __init__(self, kind: str = "none", *, max_attempts: int = 1, delay_s: float = 0.0,
                 multiplier: float = 2.0, max_delay_s: float = math.inf, on_error: bool = True,
                 result_predicate: Callable[[Any, Any], bool] | None = None):
        if kind not in RETRY_STRATEGIES:
            raise ValueError(f"unknown retry strategy {kind!r}; expected one of {', '.join(RETRY_STRATEGIES)}")
        if max_attempts < 1:
            raise ValueError("retry_max_attempts must be at least 1")
        if delay_s < 0 or max_delay_s < 0 or multiplier < 1:
            raise ValueError("retry delays must not be negative and the multiplier must be at least 1")
        self.kind = kind
        self.max_attempts = 1 if kind == "none" else int(max_attempts)
        self.delay_s = float(delay_s)
        self.multiplier = float(multiplier)
        self.max_delay_s = float(max_delay_s)
        self.on_error = bool(on_error)
        self.result_predicate = result_predicate
        """``predicate(x, r)``: retry a record x whose call returned r. Runs on the event loop thread."""

    def can_retry(self, attempt: int) -> bool:
        """Whether attempt number ``attempt`` (1 = the first) may be followed by another."""
        return attempt < self.max_attempts

    def delay_after(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` before the next one."""
        if self.kind == "exponential_backoff":
            return min(self.max_delay_s, self.delay_s * self.multiplier ** (attempt - 1))
        return self.delay_s


@dataclass(frozen=True)
class AsyncSettings:
    """The shared parameters of one async operator, checked and converted."""

    capacity: int = DEFAULTS["capacity"]
    timeout_s: float | None = DEFAULTS["timeout_ms"] / 1000
    ordered: bool = True
    retry: RetryStrategy = RetryStrategy()
    on_timeout: str = DEFAULTS["on_timeout"]
    on_error: str = DEFAULTS["on_error"]
    default_value: Any = None

    def __post_init__(self) -> None:
        if self.capacity < 1:
            raise ValueError("capacity must be at least 1")
        for name in ("on_timeout", "on_error"):
            if getattr(self, name) not in FAILURE_POLICIES:
                raise ValueError(f"{name} must be one of {', '.join(FAILURE_POLICIES)}, "
                                 f"not {getattr(self, name)!r}")

    @classmethod
    def from_params(cls, params: dict, result_predicate: Callable[[Any, Any], bool] | None = None
                    ) -> "AsyncSettings":
        """Read the shared parameters of ``params``; missing ones take :data:`DEFAULTS`."""
        p = {**DEFAULTS, **{name: value for name, value in params.items() if name in DEFAULTS}}
        if p["output_mode"] not in OUTPUT_MODES:
            raise ValueError(f"output_mode must be one of {', '.join(OUTPUT_MODES)}, not {p['output_mode']!r}")
        timeout_ms = p["timeout_ms"]
        retry = RetryStrategy(
            p["retry"], max_attempts=int(p["retry_max_attempts"]), delay_s=p["retry_delay_ms"] / 1000,
            multiplier=float(p["retry_multiplier"]), max_delay_s=p["retry_max_delay_ms"] / 1000,
            on_error=bool(p["retry_on_error"]), result_predicate=result_predicate)
        return cls(capacity=int(p["capacity"]), timeout_s=timeout_ms / 1000 if timeout_ms else None,
                   ordered=p["output_mode"] == "ordered", retry=retry, on_timeout=p["on_timeout"],
                   on_error=p["on_error"], default_value=p["default_value"])
