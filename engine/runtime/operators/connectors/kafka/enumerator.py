"""The partitions of a Kafka source, found and handed out as splits by one enumerator in the JobMaster.

Why an enumerator (Flink's ``KafkaSourceEnumerator``): partitions appear while a job runs
(a topic gets more of them, a new topic matches the pattern), and each must be read by
exactly one subtask from exactly one starting offset, also across failures and restores.
One object in the JobMaster decides, and its decisions are part of every checkpoint.

Splits
    ``{"topic", "partition", "offset", "stop"}``: read the partition from ``offset`` (the
    next record to emit) to ``stop`` (exclusive; None: for ever). The enumerator resolves
    the starting offset when it finds the partition -- ``start``: ``earliest``, ``latest``,
    ``timestamp`` (the first record at or after ``start_timestamp_ms``) or ``committed``
    (the consumer group's offset, else ``committed_fallback``) -- so a checkpoint always
    holds a number: a job restored later does not start "latest" from a later place.
    Partitions found after the first discovery start at their earliest offset (nothing
    written to them is skipped). ``bounded: true`` fixes ``stop`` at each partition's
    latest offset when it is found and finds no partitions later.

Who reads what
    A subtask asks (``{"kind": "request", "parallelism": n}``) when it starts and then every
    ``discovery_interval_ms``; the answer holds the splits of the partitions it owns --
    ``crc32(topic) * 31 + partition`` modulo the parallelism, so a partition keeps its
    reader across restarts -- or ``none`` (ask again later), or ``no_more`` (bounded: all
    handed out; a bounded source's splits come with ``"no_more": true`` at once). Partitions are looked up (Metadata, ListOffsets) inside the request that
    finds them due, at most once per interval.

Exactly once (as ``file_splits``): the state is the partitions known and the splits not
handed out yet, snapshotted under the same lock as the checkpoint's triggers are sent;
splits handed to subtasks after a checkpoint's snapshot come back when those subtasks
restart from it (``SplitAssignmentTracker``). After a restore at another parallelism the
subtasks' splits are dealt out again with their operator state; new partitions go to
their owner under the new parallelism.
"""
from __future__ import annotations

import re
import time
import zlib

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.file_splits import SplitAssignmentTracker
from engine.runtime.operators.connectors.kafka.clients import METADATA_TIMEOUT_S, base_config, kafka_error, \
    topic_partitions
from engine.runtime.operators.restored_state import is_offset, is_optional_offset

DEFAULT_DISCOVERY_INTERVAL_MS = 10_000
START_MODES = ("earliest", "latest", "timestamp", "committed")


def owner(split: dict, parallelism: int) -> int:
    """The subtask that reads ``split``'s partition at ``parallelism``."""
    return ((zlib.crc32(split["topic"].encode()) * 31) + split["partition"]) % parallelism


def is_split_of(split, topics: list[str], pattern) -> bool:
    """Whether a restored ``split`` is one this source makes: of one of its topics (or matching its
    pattern), with a partition number and offsets (restored state is data: ``restored_state``)."""
    try:
        topic = split["topic"]
        return (isinstance(topic, str) and (topic in topics or (pattern is not None and bool(pattern.fullmatch(topic))))
                and is_offset(split["partition"]) and is_offset(split["offset"])
                and is_optional_offset(split.get("stop")) and type(split.get("done", False)) is bool)
    except (TypeError, KeyError):
        return False


