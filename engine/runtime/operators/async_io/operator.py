"""The async wait operator: external calls in flight while records keep flowing (seed 000).

Flink's ``AsyncWaitOperator`` needs an emitter thread and the checkpoint lock. Ours has
neither: it runs on the mailbox model (seed 004).

Threading model
    Everything that touches the operator's state -- its queue, its not-yet-admitted
    records, its counters -- runs on the subtask's mailbox thread: ``process_batch``,
    ``process_watermark``, the completion mails, ``snapshot_state``, ``finish``. The
    calls themselves run as coroutines on the subtask's event loop thread
    (:class:`~engine.runtime.operators.async_io.event_loop.TaskEventLoop`), which reads a
    record's value and request and hands back an outcome; it never touches the queue.

Life of a record
    1. ``process_batch`` turns each record into a :class:`RecordEntry` (``request(x)``
       prepares the call on the mailbox thread, so a bad key expression fails the
       subtask instead of being retried) and appends it to ``pending``.
    2. *Admission* moves records from ``pending`` into the queue while the queue holds
       fewer than ``capacity`` records, and hands the admitted ones to the loop in one
       ``call_soon``. When ``pending`` is not empty after that, the operator *yields* to
       the mailbox: it runs mails (completions, checkpoints, timers) until a completion
       made room. That is the backpressure: ``process_batch`` returns only when the whole
       batch is admitted, and until then the subtask reads no more input.
    3. On the loop, ``invoke(request)`` runs as a task, with the retry strategy and the
       timeout (for all attempts together; one timer for the oldest call of the operator
       cancels the overdue ones, instead of a timer per call). The outcome -- result, error
       or timeout -- is appended to an inbox. The first outcome of a round puts one mail
       "async completions" into the mailbox; the outcomes that arrive before it runs ride
       along (one mail per batch of completions, not one per record: the benchmark measures
       both).
    4. The completion mail turns each outcome into the output record (``result_record``)
       or applies ``on_timeout`` / ``on_error``, marks the entries completed, takes what
       the queue says is emittable (ordered: the completed prefix; unordered: the completed
       records of the first watermark segment, then its watermark), admits more -- so the
       next calls start before this one emits -- and emits. Test hook: the kill point
       ``async_complete`` (``context.maybe_kill``) fires before a completion mail applies
       anything.

Checkpoints and exactly-once (seed 000, "恢复策略")
    A snapshot runs on the mailbox thread between two mails or batches, so every record
    is either emitted (its result is before the barrier) or in the queue or ``pending``.
    ``snapshot_state`` stores all of those -- in flight, completed but not emitted, not yet
    admitted -- as *inputs*, with the queued watermarks, in input order. On restore they
    are admitted again in that order and their calls re-issued. An external call may thus
    happen twice (once before the failure, once after), but a result is emitted only from
    the queue and the queue is rebuilt only from inputs whose results were not emitted
    before the checkpoint: each result goes downstream exactly once. Watermarks are
    restored only at the parallelism they were taken at (at another one, records of
    several old subtasks meet and an old watermark could overtake them).

End of input
    ``finish`` yields until ``pending`` and the queue are empty, so everything is emitted
    before end of data goes downstream.

Subclasses implement ``invoke`` (a coroutine on the loop) and may override ``request``,
``result_record``, ``open_async`` and ``close_async``.
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from typing import Any, Awaitable, Callable

from engine.runtime.io.events import TimestampedBatch, Watermark
from engine.runtime.mailbox import MailboxClosedError, MailboxProcessor
from engine.runtime.operators.async_io.event_loop import TaskEventLoop
from engine.runtime.operators.async_io.queues import RecordEntry, WatermarkEntry, create_queue
from engine.runtime.operators.async_io.settings import AsyncSettings
from engine.runtime.operators.base import StreamOperator

STATE_NAME = "in_flight"
"""The operator list state holding the inputs whose results were not emitted."""

_RESULT, _ERROR, _TIMEOUT, _BROKEN = "result", "error", "timeout", "broken"
"""Outcome kinds; ``broken``: the result predicate itself raised (a pipeline bug: always fails)."""
_DROPPED = object()
"""The output of a record whose timeout or error says ``drop``."""


class AsyncCallTimeout(TimeoutError):
    """A record's call (all its attempts) did not complete within ``timeout_ms``."""


