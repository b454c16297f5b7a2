"""One thread taking the commands of every run a driver process drives (``studio.runs.commands``' lists).

A run's driver waited on its run's command list with a blocking pop of a second, on a thread
of its own: a session driver with a hundred runs held a hundred such threads, a hundred Redis
connections and a hundred pops a second. :class:`CommandFollower` pops from the lists of all its
runs at once (one ``BLPOP`` names many keys) on one thread and hands each command to its
run's handler, in the order the run's commands were sent. Adding a run wakes the pop at once
(a key of the follower's own), so a cancel sent while a run starts is taken as soon as it runs.

A run handed back to the session driver that drives it (``studio.runs.liveness``) has two driver threads
there a while, the fenced one ending its job and the later one, both following the run's list in whichever
order they got there: a command goes to the one holding the run's token now.

Threading model: ``add`` and ``remove`` from any thread (the handlers under the lock); the
handlers run on the follower's thread, one command at a time: a handler only asks the run's
job (cancel, trigger a savepoint, open a tap), it never waits for it.
"""
from __future__ import annotations

import json
import logging
import threading
import uuid
from typing import Callable

logger = logging.getLogger(__name__)

POP_TIMEOUT_S = 1


class CommandFollower:
    """Takes the commands of the runs added to it; see the module docstring."""

    def __init__(self):
        self._lock = threading.Lock()
        # guarded by: self._lock; by key, in the order they were added: (run id, driver token, handler)
        self._handlers: dict[str, list[tuple[int, str | None, Callable[[dict], None]]]] = {}
        self._thread: threading.Thread | None = None  # guarded by: self._lock
        self._wake_key = f"studio:command-follower:{uuid.uuid4().hex}:wake"

    def add(self, run_id: int, key: str, handler: Callable[[dict], None], token: str | None = None) -> None:
        """Take the commands of run ``run_id`` from its list ``key`` with ``handler`` from now on; ``token``: the
        driver token it holds the run with (a command goes to the handler of the run's token now)."""
        with self._lock:
            self._handlers.setdefault(key, []).append((run_id, token, handler))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._follow_forever, name="commands", daemon=True)
                self._thread.start()
        try:
            self._client().pipeline(transaction=False).rpush(self._wake_key, "1").expire(self._wake_key, 60).execute()
        except Exception:  # Redis restarting: the pop names the key within a second all the same
            pass

    def remove(self, key: str, handler: Callable[[dict], None] | None = None) -> bool:
        """Stop taking the commands of ``key`` with ``handler`` (None: with any). True when nobody follows the key
        any more (a run handed back to the driver that drives it is followed by its later driver thread too:
        its list is not to be dropped)."""
        with self._lock:
            left = [entry for entry in self._handlers.get(key, ()) if handler is not None and entry[2] is not handler]
            if left:
                self._handlers[key] = left
            else:
                self._handlers.pop(key, None)
            return not left

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._handlers)

    @staticmethod
    def _client():
        import redis
        from django.conf import settings

        return redis.Redis.from_url(settings.REDIS_URL)

    def _follow_forever(self) -> None:
        import redis

        client = self._client()
        while True:
            keys = self.keys()
            try:
                item = client.blpop([self._wake_key, *keys], timeout=POP_TIMEOUT_S)
            except redis.RedisError:
                threading.Event().wait(1)  # Redis restarting: commands wait in their lists until it is back
                continue
            if item is None:
                continue
            key, raw = item[0].decode(), item[1]
            if key == self._wake_key:
                continue
            run_id, handler = self._handler(key)
            if handler is None:  # the run ended meanwhile: its driver drops the list
                continue
            try:
                handler(json.loads(raw))
            except Exception:
                logger.exception("run %s: command %r failed", run_id, raw)

    def _handler(self, key: str) -> tuple[int | None, Callable[[dict], None] | None]:
        """Who takes a command of ``key`` now: its only handler, or of several the one of the run's token."""
        with self._lock:
            entries = list(self._handlers.get(key, ()))
        if len(entries) <= 1:
            return (entries[0][0], entries[0][2]) if entries else (None, None)
        from django.db import connection

        from studio.models import Run

        try:
            token = Run.objects.filter(pk=entries[0][0]).values_list("driver_token", flat=True).first()
        finally:
            connection.close()  # this thread seldom asks: it holds no connection between
        run_id, _, handler = next((entry for entry in entries if entry[1] == token), entries[-1])
        return run_id, handler


_follower: CommandFollower | None = None
_follower_lock = threading.Lock()


def command_follower() -> CommandFollower:
    """This process's follower (created when first asked for)."""
    global _follower
    with _follower_lock:
        if _follower is None:
            _follower = CommandFollower()
        return _follower
