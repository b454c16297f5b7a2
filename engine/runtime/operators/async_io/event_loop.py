"""The asyncio event loop thread of a subtask, shared by its async operators.

A subtask (one mailbox thread) that has async operators gets exactly one more thread:
an asyncio event loop on which the operators' calls run as coroutines. It starts when the
first async operator of the subtask opens and stops when the last one closes. Operators
hand work to it with ``call_soon`` / ``submit`` (thread-safe); the loop hands results
back by putting mails into the subtask's mailbox. The loop never touches operator state.

Subtasks are told apart by their mailbox executor (one per StreamTask, shared by the
operators of its chain), so two subtasks of one slot -- or an old and a restarted
attempt of the same subtask -- never share a loop.

Threading model: ``acquire`` and ``release`` may be called from any thread (the registry
is locked); ``call_soon`` and ``submit`` from any thread; the coroutines run on the loop
thread.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from typing import Any, Callable, Coroutine

logger = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0


class TaskEventLoop:
    """One event loop thread, reference counted by the async operators of one subtask."""

    _registry: dict[int, "TaskEventLoop"] = {}  # guarded by: _registry_lock; id(owner) -> loop
    _registry_lock = threading.Lock()

    def __init__(self, owner: object, name: str):
        self.owner = owner
        self.name = name
        self.users = 0  # guarded by: TaskEventLoop._registry_lock
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=f"async-io {name}", daemon=True)
        self._thread.start()

    # -- sharing -----------------------------------------------------------------------
    @classmethod
    def acquire(cls, owner: object, name: str) -> "TaskEventLoop":
        """The loop of ``owner`` (the subtask's mailbox executor), started on first use."""
        with cls._registry_lock:
            found = cls._registry.get(id(owner))
            if found is None or found.owner is not owner:
                found = cls._registry[id(owner)] = cls(owner, name)
            found.users += 1
            return found

    def release(self) -> None:
        """One operator is done with the loop; the last one stops it."""
        with self._registry_lock:
            self.users -= 1
            if self.users > 0:
                return
            if self._registry.get(id(self.owner)) is self:
                del self._registry[id(self.owner)]
        self._stop()

    @classmethod
    def running_loops(cls) -> int:
        """How many subtask loops exist now (tests check that closing stops them)."""
        with cls._registry_lock:
            return len(cls._registry)

    # -- handing over work (any thread) ---------------------------------------------------
    def call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop thread."""
        self.loop.call_soon_threadsafe(callback, *args)

    def submit(self, coroutine: Coroutine) -> concurrent.futures.Future:
        """Run ``coroutine`` on the loop; the returned future may be waited for from another thread."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def run(self, coroutine: Coroutine, timeout: float = STOP_TIMEOUT_S) -> Any:
        """Run ``coroutine`` on the loop and wait for its result (setup and teardown only)."""
        return self.submit(coroutine).result(timeout)

    # -- the thread --------------------------------------------------------------------------
    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            leftover = [task for task in asyncio.all_tasks(self.loop) if not task.done()]
            for task in leftover:
                task.cancel()
            if leftover:
                self.loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()

    def _stop(self) -> None:
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:  # already closed
            return
        if self._thread is not threading.current_thread():
            self._thread.join(STOP_TIMEOUT_S)
            if self._thread.is_alive():
                logger.warning("the event loop thread %s did not stop within %s s", self.name, STOP_TIMEOUT_S)
