"""``source.redis_stream`` and ``sink.redis_stream``: Redis Streams in and out.

Source
    A stream is a single split ``{"stream", "last_id", "end_id"}`` in operator list state,
    read by one subtask (the others have no split and end at once). Each poll is a
    non-blocking ``XREAD COUNT batch_size`` after ``last_id``; an empty answer suspends the
    subtask instead of blocking its mailbox thread (which would delay checkpoints) until an
    :class:`EntryWaiter` -- a thread of the source's own, blocked in ``XREAD BLOCK`` after
    ``last_id`` on a connection of its own -- sees an entry arrive and resumes it: an entry
    is read as soon as Redis has it, and an idle stream costs a blocked read per
    ``WAIT_BLOCK_MS`` in that thread and nothing in the mailbox thread. (Before, the subtask
    polled again on a timer, 1 ms after a poll that had entries, doubling up to 50 ms while
    the stream stayed empty: an entry arriving after a pause of the producer waited for the
    grown back-off. A consumer group's source still does: a blocking ``XREADGROUP`` would
    take the entries it waits for.) ``last_id`` is the checkpointed offset: after a restore the
    source continues right after the last entry the checkpoint covers. ``bounded`` fixes
    ``end_id`` to the stream's last entry when the job first started. Reading starts after
    ``"0-0"`` (the whole stream); ``source.hybrid`` passes its ``start_id`` instead, where
    ``"$"`` stands for the stream's last entry at the first start.

Sink (``delivery: at_least_once``; the exactly-once one is in ``redis_exactly_once``)
    One call per batch (up to ``APPEND_CHUNK`` records): a script that ``XADD``s each of its
    arguments in order and answers with their count. At 100k events/s, packing one ``XADD``
    per record into a pipeline and reading back one entry id per record was most of the job
    (py-spy: the sink's ``process_batch`` 522 of 914 samples); one command and one integer
    reply per batch cost the client ~1.6 instead of ~5 CPU-µs per record. Where the server
    refuses scripts (``EVAL`` not permitted, or not a command of a Redis-like server) the sink
    says so once in its log and appends one pipelined ``XADD`` per record instead.
    At-least-once: after a restore, the entries written since the last checkpoint are written
    again.

Entries and records: the sink writes ``{"value": json(record)}``; the source turns an
entry with just a ``value`` field back into the record and any other entry into a dict
of its fields (strings). The Redis URL is the ``url`` parameter, else the runtime's
``redis_url`` configuration, else ``REDIS_URL``, else ``redis://127.0.0.1:6379/0``.

Restored state is data: a restored split is read only when it names the node's own
stream and its ids are stream ids (``restored_stream_splits``); otherwise the snapshot is
refused, naming the node.
"""
from __future__ import annotations

import bisect
import json
import logging
import os
import re
import threading

import msgspec

from engine.runtime.operators.base import ConfigurationError, StreamOperator
from engine.runtime.operators.restored_state import require, restored_dicts
from engine.runtime.operators.source import END_OF_INPUT, IdleBackoff, SourceOperator
from engine.runtime.operators.source_lag import split_lag

logger = logging.getLogger(__name__)


def redis_url(params: dict, config: dict) -> str:
    return params.get("url") or config.get("redis_url") or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def _connect(url: str):
    import redis

    return redis.Redis.from_url(url, decode_responses=True)


def checked_client(node: dict, url: str):
    """A client that answered PING, or a ConfigurationError naming the node and the server."""
    import redis

    client = _connect(url)
    try:
        client.ping()
    except redis.RedisError as error:
        client.close()
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        raise ConfigurationError(node, f"cannot reach Redis at {parts.hostname}:{parts.port or 6379}: {error}"
                                 ) from None
    return client


_STREAM_ID = re.compile(r"\d{1,20}-\d{1,20}")


