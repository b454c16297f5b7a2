"""Cached answers: the rendered body of a busy GET, kept in Redis under the change tokens it was built from.

A run's page polls ``/api/runs/<id>``, its checkpoints and its pipeline's run list while the
run checkpoints; building those answers (queries, serializers, JSON) costs several
milliseconds of CPU each, and most polls find nothing changed. So the views keep each
rendered 200 answer in Redis, keyed by what it shows: the view, the ids, the query
parameters that change it, and the change tokens of the rows it was built from
(``studio.change_tokens``). A repeated GET of unchanged data then costs the authorization
query (which reads the tokens too) and one Redis round trip, or none when this worker
process served the same answer a moment ago (up to ``LOCAL_BYTES`` of answers are kept in
each process too: a key names one state, so a kept answer is never stale).

Rules, in the order a request meets them:

- **Authorization first, every time.** The view reads the user's permissions and the
  tokens in one query (``studio.access.access_to_run`` / ``access_to_pipeline``); only a
  user who may view the object reaches the cache. Anyone else takes the uncached path,
  which answers as before (404, 403 or an empty list). Cached bodies hold nothing
  user-specific: everyone who may view a run sees the same answer.
- **Never stale.** The tokens are read before the body is built, and every write to what
  the body shows moves them in the write's own transaction. A body built after a change
  but filed under the tokens read before it is only newer than its key; the next request
  reads the new tokens and misses.
- **Redis is optional.** When Redis does not answer, answers are built as if nothing were
  cached (and Redis is not asked again for ``RETRY_AFTER_S``). Entries expire after
  ``TTL_S``; tokens are random, so an old entry can never match a later state.
- **Bounded keys.** Only query parameters that change the answer go into the key, each in
  canonical form (``?limit=010`` is not cached), so clients cannot fill Redis with
  spellings of one answer.

Every 200 answer carries an ``ETag`` (a hash of its body) and ``Cache-Control: private,
no-cache`` (a browser may keep it but asks again each time; a shared cache must not keep
it); a GET with a matching ``If-None-Match`` gets ``304 Not Modified`` without the body.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Callable

import redis
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.http import parse_etags
from rest_framework.response import Response

from studio.request_redis import RequestRedis

KEY_PREFIX = "studio:answer:"
TTL_S = 120
TIMEOUT_S = 0.1
RETRY_AFTER_S = 1.0
MAX_BODY_BYTES = 4 * 2**20
"""Larger answers (a history of 1,000 checkpoints is about 400 KB) are built each time, not kept."""
LOCAL_BYTES = 32 * 2**20
FLIGHT_WAIT_S = 10.0

_redis = RequestRedis(TIMEOUT_S, RETRY_AFTER_S)


def canonical_int(value: str | None) -> bool:
    """Whether a query parameter is absent or an integer spelled the one way ``str(int)`` spells it."""
    return value is None or value == "0" or (value.isdigit() and value.isascii() and value[0] != "0")


def key_for(*parts) -> str:
    """The Redis key of the answer identified by ``parts`` (view name, ids, parameters, change tokens)."""
    return KEY_PREFIX + hashlib.sha256(repr(parts).encode()).hexdigest()


class Entry:
    """A rendered 200 answer: its body, content type and ETag."""

    __slots__ = ("body", "content_type", "etag")

    def __init__(self, body: bytes, content_type: str, etag: str | None = None):
        self.body = body
        self.content_type = content_type
        self.etag = etag or '"' + hashlib.sha256(body).hexdigest()[:32] + '"'

    def dumps(self) -> bytes:
        return f"{self.etag}\n{self.content_type}\n".encode() + self.body

    @classmethod
    def loads(cls, data: bytes) -> "Entry":
        etag, content_type, body = data.split(b"\n", 2)
        return cls(body, content_type.decode(), etag.decode())


class LocalEntries:
    """The answers this process used last, at most ``maximum_bytes`` of bodies (least recently used
    dropped first).

    Threading model: request threads share it; ``_entries`` and ``_bytes`` are guarded by ``_lock``."""

    def __init__(self, maximum_bytes: int):
        self.maximum_bytes = maximum_bytes
        self._entries: OrderedDict[str, Entry] = OrderedDict()  # guarded by: self._lock
        self._bytes = 0  # guarded by: self._lock
        self._lock = threading.Lock()

    def get(self, key: str) -> "Entry | None":
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: "Entry") -> None:
        with self._lock:
            previous = self._entries.pop(key, None)
            self._bytes += len(entry.body) - (len(previous.body) if previous else 0)
            self._entries[key] = entry
            while self._bytes > self.maximum_bytes:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped.body)


_local = LocalEntries(LOCAL_BYTES)


class Flight:
    """One answer being fetched or built in this process; requests for the same key wait for it."""

    def __init__(self):
        self.done = threading.Event()
        self.entry: Entry | None = None
        self.waiters = 0  # guarded by: _flights_lock


_flights: dict[str, Flight] = {}  # guarded by: _flights_lock
_flights_lock = threading.Lock()


def cached_answer(view, request, parts: tuple, build: Callable[[], Response]):
    """The answer ``build()`` gives, from the cache under ``parts`` when it is there.

    Call it only after checking the user may view what ``parts`` names; ``parts`` must hold
    the change tokens read (with that check) before ``build`` runs. ``build`` answers as the
    view would without a cache; its 200s are rendered, kept and returned with an ETag, and
    anything else is returned as it is.

    One request per key and process fetches or builds; others that ask for the same key
    meanwhile wait for its answer (at most ``FLIGHT_WAIT_S``), rather than each building it
    again: right after a change every poll misses at once, and on a busy machine building
    is slow, so without this the builds would pile up exactly when CPU is short.
    """
    key = key_for(*parts)
    entry = _local.get(key)
    if entry is not None:
        return _respond(request, entry)
    with _flights_lock:
        flight = _flights.get(key)
        leading = flight is None
        if leading:
            flight = _flights[key] = Flight()
        else:
            flight.waiters += 1
    if not leading:
        flight.done.wait(FLIGHT_WAIT_S)
        if flight.entry is not None:
            return _respond(request, flight.entry)
        return _fetch_or_build(view, request, key, build)  # the first one's answer was no 200: ours may be
    try:
        answer = _fetch_or_build(view, request, key, build)
        flight.entry = answer if isinstance(answer, Entry) else None
    finally:
        with _flights_lock:
            del _flights[key]
        flight.done.set()
    return _respond(request, answer) if isinstance(answer, Entry) else answer


def _fetch_or_build(view, request, key: str, build: Callable[[], Response]) -> "Entry | Response":
    """The entry from Redis, or else built and kept; a response that is no 200 as it is."""
    client = _redis.client()
    if client is not None:
        try:
            data = client.get(key)
            if data:
                entry = Entry.loads(data)
                _local.put(key, entry)
                return entry
        except redis.RedisError:
            _redis.failed()
            client = None
    response = build()
    if not isinstance(response, Response) or response.status_code != 200 or response.exception:
        return response
    entry = _render(view, request, response)
    if len(entry.body) <= MAX_BODY_BYTES:
        _local.put(key, entry)
        if client is not None:
            try:
                client.set(key, entry.dumps(), ex=TTL_S)
            except redis.RedisError:
                _redis.failed()
    return entry


def _render(view, request, response: Response) -> Entry:
    """Render a view's 200 as DRF would after the view returned it."""
    response.accepted_renderer = request.accepted_renderer
    response.accepted_media_type = request.accepted_media_type
    response.renderer_context = view.get_renderer_context()
    body = response.rendered_content  # also sets the Content-Type header
    return Entry(body, response["Content-Type"])


def _respond(request, entry: Entry) -> HttpResponse:
    wanted = {tag.removeprefix("W/") for tag in parse_etags(request.META.get("HTTP_IF_NONE_MATCH", ""))}
    if entry.etag in wanted or "*" in wanted:  # If-None-Match compares weakly (RFC 9110, 13.1.2)
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(entry.body, content_type=entry.content_type)
    response["ETag"] = entry.etag
    response["Cache-Control"] = "private, no-cache"
    return response
