"""Test fixtures for async I/O: a controllable fake HTTP service and an operator harness.

:class:`FakeService`
    An aiohttp server on 127.0.0.1 (its own thread and event loop) answering
    ``GET|POST /lookup/<key>`` with ``{"key": key, "value": "v-<key>", "attempt": n}``. The
    test sets its latency, holds answers for chosen keys until it releases them, makes
    the first n requests of a key fail (status 500) or miss (404), or holds every request
    until ``gate`` of them are waiting. It records every request (key, arrival time) and
    the most requests it ever had in flight at once.
:class:`OperatorHarness`
    Builds one async operator and drives it in the test thread, which plays the
    subtask's mailbox thread: ``run_until(condition)`` runs mails (completions) until the
    condition holds, with a timer mail as the guard against hangs (never a sleep).
:class:`ModelQueue`
    The reference model of what the ordered and unordered queues emit.
"""
from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter

from aiohttp import web

from engine.runtime.io.events import Watermark
from engine.runtime.mailbox import MailboxProcessor
from engine.runtime.operators.base import OperatorContext
from engine.runtime.timer_service import ProcessingTimeService


class FakeService:
    """An HTTP service whose latency and failures the test controls. Thread-safe setters."""

    def __init__(self) -> None:
        self.latency_s = 0.0
        self.jitter_s = 0.0
        """Each answer waits ``latency_s`` plus a random part of up to ``jitter_s``."""
        self.latency_by_key: dict[str, float] = {}
        self.gate: int | None = None
        self.requests: list[tuple[str, float]] = []  # written on the service loop
        self.in_flight = 0
        self.max_in_flight = 0
        self._held: set[str] = set()
        self._hold_all = False
        self._failures: Counter = Counter()
        self._misses: Counter = Counter()
        self._events: dict[str, asyncio.Event] = {}
        self._gate_event: asyncio.Event | None = None
        self._gate_waiting = 0
        self._lock = threading.Lock()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="fake-service", daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the fake service did not start")

    # -- what the test controls ------------------------------------------------------------
    def url(self, key_expression: str = "x") -> str:
        """An f-string expression for ``lookup.http``'s ``url``: the lookup of ``key_expression``."""
        return f'f"http://127.0.0.1:{self.port}/lookup/{{{key_expression}}}"'

    def hold(self, *keys) -> None:
        with self._lock:
            self._held.update(str(key) for key in keys)

    def hold_all(self) -> None:
        self._hold_all = True

    def release(self, *keys) -> None:
        for key in keys:
            self.loop.call_soon_threadsafe(self._event(str(key)).set)

    def fail(self, key, times: int) -> None:
        with self._lock:
            self._failures[str(key)] += times

    def miss(self, key, times: int) -> None:
        with self._lock:
            self._misses[str(key)] += times

    def requests_for(self, key) -> list[float]:
        return [at for k, at in list(self.requests) if k == str(key)]

    def request_counts(self) -> Counter:
        return Counter(key for key, _ in list(self.requests))

    def reset(self) -> None:
        """Release everything held and forget settings and records."""
        self._hold_all = False
        with self._lock:
            events = list(self._events.values())
            self._events.clear()
            self._held.clear()
            self._failures.clear()
            self._misses.clear()
        for event in events:
            self.loop.call_soon_threadsafe(event.set)
        self.loop.call_soon_threadsafe(self._open_gate)
        self.latency_s = self.jitter_s = 0.0
        self.latency_by_key.clear()
        self.gate = None
        self.requests.clear()
        self.max_in_flight = 0

    def close(self) -> None:
        self.reset()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)

    # -- the server (its own thread) ---------------------------------------------------------
    def _event(self, key: str) -> asyncio.Event:
        with self._lock:
            event = self._events.get(key)
            if event is None:
                event = self._events[key] = asyncio.Event()
            return event

    def _serve(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_route("*", "/lookup/{key}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]
        self._started.set()
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self._runner.cleanup())
            self.loop.close()

    async def _handle(self, request: web.Request) -> web.Response:
        key = request.match_info["key"]
        self.requests.append((key, time.monotonic()))
        attempt = sum(1 for k, _ in self.requests if k == key)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            with self._lock:
                failing = self._failures[key] > 0
                if failing:
                    self._failures[key] -= 1
                missing = not failing and self._misses[key] > 0
                if missing:
                    self._misses[key] -= 1
                held = self._hold_all or key in self._held
            if failing:
                return web.Response(status=500, text=f"failure for {key}")
            if missing:
                return web.Response(status=404, text="not found")
            if held:
                await self._event(key).wait()
            elif self.gate:
                await self._wait_at_gate()
            latency = self.latency_by_key.get(key, self.latency_s) + random.uniform(0, self.jitter_s)
            if latency:
                await asyncio.sleep(latency)
            body = await request.json() if request.method == "POST" and request.can_read_body else None
            return web.json_response({"key": key, "value": f"v-{key}", "attempt": attempt, "body": body})
        finally:
            self.in_flight -= 1

    def _open_gate(self) -> None:
        if self._gate_event is not None:
            self._gate_event.set()
        self._gate_event, self._gate_waiting = None, 0

    async def _wait_at_gate(self) -> None:
        if self._gate_event is None:
            self._gate_event = asyncio.Event()
        if self._gate_waiting + 1 >= self.gate:
            self._gate_event.set()
            self._gate_event, self._gate_waiting = asyncio.Event(), 0
            return
        self._gate_waiting += 1
        await self._gate_event.wait()


class FakeRestore:
    """What a restored operator's context needs: its operator state from a snapshot."""

    def __init__(self, node_id: str, operator_state: dict):
        self.node_id = node_id
        self.state = operator_state

    def knows(self, node_id: str) -> bool:
        return node_id == self.node_id

    def operator_state(self, node_id: str) -> dict | None:
        return dict(self.state) if node_id == self.node_id else None

    def keyed_state(self, node_id, *ranges) -> dict:
        return {}


class OperatorHarness:
    """One async operator driven in the test thread (its mailbox thread)."""

    def __init__(self, factory, params: dict, *, node_type: str = "lookup.http", restore: dict | None = None,
                 parallelism: int = 1, kill_hook=None, node_id: str = "async"):
        self.processor = MailboxProcessor(lambda controller: None)
        self.mailbox = self.processor.mailbox
        self.executor = self.processor.main_executor()
        self.timers = ProcessingTimeService(self.executor)
        self.context = OperatorContext(
            task=("async", 0), node_id=node_id, parallelism=parallelism, max_parallelism=128, config={},
            restore=FakeRestore(node_id, restore) if restore is not None else None,
            mailbox_executor=self.executor, timer_service=self.timers, kill_hook=kill_hook)
        self.operator = factory({"id": node_id, "type": node_type, "params": params}, self.context)
        self.out: list = []
        """Records and :class:`Watermark` objects in emission order."""
        self.batches: list = []
        self.operator.emit = self._emit
        self.operator.emit_watermark = self.out.append
        self.operator.initialize_state()
        self.operator.open()

    def _emit(self, batch) -> None:
        self.batches.append(batch)
        self.out.extend(batch)

    @property
    def records(self) -> list:
        return [item for item in self.out if not isinstance(item, Watermark)]

    @property
    def watermarks(self) -> list[int]:
        return [item.timestamp for item in self.out if isinstance(item, Watermark)]

    def run_until(self, condition, timeout: float = 10.0, what: str = "the condition") -> None:
        """Run mails until ``condition()``; fail after ``timeout`` seconds (a guard, not a timing test)."""
        expired = []
        handle = self.timers.schedule(timeout, lambda: expired.append(True), "harness guard")
        try:
            while not condition():
                if expired:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
                self.mailbox.take(0).run()
        finally:
            self.timers.cancel(handle)

    def completed(self, count: int) -> None:
        self.run_until(lambda: self.operator.counters["completed"] >= count, what=f"{count} completions")

    def snapshot(self) -> dict:
        """The operator state a checkpoint now would contain."""
        self.operator.snapshot_state(1)
        return self.context.snapshot_backends().operator

    def finish(self) -> None:
        self.operator.finish()

    def close(self) -> None:
        self.operator.close()
        self.timers.close()
        self.mailbox.close()


class ModelQueue:
    """The reference model of what an async queue emits, written as plainly as possible.

    Items are ``("r", id)`` and ``("w", timestamp)`` in input order. Ordered: the prefix of
    completed records and watermarks goes out. Unordered: the completed records before the
    first waiting watermark go out in completion order; a watermark goes out once every
    record before it did. A watermark right behind another (no record between them, both
    still waiting) replaces it.
    """

    def __init__(self, ordered: bool):
        self.ordered = ordered
        self.waiting: list[tuple] = []
        self.done: dict = {}  # id -> completion rank

    def add_record(self, record_id) -> None:
        self.waiting.append(("r", record_id))

    def add_watermark(self, timestamp: int) -> None:
        if self.waiting and self.waiting[-1][0] == "w":
            self.waiting[-1] = ("w", timestamp)
        else:
            self.waiting.append(("w", timestamp))

    def complete(self, record_id) -> None:
        self.done[record_id] = len(self.done)

    def pop(self) -> list[tuple]:
        out = []
        if self.ordered:
            while self.waiting and (self.waiting[0][0] == "w" or self.waiting[0][1] in self.done):
                out.append(self.waiting.pop(0))
            return out
        while True:
            end = next((i for i, item in enumerate(self.waiting) if item[0] == "w"), None)
            segment = self.waiting[:end]
            ready = sorted((item for item in segment if item[1] in self.done), key=lambda item: self.done[item[1]])
            out.extend(ready)
            for item in ready:
                self.waiting.remove(item)
            if len(ready) < len(segment) or end is None:
                return out
            out.append(self.waiting.pop(0))  # the watermark closing the segment that just finished
