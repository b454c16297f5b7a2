"""What the studio and its session driver share through Redis: the driver's presence and its launches.

The session driver (``studio.runs.session_driver``) holds one Spark application that many
runs share. While it serves, it keeps :func:`announce`-ing itself under a key that expires
(``PRESENCE_TTL_S``), with what the studio shows of it: its application, its slots in use,
its runs and its memory. A launch (``studio.runs.tasks``) hands a run placed in the session
to it with :func:`hand_over` (the run id and its fencing token on a list the driver pops);
the run is then the session driver's, which reports for it with that token, as a run's own
driver does. Keys are named after the studio's Celery queue, so studios sharing one Redis
(test processes) keep their sessions apart.
"""
from __future__ import annotations

import json

import redis
from django.conf import settings

PRESENCE_TTL_S = 30
"""Long beside the 2 s between announcements: a session driver busy starting a hundred runs at once on a
loaded machine (load 76-100 on 2 cores) announced less often than every 10 s, its presence expired, and
runs started meanwhile were placed in drivers of their own (a JVM each, which loaded the machine more)
and its live runs judged by their heartbeats alone. One that stops cleanly withdraws at once; one that
dies is started again by the supervisor, and takes its runs back."""


def _key(name: str) -> str:
    return f"studio:{settings.CELERY_TASK_DEFAULT_QUEUE}:session-driver:{name}"


def launches_key() -> str:
    return _key("launches")


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


def announce(presence: dict) -> None:
    """The session driver serves: ``presence`` is what the studio shows of it (kept ``PRESENCE_TTL_S``)."""
    _client().set(_key("presence"), json.dumps(presence), ex=PRESENCE_TTL_S)


def withdraw() -> None:
    """The session driver stops serving (it ends cleanly): no launch goes to it any more."""
    _client().delete(_key("presence"))


def presence() -> dict | None:
    """What the serving session driver last said of itself, or None when none serves (or Redis is down)."""
    try:
        return read_presence()
    except redis.RedisError:
        return None


def read_presence() -> dict | None:
    """:func:`presence`, raising ``redis.RedisError`` when it cannot be read: for whoever must tell "no session
    driver serves" from "not known now" (the heartbeat check, ``studio.runs.liveness``)."""
    raw = _client().get(_key("presence"))
    return json.loads(raw) if raw else None


def hand_over(run_id: int, token: str, resume_cause: str | None = None, *, launch: bool = False) -> None:
    """Give run ``run_id`` (its fencing token ``token`` written to the row) to the session driver.
    ``resume_cause``: the run ran before, in a session driver that was lost (why): it goes on from
    its latest completed checkpoint. ``launch``: the run is CREATED, handed over by its start
    (``studio.runs.placement.send_to_session``, maybe before its transaction committed): the session
    driver claims and plans it, as ``launch_run`` does."""
    _client().rpush(launches_key(), json.dumps({"run_id": run_id, "token": token, "resume": resume_cause,
                                                "launch": launch}))


def take_launch(client: redis.Redis, timeout_s: float) -> tuple[int, str, str | None, bool] | None:
    """The next run handed over (id, token, resume cause, whether it is to be claimed and planned first), or
    None after ``timeout_s`` (the session driver's loop)."""
    item = client.blpop([launches_key()], timeout=timeout_s)
    if item is None:
        return None
    launch = json.loads(item[1])
    return int(launch["run_id"]), str(launch["token"]), launch.get("resume"), bool(launch.get("launch"))