def restored_stream_splits(source, name: str, **expected) -> list[dict]:
    """The splits of a stream source's list state ``name`` after a restore, each checked: its ``stream`` is the
    node's own, ``last_id`` a stream id (or ``$``, not resolved yet), ``end_id`` one or None, and every other
    key in ``expected`` has a value for which ``expected[key](value)`` holds."""
    splits = restored_dicts(source.node, source.context, name, source._state.get())
    for split in splits:
        last_id, end_id = split.get("last_id"), split.get("end_id")
        require(split.get("stream") == source.stream
                and isinstance(last_id, str) and (last_id == "$" or _STREAM_ID.fullmatch(last_id) is not None)
                and (end_id is None or isinstance(end_id, str) and _STREAM_ID.fullmatch(end_id) is not None)
                and all(check(split.get(key)) for key, check in expected.items()),
                source.node, source.context, f"holds the split {split!r:.200}, which is not one of the stream "
                                             f"{source.stream} this source reads")
    return splits


def stream_id(text: str) -> tuple[int, int]:
    """A stream entry id ``"ms-seq"`` as a comparable tuple."""
    milliseconds, _, sequence = text.partition("-")
    return int(milliseconds), int(sequence or 0)


def entry_record(fields: dict):
    if set(fields) == {"value"}:
        try:
            return json.loads(fields["value"])
        except ValueError:
            return fields["value"]
    return dict(fields)


_decode_value = msgspec.json.Decoder().decode

encode_record = json.JSONEncoder(default=str).encode
"""``json.dumps(record, default=str)``, without the encoder that each such call builds anew."""


def entry_records(entries: list) -> list:
    """``entry_record`` of each ``(id, fields)`` entry, a batch at a time: where every entry
    holds just a ``value`` that msgspec decodes, msgspec mapped over the values (it takes
    no JSON that ``json.loads`` reads otherwise); else entry by entry."""
    try:
        if all(len(fields) == 1 for _, fields in entries):
            return list(map(_decode_value, [fields["value"] for _, fields in entries]))
    except (KeyError, msgspec.DecodeError):
        pass
    return [entry_record(fields) for _, fields in entries]


def entries_up_to(entries: list, end: tuple[int, int]) -> list:
    """The entries, in id order as XREAD gives them, whose id is at most ``end``: a prefix."""
    if not entries or stream_id(entries[-1][0]) <= end:
        return entries
    return entries[:bisect.bisect_right(entries, end, key=lambda entry: stream_id(entry[0]))]


COUNT_CHUNK = 1000
"""Entries per XRANGE while a backlog is counted entry by entry (once per reader, see ``StreamBacklog``)."""


class StreamBacklog:
    """How many entries of a stream come after a reader's position, at one ``XINFO STREAM`` per measurement.

    Redis counts the entries ever added to a stream (``entries-added``) but cannot say where an id
    stands among them, so the backlog is counted once (XRANGE after the position, in chunks) and
    then carried forward: the position's place is ``entries-added`` at that count minus the backlog
    counted, plus every entry read since (``read``). Where the answer is known outright it is
    taken as is and the place set again: nothing behind once the position is the stream's last id,
    the whole stream while the position is before its first entry. Entries deleted ahead of the
    reader make the carried figure an over-count, bounded by the stream's length. A bounded reader
    counts up to its end id only. Redis 6 has no ``entries-added``: its length stands in, which is
    the same for a stream nothing was deleted or trimmed from. Mailbox thread only.
    """

    def __init__(self):
        self._place: int | None = None  # entries added up to and including the position
        self._end_place: int | None = None  # the same for a bounded reader's end id

    def read(self, entries: int) -> None:
        """The reader emitted ``entries`` more."""
        if self._place is not None:
            self._place += entries

    def measure(self, client, stream: str, last_id: str, end_id: str | None = None) -> int:
        """Entries after ``last_id`` (up to ``end_id`` when bounded) in the stream now."""
        import redis

        try:
            info = client.xinfo_stream(stream)
        except redis.ResponseError:  # no such stream (yet): nothing to read
            return 0
        added, length = int(info.get("entries-added") or info["length"]), int(info["length"])
        if self._place is None or _is_end(last_id, info) or _is_before_first(last_id, info):
            self._place = added - count_after(client, stream, last_id, info)
        if end_id is not None:
            if self._end_place is None:
                self._end_place = added - count_after(client, stream, end_id, info)
            return max(0, min(length, self._end_place - self._place))
        return max(0, min(length, added - self._place))


def _is_end(position: str, info: dict) -> bool:
    return not info["length"] or stream_id(position) >= stream_id(info["last-generated-id"])