class KafkaPartitionEnumerator:
    """The JobMaster's side of one Kafka source node (see the module)."""

    def __init__(self, node: dict, restored: dict | None, restored_node: bool, *, config: dict | None = None,
                 snapshot: str | None = None):
        self.node = node
        params = node.get("params") or {}
        self.params = params
        self.topics = list(params.get("topics") or [])
        self.pattern = re.compile(params["topic_pattern"]) if params.get("topic_pattern") else None
        self.bounded = bool(params.get("bounded", False))
        self.interval_s = int(params.get("discovery_interval_ms", DEFAULT_DISCOVERY_INTERVAL_MS)) / 1000
        self.tracker = SplitAssignmentTracker()
        self.known: set[tuple[str, int]] | None = None  # None: not looked up yet
        self.unassigned: list[dict] = []
        self.given_back: dict[int, list[dict]] = {}
        self._next_discovery = 0.0
        self.refused: str | None = None
        if restored is not None:
            self._restore(restored, snapshot)

    def _restore(self, restored, snapshot: str | None) -> None:
        try:
            known = restored.get("known")
            self.known = None if known is None else {(topic, partition) for topic, partition in known}
            self.unassigned = [dict(split) for split in restored.get("unassigned") or ()]
            bad = next((split for split in self.unassigned if not is_split_of(split, self.topics, self.pattern)), None)
        except (TypeError, ValueError, AttributeError):
            bad = restored
        if bad is not None:
            self.refused = (f"the snapshot at {snapshot or '?'} is refused: its partition enumerator's state holds "
                            f"{bad!r:.200}, which is not a partition of this source's topics")

    # -- events ------------------------------------------------------------------------------
    def handle_event(self, subtask: int, event: dict) -> dict:
        if event.get("kind") != "request":
            return {"kind": "error", "message": f"unknown partition request {event.get('kind')!r}"}
        if self.refused is not None:
            return {"kind": "error", "message": self.refused}
        parallelism = int(event.get("parallelism") or 1)
        if self._discovery_due():
            try:
                self._discover()
            except ConfigurationError as error:
                return {"kind": "error", "message": error.cause}
        mine = self.given_back.pop(subtask, [])
        kept = []
        for split in self.unassigned:
            (mine if owner(split, parallelism) == subtask else kept).append(split)
        self.unassigned = kept
        for split in mine:
            self.tracker.assigned(subtask, split)
        if mine:
            return {"kind": "splits", "splits": mine, "no_more": self.bounded}
        if self.bounded:
            return {"kind": "no_more"}
        return {"kind": "none"}

    def _discovery_due(self) -> bool:
        if self.known is None:
            return True
        if self.bounded or self.interval_s <= 0:
            return False
        return time.monotonic() >= self._next_discovery

    def _discover(self) -> None:
        from confluent_kafka.admin import AdminClient

        first = self.known is None
        config = base_config(self.node)
        client = AdminClient(config)
        found = topic_partitions(self.node, client, self.topics, self.pattern)
        known = self.known or set()
        new = [(topic, partition) for topic, partitions in sorted(found.items()) for partition in partitions
               if (topic, partition) not in known]
        if new:
            starts = self._start_offsets(client, config, new, self.params.get("start", "earliest") if first
                                         else "earliest")
            stops = self._offsets(client, new, "latest") if self.bounded else {}
            for key in new:
                self.unassigned.append({"topic": key[0], "partition": key[1], "offset": starts[key],
                                        "stop": stops.get(key)})
        self.known = known | set(new)
        self._next_discovery = time.monotonic() + self.interval_s

    def _start_offsets(self, client, config: dict, partitions: list, mode: str) -> dict:
        if mode == "committed":
            committed = self._committed(config, partitions)
            missing = [key for key in partitions if key not in committed]
            fallback = self._offsets(client, missing, self.params.get("committed_fallback", "earliest")) \
                if missing else {}
            return {**fallback, **committed}
        if mode == "timestamp":
            found = self._offsets(client, partitions, "timestamp")
            after_last = [key for key, offset in found.items() if offset < 0]
            return {**found, **(self._offsets(client, after_last, "latest") if after_last else {})}
        return self._offsets(client, partitions, mode)

    def _offsets(self, client, partitions: list, mode: str) -> dict:
        """``{(topic, partition): offset}`` of ``mode`` (``earliest``, ``latest``, ``timestamp``), in one request."""
        from confluent_kafka import IsolationLevel, KafkaException, TopicPartition
        from confluent_kafka.admin import OffsetSpec

        spec = {"earliest": OffsetSpec.earliest, "latest": OffsetSpec.latest}.get(mode)
        spec = spec() if spec is not None else OffsetSpec.for_timestamp(int(self.params.get("start_timestamp_ms", 0)))
        isolation = (IsolationLevel.READ_UNCOMMITTED if self.params.get("isolation") == "read_uncommitted"
                     else IsolationLevel.READ_COMMITTED)
        futures = client.list_offsets({TopicPartition(topic, partition): spec for topic, partition in partitions},
                                      isolation_level=isolation, request_timeout=METADATA_TIMEOUT_S)
        try:
            return {(tp.topic, tp.partition): future.result().offset for tp, future in futures.items()}
        except KafkaException as error:
            raise kafka_error(self.node, f"cannot look up the {mode} offsets", error) from None

    def _committed(self, config: dict, partitions: list) -> dict:
        from confluent_kafka import Consumer, KafkaException, TopicPartition

        consumer = Consumer({**config, "group.id": self.params["group"], "enable.auto.commit": False})
        try:
            answered = consumer.committed([TopicPartition(topic, partition) for topic, partition in partitions],
                                          timeout=METADATA_TIMEOUT_S)
        except KafkaException as error:
            raise kafka_error(self.node, f"cannot read the offsets of group {self.params['group']}", error) from None
        finally:
            consumer.close()
        return {(tp.topic, tp.partition): tp.offset for tp in answered if tp.offset >= 0}

    # -- checkpoints and restarts --------------------------------------------------------------
    def snapshot(self, checkpoint_id: int) -> dict:
        self.tracker.snapshot(checkpoint_id)
        waiting = self.unassigned + [split for splits in self.given_back.values() for split in splits]
        return {"known": None if self.known is None else sorted([topic, partition] for topic, partition in self.known),
                "unassigned": [dict(split) for split in waiting]}

    def checkpoint_complete(self, checkpoint_id: int) -> None:
        self.tracker.checkpoint_complete(checkpoint_id)

    def subtasks_reset(self, subtasks: set[int], checkpoint_id: int | None) -> None:
        for subtask, splits in self.tracker.take_back(subtasks, checkpoint_id).items():
            self.given_back.setdefault(subtask, []).extend(splits)
