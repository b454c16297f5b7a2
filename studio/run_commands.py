"""Commands from the studio to a run's driver, through a Redis list per run.

A list (not pub/sub) keeps a command until the driver takes it, so a cancel sent while
the driver is still starting is not lost.
"""
from __future__ import annotations

import json
from typing import Any

import redis
from django.conf import settings


def command_key(run_id: int) -> str:
    return f"studio:run:{run_id}:commands"


def send_command(run_id: int, command: dict[str, Any]) -> None:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        client.rpush(command_key(run_id), json.dumps(command))
        client.expire(command_key(run_id), 7 * 24 * 3600)
    finally:
        client.close()