class AsyncCallFailed(RuntimeError):
    """A record's call raised and retrying did not help."""


class AsyncWaitInterrupted(RuntimeError):
    """The subtask stopped (canceled) while the operator waited for room in its queue."""


class AsyncWaitOperator(StreamOperator):
    """Base of operators whose per-record work is an ``async def`` call (lookups, enrichments)."""

    completion_batching = True
    """One mail per batch of completions (True) or one per completion (False; for the benchmark)."""

    def __init__(self, node: dict, context, settings: AsyncSettings | None = None):
        super().__init__(node, context)
        self.settings = settings if settings is not None else AsyncSettings.from_params(
            self.params, self.retry_predicate())
        self.capacity = self.settings.capacity
        self.queue = create_queue(self.settings.ordered)
        self.pending: deque[RecordEntry | WatermarkEntry] = deque()
        """Inputs not admitted yet (a batch's tail while the queue is full; restored inputs)."""
        self._draining = False
        self._event_loop: TaskEventLoop | None = None
        self._executor = context.mailbox_executor
        self._inbox_lock = threading.Lock()
        self._inbox: list[tuple] = []  # guarded by: self._inbox_lock
        self._mail_scheduled = False  # guarded by: self._inbox_lock; "a completion mail is on its way"
        self._calls: dict[RecordEntry, tuple] = {}  # event loop thread only; entry -> (task, deadline)
        self._expired: set[RecordEntry] = set()  # event loop thread only; calls canceled by their timeout
        self._expiry_timer: asyncio.TimerHandle | None = None  # event loop thread only
        self._closed = False
        self._state = None
        self.counters = {"completed": 0, "retries": 0, "timeouts": 0, "errors": 0, "dropped": 0,
                         "defaulted": 0, "restored": 0, "completion_mails": 0, "max_in_flight": 0,
                         "wait_ms": 0.0}
        """Mailbox thread; reported under ``metrics()["async"][node id]``."""

    # -- what subclasses provide ------------------------------------------------------------
    async def invoke(self, request: Any) -> Any:
        """The external call for one record (on the event loop thread)."""
        raise NotImplementedError(f"{type(self).__name__}.invoke() must be overridden")

    def request(self, x: Any) -> Any:
        """What ``invoke`` gets for record ``x``; mailbox thread, so errors fail the subtask."""
        return x

    def result_record(self, x: Any, result: Any) -> Any:
        """The record emitted for ``x`` when its call returned ``result`` (pure: it may run on
        the event loop thread too, for the result predicate)."""
        return result

    def retry_predicate(self) -> Callable[[Any, Any], bool] | None:
        """``predicate(x, result)``: whether to retry; None: results are never retried."""
        return None

    async def open_async(self) -> None:
        """Create clients (on the event loop thread, where they will be used)."""

    async def close_async(self) -> None:
        """Close clients (on the event loop thread)."""

    # -- life cycle ------------------------------------------------------------------------
    def initialize_state(self) -> None:
        self._state = self.context.operator_state().list_state(STATE_NAME)
        parallelism = self.context.parallelism
        for element in self._state.get():
            if element[0] == "r":
                entry = RecordEntry(element[1], element[2])
                entry.request = self.request(entry.value)
                self.pending.append(entry)
                self.counters["restored"] += 1
            elif element[2] == parallelism:
                self.pending.append(WatermarkEntry(Watermark(element[1])))

    def open(self) -> None:
        if self._executor is None:
            raise ValueError(f"'{self.node_id}' needs the subtask's mailbox executor in its context")
        vertex, index = self.context.task
        self._event_loop = TaskEventLoop.acquire(self._executor, f"{vertex}#{index}")
        self._event_loop.run(self.open_async())
        if self.pending:  # restored inputs: re-issue their calls now
            self._admit()
            self._emit(self.queue.pop_emittable())

    def process_batch(self, batch: list) -> None:
        request = self.request
        pending = self.pending
        if type(batch) is TimestampedBatch:
            for x, timestamp in zip(batch, batch.timestamps):
                entry = RecordEntry(x, timestamp)
                entry.request = request(x)
                pending.append(entry)
        else:
            for x in batch:
                entry = RecordEntry(x)
                entry.request = request(x)
                pending.append(entry)
        self._drain_pending()

    def process_watermark(self, watermark: Watermark) -> None:
        if not self.pending and self.queue.is_empty():
            self.emit_watermark(watermark)
            return
        self.pending.append(WatermarkEntry(watermark))
        self._drain_pending()

    def snapshot_state(self, checkpoint_id: int) -> None:
        parallelism = self.context.parallelism
        elements = []
        for source in (self.queue, self.pending):
            for entry in source:
                if entry.is_watermark:
                    elements.append(("w", entry.watermark.timestamp, parallelism))
                else:
                    elements.append(("r", entry.value, entry.timestamp))
        self._state.update(elements)

    def finish(self) -> None:
        self._drain_pending()
        while self.pending or not self.queue.is_empty():
            self._yield_to_mailbox()

    def close(self) -> None:
        self._closed = True
        event_loop, self._event_loop = self._event_loop, None
        if event_loop is None:
            return
        try:
            event_loop.run(self._shut_down())
        finally:
            event_loop.release()

    async def _shut_down(self) -> None:
        if self._expiry_timer is not None:
            self._expiry_timer.cancel()
        tasks = [task for task, _ in self._calls.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self.close_async()

    # -- admission and backpressure (mailbox thread) ----------------------------------------
    def _drain_pending(self) -> None:
        """Admit every pending input, yielding to the mailbox while the queue is full."""
        if self._draining:  # re-entered from a mail run while yielding: the outer loop admits
            return
        self._draining = True
        try:
            while True:
                self._admit()
                self._emit(self.queue.pop_emittable())
                if not self.pending:
                    return
                self._yield_to_mailbox()
        finally:
            self._draining = False

    def _admit(self) -> None:
        """Move pending inputs into the queue while there is room; start their calls.

        Emits nothing: the caller emits what became emittable (a watermark admitted into an
        empty queue, say) once it emitted what it had in hand, which keeps the order.
        """
        queue, pending, capacity = self.queue, self.pending, self.capacity
        admitted = []
        while pending and (pending[0].is_watermark or queue.records < capacity):
            entry = pending.popleft()
            if entry.is_watermark:
                queue.add_watermark(entry.watermark)
            else:
                queue.add_record(entry)
                admitted.append(entry)
        if admitted:
            if queue.records > self.counters["max_in_flight"]:
                self.counters["max_in_flight"] = queue.records
            self._event_loop.call_soon(self._start_calls, admitted)

    def _yield_to_mailbox(self) -> None:
        """Run one mail (blocking until there is one); raise if it stopped the subtask."""
        mailbox = self._executor._mailbox  # see the module docstring of async_io: no public probe yet
        started = time.perf_counter()
        mail = mailbox.take(self._executor.priority)
        self.counters["wait_ms"] += (time.perf_counter() - started) * 1000
        mail.run()
        owner = getattr(mail.action, "__self__", None)
        if isinstance(owner, MailboxProcessor) and not owner.is_running:
            raise AsyncWaitInterrupted(f"the subtask stopped while '{self.node_id}' waited for room in its queue")

    # -- completions (mailbox thread) --------------------------------------------------------
    def _on_completions(self) -> None:
        with self._inbox_lock:
            outcomes, self._inbox = self._inbox, []
            self._mail_scheduled = False
        self._apply(outcomes)

    def _apply(self, outcomes: list[tuple]) -> None:
        """Complete the entries of ``outcomes``, emit what became emittable, admit more."""
        if self._closed or not outcomes:
            return
        counters = self.counters
        counters["completion_mails"] += 1
        self.context.maybe_kill("async_complete", completed=len(outcomes))
        settings = self.settings
        complete = self.queue.complete
        result_record = self.result_record
        for entry, kind, payload, attempts in outcomes:
            counters["retries"] += attempts - 1
            if kind is _RESULT:
                entry.output = result_record(entry.value, payload)
            elif kind is _TIMEOUT:
                counters["timeouts"] += 1
                entry.output = self._on_failure(entry, settings.on_timeout, AsyncCallTimeout(
                    f"'{self.node_id}': the call for record {entry.value!r} did not complete within "
                    f"{settings.timeout_s * 1000:g} ms ({attempts} attempt(s))"))
            elif kind is _BROKEN:
                raise payload
            else:
                counters["errors"] += 1
                failure = AsyncCallFailed(f"'{self.node_id}': the call for record {entry.value!r} failed after "
                                          f"{attempts} attempt(s): {type(payload).__name__}: {payload}")
                failure.__cause__ = payload
                entry.output = self._on_failure(entry, settings.on_error, failure)
            complete(entry)
        counters["completed"] += len(outcomes)
        ready = self.queue.pop_emittable()
        if self.pending:  # start the next calls first: emitting is not on their critical path
            self._admit()
        self._emit(ready)
        self._emit(self.queue.pop_emittable())

    def _on_failure(self, entry: RecordEntry, policy: str, error: Exception) -> Any:
        if policy == "drop":
            self.counters["dropped"] += 1
            return _DROPPED
        if policy == "default":
            self.counters["defaulted"] += 1
            return self.result_record(entry.value, self.settings.default_value)
        raise error

    def _emit(self, entries: list) -> None:
        """Emit records in batches (with event times where they had them) and watermarks."""
        if not entries:
            return
        records: list = []
        stamps: list = []
        timed = False
        for entry in entries:
            if entry.is_watermark:
                self._flush(records, stamps, timed)
                records, stamps = [], []
                self.emit_watermark(entry.watermark)
                continue
            if entry.output is _DROPPED:
                continue
            has_time = entry.timestamp is not None
            if records and has_time != timed:
                self._flush(records, stamps, timed)
                records, stamps = [], []
            timed = has_time
            records.append(entry.output)
            stamps.append(entry.timestamp)
        self._flush(records, stamps, timed)

    def _flush(self, records: list, stamps: list, timed: bool) -> None:
        if records:
            self.emit(TimestampedBatch(records, stamps) if timed else records)

    # -- the calls (event loop thread) -------------------------------------------------------
    def _start_calls(self, entries: list[RecordEntry]) -> None:
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        timeout = self.settings.timeout_s
        deadline = None if timeout is None else loop.time() + timeout
        call = self._call_with_retries if self.settings.retry.max_attempts > 1 else self._call_once
        create_task = loop.create_task
        calls = self._calls
        for entry in entries:
            calls[entry] = (create_task(call(entry)), deadline)
        if deadline is not None and self._expiry_timer is None:
            self._expiry_timer = loop.call_at(deadline, self._expire_calls)

    def _expire_calls(self) -> None:
        """Cancel the calls whose deadline passed; wake up again at the next deadline.

        Every call of the operator has the same timeout, so ``_calls`` (in start order) is
        in deadline order too: one timer for the oldest call replaces a timer per call.
        """
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._expiry_timer = None
        expired = []
        for entry, (task, deadline) in self._calls.items():
            if deadline > now:
                self._expiry_timer = loop.call_at(deadline, self._expire_calls)
                break
            if entry not in self._expired:
                expired.append((entry, task))
        for entry, task in expired:
            self._expired.add(entry)
            task.cancel()

    async def _call_once(self, entry: RecordEntry) -> None:
        try:
            result = await self.invoke(entry.request)
        except asyncio.CancelledError:
            if entry not in self._expired:
                self._calls.pop(entry, None)
                raise
            outcome = (entry, _TIMEOUT, None, 1)
        except Exception as error:  # noqa: BLE001 - any error of the call is the record's outcome
            outcome = (entry, _ERROR, error, 1)
        else:
            outcome = (entry, _RESULT, result, 1)
        self._forget_call(entry)
        self._deliver(outcome)

    async def _call_with_retries(self, entry: RecordEntry) -> None:
        retry = self.settings.retry
        predicate = retry.result_predicate
        attempts = 0
        try:
            while True:
                attempts += 1
                try:
                    result = await self.invoke(entry.request)
                except Exception as error:  # noqa: BLE001 - any error of the call is the record's outcome
                    if not (retry.on_error and retry.can_retry(attempts)):
                        outcome = (entry, _ERROR, error, attempts)
                        break
                else:
                    try:
                        again = predicate is not None and retry.can_retry(attempts) and predicate(entry.value, result)
                    except Exception as error:  # noqa: BLE001 - a failing predicate is a pipeline bug
                        outcome = (entry, _BROKEN, error, attempts)
                        break
                    if not again:
                        outcome = (entry, _RESULT, result, attempts)
                        break
                await asyncio.sleep(retry.delay_after(attempts))
        except asyncio.CancelledError:
            if entry not in self._expired:
                self._calls.pop(entry, None)
                raise
            outcome = (entry, _TIMEOUT, None, attempts)
        self._forget_call(entry)
        self._deliver(outcome)

    def _forget_call(self, entry: RecordEntry) -> None:
        del self._calls[entry]
        if self._expired:
            self._expired.discard(entry)

    def _deliver(self, outcome: tuple) -> None:
        """Hand an outcome to the mailbox thread: one mail per batch of completions."""
        try:
            if not self.completion_batching:
                self._executor.execute(lambda: self._apply([outcome]), "async completion")
                return
            with self._inbox_lock:
                self._inbox.append(outcome)
                if self._mail_scheduled:
                    return
                self._mail_scheduled = True
            self._executor.execute(self._on_completions, "async completions")
        except MailboxClosedError:
            pass  # the subtask ended; its state says what to re-issue

    # -- reporting ---------------------------------------------------------------------------
    @property
    def in_flight(self) -> int:
        """Records in the queue: in flight, or completed and waiting to be emitted."""
        return self.queue.records

    def metrics(self) -> dict:
        return {"async": {self.node_id: {**self.counters, "wait_ms": round(self.counters["wait_ms"], 1),
                                         "in_flight": self.queue.records, "pending": len(self.pending)}}}


class AsyncFunctionOperator(AsyncWaitOperator):
    """An async operator around a Python coroutine function (the engine's Python API and tests).

    ``function(x)`` is awaited per record; by default its result is the output record, or
    ``result(x, r)`` builds it. ``retry_if(x, r)`` is the result predicate. The shared
    parameters (capacity, timeout, ...) come from the node's params as for every async
    operator::

        AsyncFunctionOperator(node, context, function=fetch_profile, result=lambda x, r: {**x, "p": r})
    """

    def __init__(self, node: dict, context, *, function: Callable[[Any], Awaitable[Any]],
                 result: Callable[[Any, Any], Any] | None = None,
                 retry_if: Callable[[Any, Any], bool] | None = None):
        self.function = function
        self._result = result
        self._retry_if = retry_if
        super().__init__(node, context)

    def retry_predicate(self):
        return self._retry_if

    async def invoke(self, request):
        return await self.function(request)

    def result_record(self, x, result):
        return result if self._result is None else self._result(x, result)


def async_function(function: Callable[[Any], Awaitable[Any]], **options: Any) -> Callable:
    """A factory ``(node, context) -> operator`` for ``OPERATOR_FACTORIES``-style wiring."""
    def factory(node: dict, context) -> AsyncFunctionOperator:
        return AsyncFunctionOperator(node, context, function=function, **options)

    return factory
