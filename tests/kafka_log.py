"""A topic's log as a ``read_committed`` consumer of a real broker sees it, and what is left open.

librdkafka's mock cluster does not model read_committed isolation (``tests/kafka_server.py``):
its Fetch answers give no aborted transactions and a last stable offset at the high
watermark, so any consumer of it receives the records of aborted and open transactions
too. To judge an exactly-once sink by what a real broker would hand a ``read_committed``
consumer, this module fetches a partition's raw record batches (Fetch v4, the
``engine`` sink's own protocol client) and applies the rule brokers and clients apply
together: a transactional producer's records count once a COMMIT control record of that
producer follows them, never when an ABORT follows; records with neither after them
belong to a transaction still open (a real broker would hold every record after the
first of them back from read_committed consumers until it ends).
"""
from __future__ import annotations

import gzip
import struct
from collections import Counter
from dataclasses import dataclass, field

from engine.runtime.operators.connectors.kafka.protocol import API_FETCH, Connection, string

TRANSACTIONAL = 0x10
CONTROL = 0x20
ABORT, COMMIT = 0, 1


@dataclass
class Record:
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list = field(default_factory=list)


@dataclass
class PartitionLog:
    """One partition read to its end: committed records in offset order, and what transactions left."""

    committed: list[Record] = field(default_factory=list)
    aborted: int = 0
    open_producers: dict[int, int] = field(default_factory=dict)
    """Producer id -> records of its transaction that no control record ended."""
    markers: Counter = field(default_factory=Counter)


def read_partition(bootstrap: str, topic: str, partition: int, leader: tuple[str, int] | None = None) -> PartitionLog:
    """Fetch ``topic``/``partition`` from offset 0 to its end and sort it out as read_committed does."""
    host, port = leader or _leader(bootstrap, topic, partition)
    connection = Connection(host, port, 10)
    log, pending = PartitionLog(), {}  # producer id -> its records since its last marker
    try:
        offset = 0
        while True:
            batches, high_watermark = _fetch(connection, topic, partition, offset)
            if not batches:
                if offset >= high_watermark:
                    break
                raise AssertionError(f"{topic}/{partition}: no batch at offset {offset} below the high "
                                     f"watermark {high_watermark}")
            for batch in batches:
                offset = _apply(batch, partition, log, pending)
    finally:
        connection.close()
    log.open_producers = {producer: len(records) for producer, records in pending.items() if records}
    return log


def _apply(batch: bytes, partition: int, log: PartitionLog, pending: dict) -> int:
    """Sort one record batch into ``log``; returns the offset after it."""
    base_offset, _length, _epoch, magic, _crc, attributes, last_delta, base_timestamp, _max_ts, producer, \
        _producer_epoch, _sequence, count = struct.unpack_from(">qiibIhiqqqhii", batch)
    if magic != 2:
        raise AssertionError(f"record batch of magic {magic}: only v2 is read")
    body = batch[61:]
    codec = attributes & 7
    if codec == 1:
        body = gzip.decompress(body)
    elif codec:
        raise AssertionError(f"compression codec {codec}: tests produce uncompressed or gzip batches")
    records = list(_records(body, count, base_offset, base_timestamp, partition))
    if attributes & CONTROL:
        kind = struct.unpack_from(">hh", records[0].key)[1]
        log.markers[kind] += 1
        ended = pending.pop(producer, [])
        if kind == COMMIT:
            log.committed.extend(ended)
        else:
            log.aborted += len(ended)
    elif attributes & TRANSACTIONAL:
        pending.setdefault(producer, []).extend(records)
    else:
        log.committed.extend(records)
    return base_offset + last_delta + 1


def _records(body: bytes, count: int, base_offset: int, base_timestamp: int, partition: int):
    position = 0
    for _ in range(count):
        _length, position = _varint(body, position)
        position += 1  # attributes
        timestamp_delta, position = _varint(body, position)
        offset_delta, position = _varint(body, position)
        key, position = _varbytes(body, position)
        value, position = _varbytes(body, position)
        header_count, position = _varint(body, position)
        headers = []
        for _ in range(header_count):
            name, position = _varbytes(body, position)
            header, position = _varbytes(body, position)
            headers.append((name.decode(), header))
        yield Record(partition, base_offset + offset_delta, base_timestamp + timestamp_delta, key, value, headers)


def _varint(data: bytes, position: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), position
        shift += 7


def _varbytes(data: bytes, position: int) -> tuple[bytes | None, int]:
    length, position = _varint(data, position)
    if length < 0:
        return None, position
    return data[position:position + length], position + length


def _fetch(connection: Connection, topic: str, partition: int, offset: int) -> tuple[list[bytes], int]:
    body = (struct.pack(">iiiib", -1, 0, 0, 8 << 20, 0) + struct.pack(">i", 1) + string(topic)
            + struct.pack(">i", 1) + struct.pack(">iqi", partition, offset, 8 << 20))
    reader = connection.request(API_FETCH, 4, body)
    reader.take(">i")  # throttle
    reader.take(">i")  # topics
    reader.string()
    reader.take(">i")  # partitions
    _partition, code, high_watermark, _lso = reader.take(">ihqq")
    if code:
        raise AssertionError(f"Fetch {topic}/{partition} at {offset}: error {code}")
    aborted = reader.take(">i")
    for _ in range(max(aborted, 0)):
        reader.take(">qq")
    records = reader.bytes() or b""
    batches, position = [], 0
    while position + 12 <= len(records):
        length = struct.unpack_from(">i", records, position + 8)[0]
        end = position + 12 + length
        if end > len(records):
            break  # a partial batch at the end of the answer: fetched again from its offset
        batches.append(records[position:end])
        position = end
    return batches, high_watermark


def _leader(bootstrap: str, topic: str, partition: int) -> tuple[str, int]:
    from confluent_kafka.admin import AdminClient

    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
    leader = metadata.topics[topic].partitions[partition].leader
    broker = metadata.brokers[leader]
    return broker.host, broker.port


def read_topic(bootstrap: str, topic: str) -> dict[int, PartitionLog]:
    """Every partition of ``topic``, read to its end."""
    from confluent_kafka.admin import AdminClient

    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
    partitions = metadata.topics[topic].partitions
    brokers = metadata.brokers
    return {number: read_partition(bootstrap, topic, number,
                                   (brokers[info.leader].host, brokers[info.leader].port))
            for number, info in sorted(partitions.items())}


def committed_values(bootstrap: str, topic: str) -> list[bytes]:
    """The values a read_committed consumer gets from every partition (partition by partition)."""
    return [record.value for log in read_topic(bootstrap, topic).values() for record in log.committed]

