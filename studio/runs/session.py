"""What the studio and its session driver share through Redis: the driver's presence and its launches.

The session driver (``studio.runs.session_driver``) holds one Spark application that many
runs share. While it serves, it keeps :func:`announce`-ing itself under a key that expires
(``PRESENCE_TTL_S``), with what the studio shows of it: its application, its slots in use,
its runs and its memory. A launch (``studio.runs.tasks``) hands a run placed in the session
to it with :func:`hand_over` (the run id and its fencing token on a list the driver pops);
the run is then the session driver's, which reports for it with that token, as a run's own
driver does. Keys are named after the studio's Celery queue, so studios sharing one Redis
(test processes) keep their sessions apart.

One session driver serves a studio: it serves only while it holds the studio's session lease
(:class:`SessionLease`, a key taken with SET NX that only its holder renews), and it writes the
presence only while it holds it. Two serving at once would each take the runs back with tokens of
their own and run a job of each, the one fenced beside the other until its next heartbeat or event
finds it fenced. Its jobs complete no checkpoint meanwhile once its lease went unrenewed for
``studio.runs.fencing.CONFIRM_WINDOW_S`` (each renewal leaves a mark that lives that long): before
that, no other driver takes the runs back.
"""
from __future__ import annotations

import json
import time

import redis
from django.conf import settings

from studio.runs.fencing import CONFIRM_WINDOW_S

PRESENCE_TTL_S = 30
"""Long beside the 2 s between announcements: a session driver busy starting a hundred runs at once on a
loaded machine (load 76-100 on 2 cores) announced less often than every 10 s, its presence expired, and
runs started meanwhile were placed in drivers of their own (a JVM each, which loaded the machine more)
and its live runs judged by their heartbeats alone. One that stops cleanly withdraws at once; one that
dies is started again by the supervisor, and takes its runs back."""

assert PRESENCE_TTL_S > CONFIRM_WINDOW_S, "a lease taken once expired: its last holder completes no checkpoint any more"


def _key(name: str) -> str:
    return f"studio:{settings.CELERY_TASK_DEFAULT_QUEUE}:session-driver:{name}"


def launches_key() -> str:
    return _key("launches")


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


def announce(presence: dict) -> None:
    """Write ``presence`` as a serving session driver's, without its lease (a stand-in for one, in tests); a
    session driver announces itself through its :class:`SessionLease`, and only while it holds it."""
    _client().set(_key("presence"), json.dumps(presence), ex=PRESENCE_TTL_S)


def withdraw() -> None:
    """Forget whatever session driver was announced, its lease and renewal mark too, as if the lease had expired
    (tests; an operator evicting a driver known stopped: one that still runs finds its lease gone at its next
    renewal and stops its runs' jobs). To evict a driver that may still run, delete the lease key alone: its
    renewal mark keeps the next holder from taking runs back while it may still complete checkpoints."""
    _client().delete(_key("presence"), _key("lease"), _key("renewed"))


# KEYS: the lease, the presence, the renewal mark (set with every take and renewal, expiring the confirm
# window after it: while it lives, the last holder may still complete checkpoints, studio.runs.fencing)
_TAKE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then
  redis.call('DEL', KEYS[2])
  local left = redis.call('PTTL', KEYS[3])
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3])
  return {1, left}
