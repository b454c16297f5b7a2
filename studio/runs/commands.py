"""Commands from the studio to a run's driver, through a Redis list per run.

A list (not pub/sub) keeps a command until the driver takes it, so a cancel sent while
the driver is still starting is not lost. The key names the run *and* when it was
created: run ids can come back (SQLite reuses the highest id after a delete), and a new
run must never take an old run's unread command. The driver deletes its list when it exits.

The driver itself executes cancel, savepoint and stop; a feature adds commands of its own
with ``register_driver_command`` in its ``AppConfig.ready()`` (taps: tap_open, tap_close).
"""
from __future__ import annotations

import json
from typing import Any, Callable

import redis
from django.conf import settings

KEY_TTL_S = 7 * 24 * 3600
TIMEOUT_S = 2.0  # a Redis that hangs must fail a command call, not hold it (and its transaction)
BUILT_IN_COMMANDS = frozenset({"cancel", "savepoint", "stop"})

DriverCommand = Callable[[dict, int, Any], None]
"""``handler(command, run_id, job_master)``: executes one command in a run's driver, on its command thread."""

_driver_commands: dict[str, DriverCommand] = {}


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S)


def command_key(run) -> str:
    """The list of ``run`` (a Run; anything with ``id`` and ``created_at``)."""
    return f"studio:run:{run.id}:{int(run.created_at.timestamp() * 1_000_000)}:commands"


def send_command(run, command: dict[str, Any]) -> None:
    """Queue ``command`` for the run's driver; raises ``redis.RedisError`` when Redis cannot take it."""
    client = _client()
    try:
        key = command_key(run)
        with client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, json.dumps(command)).expire(key, KEY_TTL_S).execute()
    finally:
        client.close()


def drop_commands(run) -> None:
    """Forget the run's unread commands (its driver has exited)."""
    client = _client()
    try:
        client.delete(command_key(run))
    finally:
        client.close()


def register_driver_command(name: str, handler: DriverCommand) -> None:
    """Let every run's driver execute ``{"command": name, ...}`` with ``handler``.

    Called from ``AppConfig.ready()``, which runs in driver processes too (they set Django up)."""
    if name in BUILT_IN_COMMANDS:
        raise ValueError(f"{name!r} is a command the driver executes itself")
    _driver_commands[name] = handler


def driver_command(name: str) -> DriverCommand | None:
    """The handler a feature registered for ``name``, or None."""
    return _driver_commands.get(name)
