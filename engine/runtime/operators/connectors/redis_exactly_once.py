"""Redis Streams end to end: consumer groups acknowledged on checkpoints, and an exactly-once sink.

Consumer-group source (``source.redis_stream`` with ``group``)
    Every subtask is a consumer of the group (``<node>-<subtask>``), so Redis deals the
    entries out among them. A consumer's split ``{"stream", "consumer", "last_id", "end_id"}``
    is in operator list state; ``last_id`` is the last entry it emitted (a consumer's entries
    come in increasing id order). Entries emitted before checkpoint n are acknowledged with
    ``XACK`` when n completes -- the offset committed back, seed 001 §5.1 -- so the group's
    pending list shows what is not covered by a checkpoint yet. On every start a consumer
    first reads its own pending entries: those up to ``last_id`` were covered by the
    restored checkpoint and are acknowledged, the later ones were delivered after it and are
    emitted again; then it reads new entries (``>``). ``bounded`` ends a consumer when no new
    entry up to the stream's last entry at the first start is left for it; entries after
    that which it received stay pending for the group's next reader.

Exactly-once sink (``sink.redis_stream``, ``delivery: exactly_once``, the default)
    The two-phase-commit template over Redis lists: a transaction is a staging list beside
    the stream (``<stream>:txn:<prefix>:<subtask>:open:<token>``, renamed to
    ``...:<subtask>:<checkpoint>`` at the pre-commit). A commit moves the list's entries into
    the stream by a Lua script, 500 at a time: each call pops and appends atomically, so a
    crash in the middle leaves the rest to a retry, never an entry twice. A set per sink
    (``<stream>:txns:<prefix>``) names its staging lists, so recovery finds leftovers without
    scanning the keyspace. Entries appear when their checkpoint completes;
    ``delivery: at_least_once`` appends at once instead (``XADD``, doubled after a restore).
"""
from __future__ import annotations

import re

from engine.runtime.operators.connectors.redis_stream import (RedisStreamSink, RedisStreamSource, checked_client,
                                                              count_after, encode_record, entries_up_to,
                                                              entry_records, redis_url, restored_stream_splits,
                                                              stream_id)
from engine.runtime.operators.source import END_OF_INPUT
from engine.runtime.operators.source_lag import split_lag
from engine.runtime.operators.two_phase_commit import TwoPhaseCommitSink

COMMIT_CHUNK = 500
LAG_COUNT_LIMIT = 100_000
"""Entries a group's lag is counted up to where Redis does not say it (Redis 6): a hundred XRANGEs."""
ACK_CHUNK = 1000

_MOVE_CHUNK = """
local items = redis.call('LPOP', KEYS[1], ARGV[1])
if not items then return 0 end
for _, value in ipairs(items) do redis.call('XADD', KEYS[2], '*', 'value', value) end
return #items
"""