end
return redis.call('GET', KEYS[1]) or 0
"""
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder ~= ARGV[1] then return holder or 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[4])
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3]) end
return 1
"""
_WITHDRAW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
if ARGV[2] == 'release' then redis.call('DEL', KEYS[1], KEYS[3]) end
return 1
"""


class SessionLease:
    """The studio's session lease as one session driver holds it: taken only when free (SET NX), renewed and
    released only by its holder (compare-and-set in a Lua script), expiring ``ttl_s`` after its last renewal.
    Its value says who holds it (``holder``: the driver's id, pid, host, since when), for the one refused.

    ``take`` and ``renew`` return None when this driver holds the lease, else who holds it: another
    driver's ``holder``, or ``{}`` when no one does (it expired, or was withdrawn). The presence (what the
    studio shows of the session, :func:`presence`) is written with each renewal, never without the lease.

    Each take and renewal also sets a renewal mark that lives ``confirm_window_s``: while it lives, the last
    holder may still complete checkpoints (``studio.runs.fencing``). Given up (``release``, its jobs ended)
    or evicted (its process gone) the mark goes with the lease; expired, the lease outlived it; gone early
    from a live holder (the key deleted by hand, or evicted by a Redis short of memory), the mark is left,
    and a ``take`` says in ``predecessor_may_commit_s`` how long it lives on.
    """

    def __init__(self, holder: dict, ttl_s: float = PRESENCE_TTL_S, confirm_window_s: float = CONFIRM_WINDOW_S):
        self.holder = holder
        self.ttl_s = ttl_s
        self.confirm_window_s = confirm_window_s
        self.predecessor_may_commit_s = 0.0
        """Set by a successful ``take``: how long the previous holder may still complete checkpoints (its last
        renewal is that much short of the confirm window old); runs are taken back only after it."""
        self._value = json.dumps(holder, sort_keys=True)
        self._redis = _client()
        self._keys = [_key("lease"), _key("presence"), _key("renewed")]

    def take(self) -> dict | None:
        answer = self._redis.eval(_TAKE, 3, *self._keys, self._value, int(self.ttl_s), self._window_ms)
        if isinstance(answer, list):  # taken: [1, milliseconds the last holder's renewal mark lives on]
            self.predecessor_may_commit_s = max(0, int(answer[1])) / 1000
            return None
        return self._answer(answer)

    def renew(self, presence: dict | None = None) -> dict | None:
        """Renew the lease; with ``presence`` (its ``driver`` set to the holder's id), announce it too."""
        announced = json.dumps({**presence, "driver": self.holder.get("driver")}) if presence is not None else ""
        return self._answer(self._redis.eval(_RENEW, 3, *self._keys, self._value, announced, int(self.ttl_s),
                                             self._window_ms))

    @property
    def _window_ms(self) -> int:
        return max(1, int(self.confirm_window_s * 1000))

    def withdraw(self) -> None:
        """Stop announcing (no launch comes any more) but keep the lease: this driver's jobs still end."""
        self._redis.eval(_WITHDRAW, 3, *self._keys, self._value, "")

    def evict(self, holder: dict) -> bool:
        """Take the lease from ``holder`` (as ``take`` returned it) known dead: True when this driver holds it now.
        Nothing is taken from a holder that renewed or changed meanwhile."""
        if self._redis.eval(_WITHDRAW, 3, *self._keys, json.dumps(holder, sort_keys=True), "release") != 1:
            return False
        return self.take() is None

    def release(self) -> None:
        """Give the lease up (and the presence), if this driver still holds it: its jobs have ended."""
        self._redis.eval(_WITHDRAW, 3, *self._keys, self._value, "release")

    def _answer(self, answer) -> dict | None:
        if answer == 1:
            return None
        try:
            return json.loads(answer) if isinstance(answer, bytes) else {}
        except ValueError:
            return {"driver": answer.decode(errors="replace")}


def lease_holder() -> dict | None:
    """Who holds the studio's session lease now (its ``holder``), or None."""
    raw = _client().get(_key("lease"))
    return json.loads(raw) if raw else None


def describe_holder(holder: dict) -> str:
    """A lease holder as a log line names it."""
    if not holder:
        return "no session driver (the lease expired or was withdrawn)"
    since = holder.get("since")
    when = time.strftime("%H:%M:%S UTC", time.gmtime(since)) if isinstance(since, (int, float)) else "?"
    return (f"session driver {holder.get('driver', '?')} (pid {holder.get('pid', '?')} on "
            f"{holder.get('host', '?')}, since {when})")


def presence() -> dict | None:
    """What the serving session driver last said of itself, or None when none serves (or Redis is down)."""
    try:
        return read_presence()
    except redis.RedisError:
        return None


def presence_once_started(timeout_s: float, poll_s: float = 0.25) -> dict | None:
    """The serving session driver's presence, waiting up to ``timeout_s`` while a session driver holds the lease
    without announcing itself yet (it is starting: its Spark session and executors coming up); None at once when
    no driver holds the lease, or when Redis cannot be read."""
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            serving = read_presence()
            if serving is not None or lease_holder() is None or time.monotonic() >= deadline:
                return serving
            time.sleep(poll_s)
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
