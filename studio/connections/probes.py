"""Test connection: check an address against the user's grants, then reach the server, within seconds.

The grants come first, always: a test is the studio connecting somewhere on a user's behalf,
so an address no grant of theirs covers is never tried (no port scans through the studio).
The answer is data, never an exception: ``{"ok", "stage", "message", "elapsed_ms", "details"}``,
``stage`` saying how far it got: ``grants`` (refused before connecting), ``connect`` (the
server did not answer as it should) or ``done``.
"""
from __future__ import annotations

import time

from studio.location_policy import KAFKA, POSTGRES, REDIS, LocationRefused, resolve
from studio.locations import policy_for

TIMEOUT_S = 5


def test_connection(user, kind: str, address: str, secret: str = "") -> dict:
    """Whether ``user`` may reach ``address`` (a ``kind`` connection) and it answers."""
    started = time.monotonic()

    def answer(ok: bool, stage: str, message: str, **details) -> dict:
        if secret:
            message = message.replace(secret, "***")
        return {"ok": ok, "stage": stage, "message": message,
                "elapsed_ms": round((time.monotonic() - started) * 1000), "details": details}

    try:
        use = resolve(kind, address, policy_for(user))
    except LocationRefused as refused:
        return answer(False, "grants", f"not tried: {refused}")
    try:
        message, details = _PROBES[kind](use.value)
    except Exception as error:  # noqa: BLE001 - whatever the client library raises is the answer
        return answer(False, "connect", f"{type(error).__name__}: {error}".strip())
    return answer(True, "done", message, **details)


def _kafka(bootstrap: str) -> tuple[str, dict]:
    from engine.api import kafka_topics

    try:
        topics = kafka_topics(bootstrap)
    except ValueError as error:
        raise ConnectionError(str(error)) from None
    partitions = sum(len(topic["partitions"]) for topic in topics)
    return (f"reached the Kafka cluster: {len(topics)} topics, {partitions} partitions",
            {"topics": len(topics), "partitions": partitions})


def _redis(url: str) -> tuple[str, dict]:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S)
    try:
        info = client.info("server")
    finally:
        client.close()
    version = info.get("redis_version", "?")
    return f"Redis {version} answered", {"version": version}


def _postgres(dsn: str) -> tuple[str, dict]:
    import psycopg

    with psycopg.connect(dsn, connect_timeout=TIMEOUT_S, autocommit=True) as connection:
        version = connection.execute("show server_version").fetchone()[0]
        database = connection.info.dbname
    return f"PostgreSQL {version} answered, database {database}", {"version": version, "database": database}


_PROBES = {KAFKA: _kafka, REDIS: _redis, POSTGRES: _postgres}