class ConsumerGroupSource(RedisStreamSource):
    """Reads a stream as a member of a consumer group; XACK when a checkpoint completes."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.group = self.params["group"]
        self._unacknowledged: list[str] = []  # emitted since the last snapshot
        self._to_acknowledge: dict[int, list[str]] = {}  # checkpoint id -> ids
        self._replaying: dict[str, str] = {}  # consumer -> cursor in its pending list
        self._turn = 0

    def initialize_state(self):
        self._state = self.context.operator_state().list_state("consumers")
        consumer = re.compile(rf"{re.escape(self.node_id)}-\d+")
        self.splits = (restored_stream_splits(self, "consumers", consumer=lambda name: isinstance(name, str) and
                                              consumer.fullmatch(name) is not None)
                       if self.context.is_restored else [])
        if not self.splits:
            consumer = f"{self.node_id}-{self.context.subtask_index}"
            self.splits = [{"stream": self.stream, "consumer": consumer, "last_id": "0-0", "end_id": None}]

    def open(self):
        import redis

        self._client = checked_client(self.node, self.url)
        try:
            self._client.xgroup_create(self.stream, self.group, id=str(self.params.get("start_id") or "0"),
                                       mkstream=True)
        except redis.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
        for split in self.splits:
            self._replaying[split["consumer"]] = "0-0"
            if self.bounded and split["end_id"] is None:
                last = self._client.xrevrange(self.stream, count=1)
                split["end_id"] = last[0][0] if last else "0-0"

    def poll_next(self):
        for _ in range(len(self.splits)):  # each consumer once at most, from where the last poll stopped
            split = self.splits[self._turn % len(self.splits)]
            records = self._read(split)
            if records is None:
                self.splits.remove(split)
                continue
            self._turn += 1
            if records:
                self._backoff.active()
                return records
        return [] if self.splits else END_OF_INPUT

    def when_readable(self, callback) -> bool:
        """A blocked ``XREADGROUP`` would take the entries it waits for: polls follow ``next_poll_delay``."""
        return False

    def _read(self, split: dict):
        """The next records of one consumer ([]: none now), or None when its bounded input is done."""
        consumer = split["consumer"]
        cursor = self._replaying.get(consumer)
        answer = self._client.xreadgroup(self.group, consumer, {self.stream: cursor or ">"}, count=self._read_count())
        entries = answer[0][1] if answer else []
        if cursor is not None:  # the consumer's pending entries first
            if not entries:
                del self._replaying[consumer]
                return []
            self._replaying[consumer] = entries[-1][0]
            covered = [entry_id for entry_id, _ in entries if stream_id(entry_id) <= stream_id(split["last_id"])]
            if covered:
                self._acknowledge(covered)
            entries = [(i, f) for i, f in entries if stream_id(i) > stream_id(split["last_id"])]
        elif split["end_id"] is not None:  # bounded: done when nothing new up to the end is left for it
            entries = entries_up_to(entries, stream_id(split["end_id"]))
            if not entries:
                return None
        entries = [(i, f) for i, f in entries if f]  # deleted from the stream meanwhile: nothing to emit
        if not entries:
            return []
        split["last_id"] = entries[-1][0]
        self._unacknowledged.extend(entry_id for entry_id, _ in entries)
        return entry_records(entries)

    def source_lag(self) -> list[dict]:
        """Per consumer held: its entries pending in the group (delivered, not acknowledged by a completed
        checkpoint); the group's ``lag`` (entries not delivered to any consumer yet) on the first consumer's
        split only, ``<node>-0``, so that a node's sum counts it once. Both as ``XINFO`` says them."""
        first = f"{self.node_id}-0"
        if not any(split["consumer"] == first for split in self.splits):
            behind = None
        else:
            groups = {group["name"]: group for group in self._client.xinfo_groups(self.stream)}
            behind = group_lag(self._client, self.stream, groups.get(self.group) or {})
        consumers = {consumer["name"]: consumer for consumer in self._client.xinfo_consumers(self.stream, self.group)}
        return [split_lag(f"{self.stream}/{self.group}/{split['consumer']}",
                          records_behind=behind if split["consumer"] == first else None,
                          pending=(consumers.get(split["consumer"]) or {}).get("pending", 0))
                for split in self.splits]

    def snapshot_state(self, checkpoint_id):
        super().snapshot_state(checkpoint_id)
        if self._unacknowledged:
            self._to_acknowledge[checkpoint_id] = self._unacknowledged
            self._unacknowledged = []

    def notify_checkpoint_complete(self, checkpoint_id):
        done = [n for n in self._to_acknowledge if n <= checkpoint_id]
        for n in sorted(done):
            self._acknowledge(self._to_acknowledge.pop(n))

    def _acknowledge(self, ids: list[str]) -> None:
        for start in range(0, len(ids), ACK_CHUNK):
            self._client.xack(self.stream, self.group, *ids[start:start + ACK_CHUNK])


