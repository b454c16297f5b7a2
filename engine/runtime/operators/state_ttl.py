"""State time-to-live for keyed operators (``state_ttl_ms``): keys that stop appearing lose their state.

Event time, so that streaming and batch mode agree: a key's state expires ``ttl`` after the
event time of its latest record. A record at or after that point sees no state (its key
starts afresh, as if new); and once the watermark passes it, a timer removes the key's
state from every keyed state of the operator, so the state of keys that stop appearing
does not grow without bound. Both count as an expired key (metric ``expired_keys``).

The latest event time per key is keyed value state too (``ttl_latest``), so expiry is
checkpointed and rescaled with the rest; timers (one per key, set again lazily when the
key's latest time moved on) are rebuilt from it on restore. They are a plain heap of
``(expiry, sequence, key)``: a key that keeps appearing is set again about once per TTL,
and ``EventTimeTimers``' duplicate check and key wrappers cost as much as the rest of a
record's work (profiled: half the time of the TTL path went to timer registration).

Threading model: the operator's mailbox thread, like the operator.
"""
from __future__ import annotations

import heapq
import itertools


class KeyStateTtl:
    """Expiry of one operator's keyed states: ``expired(key, t)`` per record, ``expire(watermark)`` per watermark."""

    def __init__(self, ttl_ms: int, backend, states: list):
        if ttl_ms <= 0:
            raise ValueError("state_ttl_ms must be positive")
        self.ttl = ttl_ms
        self.states = states
        """The operator's keyed states whose entries go when a key expires."""
        self.latest = backend.value_state("ttl_latest").entries
        self._sequence = itertools.count()
        self._heap = [(latest + ttl_ms - 1, next(self._sequence), key) for key, latest in self.latest.items()]
        heapq.heapify(self._heap)
        self.expired_keys = 0

    def register(self, expiry: int, key) -> None:
        """Look at ``key`` again when the watermark reaches ``expiry``."""
        heapq.heappush(self._heap, (expiry, next(self._sequence), key))

    def expired(self, key, t: int) -> bool:
        """Note a record of ``key`` at event time ``t``; True when the key's state had expired for it
        (then it is gone: the record starts afresh)."""
        latest = self.latest.get(key)
        if latest is None:
            self.latest[key] = t
            self.register(t + self.ttl - 1, key)
            return False
        if t >= latest + self.ttl:
            self.drop(key)
            self.latest[key] = t
            return True
        if t > latest:
            self.latest[key] = t
        return False

    def expire(self, up_to: int) -> None:
        """Remove the state of every key whose latest record is ``ttl`` or more before ``up_to``."""
        heap, due = self._heap, []
        while heap and heap[0][0] <= up_to:
            due.append(heapq.heappop(heap)[2])
        for key in due:
            latest = self.latest.get(key)
            if latest is None:
                continue
            if latest + self.ttl - 1 > up_to:  # a later record moved the expiry on
                self.register(latest + self.ttl - 1, key)
                continue
            self.drop(key)
            del self.latest[key]

    def drop(self, key) -> None:
        """The key's state expired: remove it from every state (not ``latest``) and count it."""
        self.expired_keys += 1
        for state in self.states:
            state.entries.pop(key, None)