def _is_before_first(position: str, info: dict) -> bool:
    first = info.get("first-entry")
    return bool(first) and stream_id(position) < stream_id(first[0])


def count_after(client, stream: str, position: str, info: dict, limit: int | None = None) -> int | None:
    """Entries after ``position``: 0 at the end, the length before the first entry, else counted
    (None once more than ``limit`` were counted)."""
    if _is_end(position, info):
        return 0
    if _is_before_first(position, info):
        return int(info["length"])
    counted, cursor = 0, position
    while limit is None or counted <= limit:
        entries = client.xrange(stream, min=f"({cursor}", count=COUNT_CHUNK)
        counted += len(entries)
        if len(entries) < COUNT_CHUNK:
            return counted
        cursor = entries[-1][0]
    return None


WAIT_BLOCK_MS = 100
"""How long one blocked read of an :class:`EntryWaiter` lasts: an idle stream costs a round trip per this, and a
closed source's waiter ends within it."""


class EntryWaiter:
    """Blocks in ``XREAD BLOCK`` on a source's behalf while its subtask waits, and resumes the subtask when an
    entry arrives after the position it read up to.

    Threading model: ``wait_for`` and ``close`` are called by the source's mailbox thread; the waiter's own
    thread (a daemon, started at the first wait) blocks in Redis on a connection of its own and calls the
    callback. It reads with ``COUNT 1`` and hands nothing over: the subtask's next poll reads the entries, so
    the checkpointed position moves only in the mailbox thread. A callback may come twice or late (a wait
    replaced while a read was under way): it resumes a subtask that is not suspended any more, which does
    nothing. An error in Redis calls the callback too, so the subtask's poll meets the error.
    """

    def __init__(self, url: str, block_ms: int = WAIT_BLOCK_MS):
        self._url = url
        self._block_ms = block_ms
        self._changed = threading.Condition()
        self._request: tuple | None = None  # (stream, after id, callback); guarded by: self._changed
        self._closed = False  # guarded by: self._changed
        self._thread: threading.Thread | None = None

    def wait_for(self, stream: str, after_id: str, callback) -> None:
        """Call ``callback`` once ``stream`` has an entry after ``after_id`` (replacing any earlier wait)."""
        with self._changed:
            self._request = (stream, after_id, callback)
            self._changed.notify()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"redis-stream-waiter-{stream}", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Wait no more; the thread ends after its current blocked read."""
        with self._changed:
            self._closed, self._request = True, None
            self._changed.notify()

    def _run(self) -> None:
        import redis

        client = None
        try:
            while True:
                with self._changed:
                    while self._request is None and not self._closed:
                        self._changed.wait()
                    if self._closed:
                        return
                    request = self._request
                stream, after_id, callback = request
                try:
                    client = client or _connect(self._url)
                    arrived = bool(client.xread({stream: after_id}, count=1, block=self._block_ms))
                except redis.RedisError:
                    arrived = True  # the subtask's own poll meets it; the next wait connects again
                    if client is not None:
                        client.close()
                    client = None
                if arrived:
                    with self._changed:
                        if self._request is request:
                            self._request = None
                    try:
                        callback()
                    except Exception:  # a waiter that died would stall its source for good
                        logger.exception("resuming the source of %s failed", stream)
        finally:
            if client is not None:
                client.close()


class RedisStreamSource(SourceOperator):
    """Reads a Redis stream from its checkpointed last id."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.stream = self.params["stream"]
        self.url = redis_url(self.params, context.config)
        self.read_size = int(self.params.get("batch_size", 500))
        self.bounded = bool(self.params.get("bounded", False))
        self.splits: list[dict] = []
        self._state = None
        self._client = None
        self._backoff = IdleBackoff()
        self._backlog = StreamBacklog()
        self._waiter: EntryWaiter | None = None
        self._asked = self.read_size  # entries the last read asked for

    def _read_count(self) -> int:
        """Entries one read asks for: ``batch_size`` of the node, less while buffer debloating asks for less."""
        self._asked = self.read_size if self.context.poll_budget is None else min(self.read_size, self.batch_size)
        return self._asked

    def caught_up(self, records: int) -> bool:
        """A read that got fewer entries than it asked for (the node's ``batch_size``, 500 by default, not
        the subtask's) found the end of the stream; one that got them all may have more behind it."""
        return records < self._asked

    def initialize_state(self):
        self._state = self.context.operator_state().list_state("position")
        if self.context.is_restored:
            self.splits = restored_stream_splits(self, "position")
        elif self.context.subtask_index == 0:
            start = str(self.params.get("start_id") or "0-0")
            self.splits = [{"stream": self.stream, "last_id": start, "end_id": None}]

    def open(self):
        if not self.splits:
            return
        self._client = checked_client(self.node, self.url)
        for split in self.splits:
            if split["last_id"] == "$" or (self.bounded and split["end_id"] is None):
                last = self._client.xrevrange(split["stream"], count=1)
                last_id = last[0][0] if last else "0-0"
                if split["last_id"] == "$":  # "from now on", resolved once, then checkpointed
                    split["last_id"] = last_id
                if self.bounded and split["end_id"] is None:
                    split["end_id"] = last_id

    def poll_next(self):
        while self.splits:
            split = self.splits[0]
            if split["end_id"] is not None and stream_id(split["last_id"]) >= stream_id(split["end_id"]):
                self.splits.pop(0)
                continue
            answer = self._client.xread({split["stream"]: split["last_id"]}, count=self._read_count())
            entries = answer[0][1] if answer else []
            if split["end_id"] is not None:
                entries = entries_up_to(entries, stream_id(split["end_id"]))
            if not entries:
                return []
            split["last_id"] = entries[-1][0]
            self._backlog.read(len(entries))
            self._backoff.active()
            return entry_records(entries)
        return END_OF_INPUT

    def source_lag(self) -> list[dict]:
        """The stream's entries after the last one read (``StreamBacklog``); none once it ended."""
        return [split_lag(split["stream"], records_behind=self._backlog.measure(
            self._client, split["stream"], split["last_id"], split["end_id"])) for split in self.splits[:1]]

    def next_poll_delay(self) -> float:
        return self._backoff.idle()

    def when_readable(self, callback) -> bool:
        """The :class:`EntryWaiter` resumes the subtask once an entry follows the last one read."""
        if not self.splits or self._client is None:
            return False
        if self._waiter is None:
            self._waiter = EntryWaiter(self.url)
        split = self.splits[0]
        self._waiter.wait_for(split["stream"], split["last_id"], callback)
        return True

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)

    def close(self):
        if self._waiter is not None:
            self._waiter.close()
            self._waiter = None
        if self._client is not None:
            self._client.close()
            self._client = None


