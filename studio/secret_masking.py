"""Secret values masked in everything a run's driver sends out: events, statuses, broadcasts, its log.

A run that uses a user's secrets gets their values only inside its driver process
(``studio.run_values.driver_definition``). From that moment this process masks them in
every event it stores (``studio.runs.events.record_event``), every message it broadcasts
(``studio.fanout.broadcast``: taps' samples too) and everything written to its standard output
and error, the Spark JVM's and its Python workers' included (:func:`mask_output`): a value
becomes ``MASK`` in its plain, URL-encoded and base64 forms.

Threading model: :func:`activate` is called once, by the driver's main thread, before the job
starts; the mask it sets is immutable and read by any thread.
"""
from __future__ import annotations

import base64
import os
import re
import threading
from typing import Any, Iterable
from urllib.parse import quote, quote_plus

MASK = "********"
SHORTEST_MASKED_FORM = 3
"""A base64 fragment shorter than this would mask unrelated text; the value itself is always masked."""


class SecretMask:
    """Replaces every form of some values by :data:`MASK`; an empty mask changes nothing."""

    def __init__(self, values: Iterable[str] = ()):
        forms = {form for value in values if value for form in forms_of(value)}
        self._pattern = re.compile("|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))) \
            if forms else None
        self.longest = max((len(form) for form in forms), default=0)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        return self._pattern.sub(MASK, text) if self._pattern is not None else text

    def data(self, data: Any) -> Any:
        """``data`` (JSON-like) with every string, keys included, masked."""
        if self._pattern is None:
            return data
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {self.data(key): self.data(value) for key, value in data.items()}
        if isinstance(data, (list, tuple)):
            return [self.data(item) for item in data]
        return data


def forms_of(value: str) -> set[str]:
    """The value, URL-encoded, and base64-encoded (standard and URL-safe, with and without padding, and
    the part that stays the same wherever the value starts inside a longer encoded text)."""
    raw = value.encode()
    forms = {value, quote(value, safe=""), quote(value), quote_plus(value)}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode()
        forms |= {whole, whole.rstrip("=")}
        for offset in (1, 2):  # the value after 1 or 2 other bytes: drop the characters that depend on them
            shifted = encode(b"\0" * offset + raw).decode().rstrip("=")
            stable = shifted[(offset * 4 + 2) // 3 + 1:]
            tail = (len(raw) + offset) % 3
            stable = stable[:len(stable) - 1] if tail else stable  # the last one depends on what follows
            if len(stable) >= SHORTEST_MASKED_FORM:
                forms.add(stable)
        tail = len(raw) % 3
        if tail:
            prefix = whole.rstrip("=")[:-1]
            if len(prefix) >= SHORTEST_MASKED_FORM:
                forms.add(prefix)
    return {form for form in forms if form}


_active = SecretMask()


def activate(mask: SecretMask) -> None:
    """Make ``mask`` the mask of everything this process sends out (a run's driver, once it has secrets)."""
    global _active
    _active = mask


def active() -> SecretMask:
    return _active


def masked(data: Any) -> Any:
    """``data`` with this process's secrets masked (unchanged where there are none)."""
    return _active.data(data)


def mask_output(mask: SecretMask) -> threading.Thread | None:
    """Pass this process's standard output and error (file descriptors 1 and 2, which the processes it
    starts inherit) through ``mask`` on their way to where they went. Returns the copying thread."""
    if not mask:
        return None
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    target = os.dup(1)
    reader, writer = os.pipe()
    os.dup2(writer, 1)
    os.dup2(writer, 2)
    os.close(writer)
    thread = threading.Thread(target=_copy_masked, args=(reader, target, mask), daemon=True, name="masked-output")
    thread.start()
    return thread


def _copy_masked(reader: int, target: int, mask: SecretMask) -> None:
    """Copy whole lines masked; a line longer than 64 KiB goes out in parts that overlap the longest form."""
    pending = b""
    keep = max(mask.longest * 4, 1)
    while True:
        chunk = os.read(reader, 65536)
        if not chunk:
            break
        pending += chunk
        cut = pending.rfind(b"\n") + 1
        if not cut and len(pending) > 65536:
            cut = len(pending) - keep
        if cut:
            os.write(target, mask.text(pending[:cut].decode(errors="replace")).encode())
            pending = pending[cut:]
    if pending:
        os.write(target, mask.text(pending.decode(errors="replace")).encode())
