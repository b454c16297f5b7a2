"""Commands from the studio to a run's driver, through a Redis list per run.

A list (not pub/sub) keeps a command until the driver takes it, so a cancel sent while
the driver is still starting is not lost. The key names the run *and* when it was
created: run ids can come back (SQLite reuses the highest id after a delete), and a new
run must never take an old run's unread command. The driver deletes its list when it exits.
"""
from __future__ import annotations

import json
from typing import Any

import redis
from django.conf import settings

KEY_TTL_S = 7 * 24 * 3600
TIMEOUT_S = 2.0  # a Redis that hangs must fail a command call, not hold it (and its transaction)


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