APPEND_CHUNK = 4096
"""Records per append call: a script runs alone on the server, so one call stays short (~2 ms)."""
_APPEND = "for i = 1, #ARGV do redis.call('XADD', KEYS[1], '*', 'value', ARGV[i]) end return #ARGV"


def scripts_refused(error: Exception) -> bool:
    """Whether ``error`` says the server does not run scripts at all (not that a script failed)."""
    text = str(error).lower()
    return "unknown command" in text or "noperm" in text or "no permissions" in text


class RedisStreamSink(StreamOperator):
    """Appends each record to a Redis stream as ``{"value": json}``, a batch per call."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.stream = self.params["stream"]
        self.url = redis_url(self.params, context.config)
        self._client = None
        self._append = None
        """The registered append script; None once the server refused scripts (pipelined XADDs then)."""

    def open(self):
        self._client = checked_client(self.node, self.url)
        self._append = self._client.register_script(_APPEND)

    def process_batch(self, batch):
        values = list(map(encode_record, batch))
        for start in range(0, len(values), APPEND_CHUNK):
            self._write(values[start:start + APPEND_CHUNK])

    def _write(self, values: list[str]) -> None:
        if self._append is not None:
            import redis

            try:
                self._append(keys=[self.stream], args=values)
                return
            except redis.ResponseError as error:
                if not scripts_refused(error):
                    raise
                logger.warning("node %s: Redis refused the append script (%s); appending one XADD per record",
                               self.node_id, error)
                self._append = None
        pipeline = self._client.pipeline(transaction=False)
        queue, stream = pipeline.execute_command, self.stream
        for value in values:
            queue("XADD", stream, "*", "value", value)
        pipeline.execute()

    def process_watermark(self, watermark):
        pass

    def close(self):
        if self._client is not None:
            self._client.close()
            self._client = None
