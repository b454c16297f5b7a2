"""``source.kafka``: the records of Kafka partitions, offsets in the checkpoint, committed back on completion.

Partitions come as splits from the node's enumerator in the JobMaster (``enumerator``); a
subtask reads its splits with one librdkafka consumer, assigned (never subscribed: the
consumer group does not deal partitions here, the enumerator does). Each poll takes at
most ``batch_size`` messages in one ``consume`` call and decodes their values as one batch
(``formats``); the split of each partition keeps the offset after the last record
emitted, in operator list state, so a restore (at any parallelism) goes on exactly there.

Offsets back to the group (seed 001, §5.1): with ``group`` set, the offsets of checkpoint
n are committed to the consumer group when n completes -- never the offsets of records
emitted after n's snapshot -- so the group's lag shows what a completed checkpoint covers
and ``start: committed`` can pick up from there. A failed commit is counted
(``offset_commit_failures``), not fatal: the checkpoint, not the group, is the position.

Records: ``emit: "record"`` (default) gives ``{"topic", "partition", "offset", "timestamp",
"key", "headers", "value"}`` -- the key decoded as ``key_format``, headers as a dict of
text, the value as ``format`` -- and ``emit: "value"`` the decoded value alone.

Event time (``watermarks: true``): each record's time is its Kafka timestamp, or
``timestamp`` (an expression over the emitted record); each partition has its own
watermark, its highest time minus ``max_out_of_orderness_ms`` minus one, and the subtask
emits the lowest over its partitions (as Flink's per-split watermarks). A partition without
records for ``idle_timeout_ms`` is left out, so a quiet partition does not hold event time
back; when all are quiet the subtask's output is marked idle. The watermark goes out at the
next poll after the records that raised it.

A record whose value or key cannot be decoded fails the job with a message naming the
node, the partition and the offset (a restart would meet it again: fix the topic or the
format); nothing is skipped silently.

A broker that goes away: librdkafka keeps trying to reach it, so its partitions simply
stop delivering. The consumer reports every second which broker leads each partition and
whether it is up; a partition of this subtask whose leader stays unreachable for
``unavailable_timeout_ms`` fails the subtask, naming the partition and the broker (the job
restarts from its last checkpoint, or fails when out of restarts); 0 waits for ever.
"""
from __future__ import annotations

import time
from itertools import groupby, repeat
from operator import itemgetter

from engine.runtime.io.events import WATERMARK_ACTIVE, WATERMARK_IDLE, TimestampedBatch, Watermark
from engine.runtime.grants import Grants
from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.kafka import formats
from engine.runtime.operators.connectors.kafka.clients import base_config, kafka_error
from engine.runtime.operators.connectors.kafka.end_offsets import EndOffsets
from engine.runtime.operators.connectors.kafka.enumerator import DEFAULT_DISCOVERY_INTERVAL_MS, \
    KafkaPartitionEnumerator, is_split_of
from engine.runtime.operators.restored_state import require, restored_dicts
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator
from engine.runtime.operators.source_lag import split_lag

NO_WATERMARK = -(2 ** 63)
EMPTY_POLL_DELAY_S = 0.005
AWAITING_SPLITS_DELAY_S = 0.002
RECORD_FIELDS = ("topic", "partition", "offset", "timestamp", "key", "headers", "value")
DEFAULT_UNAVAILABLE_TIMEOUT_MS = 120_000
STATS_INTERVAL_MS = 1000