def group_lag(client, stream: str, group: dict) -> int | None:
    """The group's entries not delivered yet: ``XINFO GROUPS``' ``lag`` (Redis 7), else -- Redis 6, or a
    7 that cannot tell -- the entries after its last delivered id, counted (None past ``LAG_COUNT_LIMIT``)."""
    if group.get("lag") is not None:
        return int(group["lag"])
    delivered = group.get("last-delivered-id")
    if delivered is None:
        return None
    return count_after(client, stream, delivered, client.xinfo_stream(stream), limit=LAG_COUNT_LIMIT)


class ExactlyOnceRedisStreamSink(TwoPhaseCommitSink):
    """Stages each transaction in a list; a committed checkpoint moves it into the stream."""

    prefix_label = "r"

    def __init__(self, node, context):
        super().__init__(node, context)
        self.stream = self.params["stream"]
        self.url = redis_url(self.params, context.config)
        self._client = None
        self._move = None

    def _key(self, tail: str) -> str:
        return f"{self.stream}:txn:{self.transaction_prefix}:{self.context.subtask_index}:{tail}"

    @property
    def _registry(self) -> str:
        return f"{self.stream}:txns:{self.transaction_prefix}"

    def connect(self):
        self._client = checked_client(self.node, self.url)
        self._move = self._client.register_script(_MOVE_CHUNK)

    def begin_transaction(self):
        key = self._key(f"open:{self.attempt_token}")
        self._client.sadd(self._registry, key)
        return {"key": key, "records": 0}

    def write(self, transaction, batch):
        self._client.rpush(transaction["key"], *map(encode_record, batch))
        transaction["records"] += len(batch)

    def pre_commit(self, transaction, checkpoint_id):
        staged = self._key(str(checkpoint_id))
        pipeline = self._client.pipeline(transaction=True)
        pipeline.rename(transaction["key"], staged)
        pipeline.srem(self._registry, transaction["key"])
        pipeline.sadd(self._registry, staged)
        pipeline.execute()
        return {"key": staged, "records": transaction["records"]}

    def commit(self, committable):
        self._move_into_stream(committable["key"])

    def _move_into_stream(self, key: str) -> None:
        while self._move(keys=[key, self.stream], args=[COMMIT_CHUNK]):
            pass
        self._client.srem(self._registry, key)

    def abort(self, transaction):
        self._discard(transaction["key"])

    def _discard(self, key: str) -> None:
        self._client.delete(key)
        self._client.srem(self._registry, key)

    def leftovers(self):
        found = []
        prefix = f"{self.stream}:txn:{self.transaction_prefix}:"
        for key in self._client.smembers(self._registry):
            subtask, _, tail = key[len(prefix):].partition(":")
            if not key.startswith(prefix) or not subtask.isdigit() or tail.endswith(f"open:{self.attempt_token}"):
                continue
            found.append((int(subtask), int(tail) if tail.isdigit() else None, key))
        return found

    def commit_leftover(self, handle):
        self._move_into_stream(handle)

    def abort_leftover(self, handle):
        self._discard(handle)

    def close(self):
        try:
            super().close()
        finally:
            if self._client is not None:
                self._client.close()
                self._client = None


def redis_stream_source(node, context):
    """``source.redis_stream``: a consumer-group reader when ``group`` is set, else a plain reader."""
    if (node.get("params") or {}).get("group"):
        return ConsumerGroupSource(node, context)
    return RedisStreamSource(node, context)


def redis_stream_sink(node, context):
    """``sink.redis_stream``: exactly once unless ``delivery`` says at least once."""
    if _at_least_once(node):
        return RedisStreamSink(node, context)
    return ExactlyOnceRedisStreamSink(node, context)


def _at_least_once(node) -> bool:
    return (node.get("params") or {}).get("delivery", "exactly_once") == "at_least_once"


redis_stream_sink.awaits_final_checkpoint = lambda node: not _at_least_once(node)