class KafkaSource(SourceOperator):
    """Reads the partitions its enumerator hands it (see the module)."""

    coordinator = KafkaPartitionEnumerator

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        self.group = params.get("group") or None
        self.emit_records = params.get("emit", "record") == "record"
        self.discovery_interval_s = int(params.get("discovery_interval_ms", DEFAULT_DISCOVERY_INTERVAL_MS)) / 1000
        try:
            self.decode_values = formats.value_decoder(params, Grants.of(context.config))
        except ValueError as error:
            raise ConfigurationError(node, str(error)) from None
        self.decode_keys = formats.key_decoder(params.get("key_format", "string"))
        self.watermarks = PartitionWatermarks(int(params.get("max_out_of_orderness_ms", 0)),
                                              int(params.get("idle_timeout_ms", 0)) / 1000) \
            if params.get("watermarks") else None
        self.timestamps_of = None
        if self.watermarks is not None and params.get("timestamp"):
            from engine.spec.expressions import compile_batch_expression

            self.timestamps_of = compile_batch_expression(params["timestamp"])
        self.splits: dict[tuple[str, int], dict] = {}
        self.consumer = None
        self._state = None
        self._no_more_splits = False
        self._awaiting_answer = False
        self._next_request = 0.0
        self._to_commit: dict[int, dict] = {}
        self.commit_failures = 0
        self.unavailable_timeout_s = int(params.get("unavailable_timeout_ms", DEFAULT_UNAVAILABLE_TIMEOUT_MS)) / 1000
        self._unavailable_since: dict[tuple[str, int], tuple[float, int]] = {}  # partition -> (since, leader)
        self._end_offsets: EndOffsets | None = None  # for the lag, made at the first report

    # -- life cycle ----------------------------------------------------------------------------
    def initialize_state(self):
        if self.context.send_operator_event is None:
            raise ConfigurationError(self.node, "a Kafka source needs its partition enumerator in the JobMaster "
                                                "and cannot run inside a hybrid source")
        self._state = self.context.operator_state().list_state("partitions")
        restored = restored_dicts(self.node, self.context, "partitions", self._state.get()) \
            if self.context.is_restored else []
        topics, pattern = list(self.params.get("topics") or []), None
        if self.params.get("topic_pattern"):
            import re

            pattern = re.compile(self.params["topic_pattern"])
        for split in restored:
            require(is_split_of(split, topics, pattern), self.node, self.context,
                    f"holds {split!r:.120}, which is not a partition of this source's topics")
        self.splits = {(split["topic"], split["partition"]): split for split in restored}

    def open(self):
        from confluent_kafka import Consumer

        config = {**base_config(self.node), "enable.auto.commit": False, "enable.auto.offset.store": False,
                  "auto.offset.reset": "earliest", "enable.partition.eof": False,
                  "isolation.level": self.params.get("isolation", "read_committed"),
                  "group.id": self.group or f"pipeline-studio-{self.node_id}", "on_commit": self._committed}
        if self.unavailable_timeout_s > 0:
            config.update({"statistics.interval.ms": STATS_INTERVAL_MS, "stats_cb": self._on_statistics})
        self.consumer = Consumer(config)
        self._assign(list(self.splits.values()))

    def close(self):
        self._end_offsets = None
        if self.consumer is not None:
            try:
                self.consumer.close()
            finally:
                self.consumer = None

    # -- splits --------------------------------------------------------------------------------
    def _assign(self, splits: list[dict]) -> None:
        from confluent_kafka import TopicPartition

        reading = []
        for split in splits:
            if _done(split):
                split["done"] = True  # never assigned: nothing to read, nothing to unassign
            else:
                reading.append(split)
        for split in reading:
            if self.watermarks is not None:
                self.watermarks.add((split["topic"], split["partition"]))
        if reading:
            self.consumer.incremental_assign([TopicPartition(split["topic"], split["partition"], split["offset"])
                                              for split in reading])

    def _ask_for_splits(self, now: float) -> None:
        if self._no_more_splits or self._awaiting_answer or now < self._next_request:
            return
        self._awaiting_answer = True
        self._next_request = now + self.discovery_interval_s
        self.context.send_operator_event({"kind": "request", "parallelism": self.context.parallelism})

    def handle_operator_event(self, event: dict) -> None:
        kind = event.get("kind")
        self._awaiting_answer = False
        if self.watermarks is not None:
            self.watermarks.none_assigned = kind in ("none", "no_more") and not self.splits
        if kind == "splits":
            fresh = [dict(split) for split in event["splits"]]
            for split in fresh:
                self.splits[(split["topic"], split["partition"])] = split
            self._assign(fresh)
            self._no_more_splits = bool(event.get("no_more"))
        elif kind == "no_more":
            self._no_more_splits = True
        elif kind == "error":
            raise ConfigurationError(self.node, event["message"])
        elif kind != "none":
            super().handle_operator_event(event)

    # -- reading -------------------------------------------------------------------------------
    def poll_next(self):
        now = time.monotonic()
        self._ask_for_splits(now)
        if self.watermarks is not None:
            self._emit_watermark(now)
        if self._no_more_splits and all(_done(split) for split in self.splits.values()):
            return END_OF_INPUT
        messages = self.consumer.consume(self.batch_size, 0)
        if not messages:
            self._check_bounded_ends(by_position=True)
            return []
        return self._records_of(messages, now)

    def next_poll_delay(self) -> float:
        return AWAITING_SPLITS_DELAY_S if self._awaiting_answer else EMPTY_POLL_DELAY_S

    def _records_of(self, messages: list, now: float):
        from confluent_kafka import Message

        if any(map(Message.error, messages)):
            messages = self._without_errors(messages)
            if not messages:
                return []
        partitions = list(zip(map(Message.topic, messages), map(Message.partition, messages)))
        offsets = list(map(Message.offset, messages))
        last = dict(zip(partitions, offsets))  # each partition's last offset in the batch: its highest
        if any(self._past_stop(key, offset) for key, offset in last.items()):
            messages, partitions, offsets = self._before_stops(messages, partitions, offsets)
            last = dict(zip(partitions, offsets))
        for key, offset in last.items():
            self.splits[key]["offset"] = offset + 1
        self._check_bounded_ends(by_position=False)
        if not messages:
            return []
        raw_values = list(map(Message.value, messages))
        try:
            values = self.decode_values(raw_values)
        except formats.BadRecord as bad:
            raise self._bad_record(messages[bad.index], f"its value is {bad.cause}") from None
        if self.emit_records:
            records = self._envelopes(messages, partitions, offsets, values)
        else:
            records = values
        if self.watermarks is None:
            return records
        if self.timestamps_of is not None:
            stamps = list(map(int, self.timestamps_of(records)))
        else:
            stamps = list(map(itemgetter(1), map(Message.timestamp, messages)))
        self.watermarks.observe(partitions, stamps, now)
        return TimestampedBatch(records, stamps)

    def _envelopes(self, messages, partitions, offsets, values) -> list:
        from confluent_kafka import Message

        try:
            keys = self.decode_keys(list(map(Message.key, messages)))
        except formats.BadRecord as bad:
            raise self._bad_record(messages[bad.index], f"its key is {bad.cause}") from None
        stamps = map(itemgetter(1), map(Message.timestamp, messages))
        headers = list(map(Message.headers, messages))
        headers = [_header_dict(header) for header in headers] if any(headers) else [{} for _ in headers]
        topics = map(itemgetter(0), partitions)
        numbers = map(itemgetter(1), partitions)
        return list(map(dict, map(zip, repeat(RECORD_FIELDS, len(messages)),
                                  zip(topics, numbers, offsets, stamps, keys, headers, values))))

    def _without_errors(self, messages: list) -> list:
        """Messages that are records; errors other than end-of-partition notices fail naming the node."""
        from confluent_kafka import KafkaError

        records = []
        for message in messages:
            error = message.error()
            if error is None:
                records.append(message)
            elif error.code() != KafkaError._PARTITION_EOF:
                raise kafka_error(self.node, f"cannot read {message.topic()}/{message.partition()}", error)
        return records

    def _past_stop(self, key: tuple, offset: int) -> bool:
        stop = self.splits[key]["stop"]
        return stop is not None and offset >= stop

    def _before_stops(self, messages, partitions, offsets):
        """Drop records at or past their partition's stop offset (bounded reading; only in the batch that
        reaches a stop)."""
        keep = [index for index, (key, offset) in enumerate(zip(partitions, offsets)) if not self._past_stop(key, offset)]
        for key, offset in zip(partitions, offsets):
            if self._past_stop(key, offset):
                self.splits[key]["offset"] = max(self.splits[key]["offset"], self.splits[key]["stop"])
        return [messages[i] for i in keep], [partitions[i] for i in keep], [offsets[i] for i in keep]

    def _check_bounded_ends(self, by_position: bool) -> None:
        """Unassign bounded partitions read to their stop: by the records, or -- when a poll found
        nothing -- by the consumer's position, which moves past transaction markers no record stands for."""
        from confluent_kafka import TopicPartition

        open_bounded = [split for split in self.splits.values() if split["stop"] is not None and not split.get("done")]
        if not open_bounded or not (by_position or any(s["offset"] >= s["stop"] for s in open_bounded)):
            return
        positions = {(tp.topic, tp.partition): tp.offset for tp in self.consumer.position(
            [TopicPartition(split["topic"], split["partition"]) for split in open_bounded])} if by_position else {}
        finished = []
        for split in open_bounded:
            position = positions.get((split["topic"], split["partition"]), -1)
            if split["offset"] >= split["stop"] or position >= split["stop"]:
                split["offset"] = max(split["offset"], split["stop"])
                split["done"] = True
                finished.append(TopicPartition(split["topic"], split["partition"]))
                if self.watermarks is not None:
                    self.watermarks.remove((split["topic"], split["partition"]))
        if finished:
            self.consumer.incremental_unassign(finished)

    def _bad_record(self, message, cause: str) -> ConfigurationError:
        return ConfigurationError(self.node, f"the record at {message.topic()}/{message.partition()} offset "
                                             f"{message.offset()} cannot be read: {cause}")

    # -- event time ------------------------------------------------------------------------------
    def _emit_watermark(self, now: float) -> None:
        watermark, idle = self.watermarks.current(now)
        if not idle and self.watermarks.idle:
            self.watermarks.idle = False
            self.emit_watermark_status(WATERMARK_ACTIVE)
        if watermark is not None:
            self.emit_watermark(Watermark(watermark))
        if idle and not self.watermarks.idle:
            self.watermarks.idle = True
            self.emit_watermark_status(WATERMARK_IDLE)

    # -- checkpoints ---------------------------------------------------------------------------
    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits.values())
        if self.group is not None:
            self._to_commit[checkpoint_id] = {key: split["offset"] for key, split in self.splits.items()}

    def notify_checkpoint_complete(self, checkpoint_id):
        """Commit the offsets of ``checkpoint_id`` (the newest completed) to the group; drop older ones."""
        from confluent_kafka import KafkaException, TopicPartition

        covered = [n for n in self._to_commit if n <= checkpoint_id]
        if not covered:
            return
        offsets = self._to_commit[max(covered)]
        for n in covered:
            del self._to_commit[n]
        if not offsets:
            return
        try:
            self.consumer.commit(offsets=[TopicPartition(topic, partition, offset)
                                          for (topic, partition), offset in offsets.items()], asynchronous=True)
        except KafkaException:
            self.commit_failures += 1

    def notify_checkpoint_aborted(self, checkpoint_id):
        self._to_commit.pop(checkpoint_id, None)

    def _on_statistics(self, text: str) -> None:
        """librdkafka's report (from ``consume``, in this thread): fail if a partition's leader stayed away."""
        import json

        stats = json.loads(text)
        up = {broker.get("nodeid"): broker.get("state") == "UP" for broker in stats.get("brokers", {}).values()}
        now = time.monotonic()
        for (topic, number), split in self.splits.items():
            if _done(split):
                continue
            info = stats.get("topics", {}).get(topic, {}).get("partitions", {}).get(str(number))
            leader = info.get("leader", -1) if info else -1
            if leader >= 0 and up.get(leader):
                self._unavailable_since.pop((topic, number), None)
                continue
            since, _ = self._unavailable_since.setdefault((topic, number), (now, leader))
            if now - since >= self.unavailable_timeout_s:
                where = f"its leader, broker {leader}," if leader >= 0 else "no broker leading it"
                raise ConfigurationError(self.node, f"partition {topic}/{number} is unavailable: {where} has not "
                                                    f"been reachable for {now - since:.0f} s (Kafka at "
                                                    f"{self.params['bootstrap_servers']})")

    def _committed(self, error, partitions) -> None:
        if error is not None:
            self.commit_failures += 1

    def metrics(self):
        return {"partitions": len(self.splits), "offset_commit_failures": self.commit_failures}

    def source_lag(self) -> list[dict]:
        """Per partition held: its end offset (the last stable one when reading committed records) minus
        the position after the last record emitted, up to a bounded partition's stop; the end offsets
        as last answered (``end_offsets``: asked without blocking, at most a report old). None for a
        partition not answered yet."""
        if self._end_offsets is None:
            self._end_offsets = EndOffsets(self.node, self.params.get("isolation", "read_committed") == "read_committed")
        reading = sorted(key for key, split in self.splits.items() if not _done(split))
        ends = self._end_offsets.latest(reading)
        lags = []
        for key, split in sorted(self.splits.items()):
            end = ends.get(key) if not _done(split) else split["offset"]
            if end is not None and split["stop"] is not None:
                end = min(end, split["stop"])
            lags.append(split_lag(f"{key[0]}/{key[1]}", records_behind=None if end is None else end - split["offset"]))
        return lags


def _done(split: dict) -> bool:
    return split.get("done", False) or (split["stop"] is not None and split["offset"] >= split["stop"])


def _header_dict(headers) -> dict:
    if not headers:
        return {}
    return {name: None if value is None else value.decode("utf-8", "replace") for name, value in headers}


class PartitionWatermarks:
    """Per-partition watermarks of one subtask, combined with idleness (Flink's per-split watermarks).

    Threading model: the subtask's mailbox thread."""

    def __init__(self, out_of_orderness_ms: int, idle_timeout_s: float):
        self.out_of_orderness_ms = out_of_orderness_ms
        self.idle_timeout_s = idle_timeout_s
        self.highest: dict[tuple, int] = {}  # partition -> highest event time seen
        self.last_record_at: dict[tuple, float] = {}
        self.emitted = NO_WATERMARK
        self.idle = False
        self.none_assigned = False
        """The enumerator answered and this subtask has no partition."""

    def add(self, partition: tuple) -> None:
        self.highest.setdefault(partition, NO_WATERMARK)
        self.last_record_at.setdefault(partition, time.monotonic())

    def remove(self, partition: tuple) -> None:
        self.highest.pop(partition, None)
        self.last_record_at.pop(partition, None)

    def observe(self, partitions: list, stamps: list, now: float) -> None:
        """Note a batch: the partition of each record and its event time."""
        highest, seen = self.highest, self.last_record_at
        for partition, group in groupby(zip(partitions, stamps), key=itemgetter(0)):
            top = max(map(itemgetter(1), group))
            if top > highest.get(partition, NO_WATERMARK):
                highest[partition] = top
            seen[partition] = now

    def current(self, now: float) -> tuple[int | None, bool]:
        """``(watermark to emit or None, idle)``: the lowest over the active partitions, if it rose.

        When every partition is quiet, each one's own watermark still holds for its own records: the
        lowest of those is emitted before the subtask goes idle (else the order in which two quiet
        partitions passed their timeout would decide whether windows fire). A subtask without
        partitions is idle once its enumerator said there are none for it now (more subtasks than
        partitions); before that answer it holds event time back, or a partition handed to it a
        moment later would find its records late."""
        if not self.last_record_at:
            return None, self.none_assigned
        active = [partition for partition, at in self.last_record_at.items()
                  if self.idle_timeout_s <= 0 or now - at < self.idle_timeout_s]
        idle = not active
        considered = active or [partition for partition, top in self.highest.items() if top != NO_WATERMARK]
        lowest = min((self.highest[partition] for partition in considered), default=NO_WATERMARK)
        if lowest == NO_WATERMARK:
            return None, idle
        watermark = lowest - self.out_of_orderness_ms - 1
        if watermark <= self.emitted:
            return None, idle
        self.emitted = watermark
        return watermark, idle
