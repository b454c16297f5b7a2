"""``sink.kafka``: records into a Kafka topic, exactly once through transactions or at least once.

What a message is made of: ``value`` (an expression, default the record) encoded in
``format``; ``key`` (an expression, encoded in ``key_format``; none: no key); the
partition from ``partition`` (an expression giving the partition number) or else from the
key by librdkafka's Java-compatible hash (murmur2, as Kafka's own clients), or spread when
there is no key; ``timestamp`` (an expression in epoch milliseconds; none: the time of
producing). Expressions and encoders run over whole batches (``formats``).

Exactly once (``delivery: exactly_once``, the default): the two-phase-commit template
(``two_phase_commit``) with one Kafka transaction per subtask and checkpoint. Its
transactional id is ``<prefix>-<subtask>-<sequence>``: the sink's transaction prefix (in
operator state, the same for every attempt of a run and for a run restored from its
snapshots), the subtask, and the checkpoint it is meant for (the one after the last
pre-commit). A transaction's producer is created when its first batch arrives; its
producer id and epoch are written to the registry (``transactions``) before any record
is sent. The pre-commit flushes the producer -- every record acknowledged by the broker,
still invisible to ``read_committed`` consumers -- and marks it pre-committed in the
registry; the checkpoint's completion commits it. On every start, before writing, a
subtask ends what the registry holds of its subtasks (``k % parallelism``): transactions
pre-committed for a checkpoint up to the restored one are committed (``EndTxn``, a
transaction of a dead producer, as Flink resumes one), every other one is aborted. The
next transaction of a subtask reuses the id of the first one aborted, and a real broker
then fences any producer of it still alive. A checkpoint that takes longer than the
broker's ``transaction.max.timeout.ms`` (15 minutes by default) loses its transaction:
``transaction_timeout_ms`` must stay below it and above the longest checkpoint.

At least once (``delivery: at_least_once``): an idempotent producer; every checkpoint
waits until the broker acknowledged every record sent before it (a restore sends the
records after it again, so some may be doubled).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.runtime.grants import Grants
from engine.runtime.operators.base import ConfigurationError, StreamOperator
from engine.runtime.operators.connectors.kafka import formats
from engine.runtime.operators.connectors.kafka.clients import (base_config, kafka_error, topic_partitions,
                                                               transactional_producer)
from engine.runtime.operators.connectors.kafka.protocol import (INVALID_TXN_STATE, NONE, KafkaProtocolError,
                                                                ProducerIdentity, end_transaction, error_name)
from engine.runtime.operators.connectors.kafka.transactions import TransactionRegistry, registry_roots
from engine.runtime.operators.restored_state import require
from engine.runtime.operators.two_phase_commit import CommitError, TwoPhaseCommitSink

DEFAULT_DELIVERY_TIMEOUT_MS = 120_000
DEFAULT_TRANSACTION_TIMEOUT_MS = 900_000
QUEUE_FULL_WAIT_S = 0.05
ABORT_ON_CLOSE_TIMEOUT_S = 5.0


class RecordWriter:
    """Turns batches of records into messages of one topic and hands them to a producer."""

    def __init__(self, node: dict, grants: Grants | None):
        from engine.spec.expressions import compile_batch_expression

        params = node.get("params") or {}
        self.node = node
        self.topic = params["topic"]
        self.values_of = compile_batch_expression(params["value"]) if params.get("value") else None
        self.keys_of = compile_batch_expression(params["key"]) if params.get("key") else None
        self.partitions_of = compile_batch_expression(params["partition"]) if params.get("partition") else None
        self.timestamps_of = compile_batch_expression(params["timestamp"]) if params.get("timestamp") else None
        try:
            self.encode_values = formats.value_encoder(params, grants)
        except ValueError as error:
            raise ConfigurationError(node, str(error)) from None
        self.encode_keys = formats.key_encoder(params.get("key_format", "string"))

    def write(self, producer, batch: list) -> None:
        values = self._encoded(self.encode_values, self.values_of(batch) if self.values_of else batch, "value")
        keys = self._encoded(self.encode_keys, self.keys_of(batch), "key") if self.keys_of else None
        partitions = self._partitions(batch) if self.partitions_of else None
        timestamps = list(map(int, self.timestamps_of(batch))) if self.timestamps_of else None
        produce, topic = producer.produce, self.topic
        if partitions is None and timestamps is None:  # positional: produce(topic, value[, key])
            for message in zip(values, keys) if keys is not None else zip(values):
                try:
                    produce(topic, *message)
                except BufferError:  # librdkafka's queue is full: let it send, then go on
                    self._produce_when_queue_frees(producer, topic, message, {})
            return
        count = len(values)
        for value, key, partition, timestamp in zip(values, keys or [None] * count, partitions or [-1] * count,
                                                    timestamps or [0] * count):
            try:
                produce(topic, value, key, partition, timestamp=timestamp)
            except BufferError:
                self._produce_when_queue_frees(producer, topic, (value, key, partition), {"timestamp": timestamp})

    @staticmethod
    def _produce_when_queue_frees(producer, topic: str, message: tuple, options: dict) -> None:
        while True:
            producer.poll(QUEUE_FULL_WAIT_S)
            try:
                producer.produce(topic, *message, **options)
                return
            except BufferError:
                continue

    def _encoded(self, encode, values: list, what: str) -> list:
        try:
            return encode(values)
        except formats.BadRecord as bad:
            raise ConfigurationError(self.node, f"the {what} {values[bad.index]!r:.200} cannot be written: "
                                                f"{bad.cause}") from None

    def _partitions(self, batch: list) -> list[int]:
        partitions = self.partitions_of(batch)
        if not all(type(partition) is int and partition >= 0 for partition in partitions):
            bad = next(p for p in partitions if not (type(p) is int and p >= 0))
            raise ConfigurationError(self.node, f"the partition expression gave {bad!r}, not a partition number")
        return partitions


def producer_config(node: dict) -> dict:
    params = node.get("params") or {}
    return {**base_config(node), "acks": "all", "enable.idempotence": True,
            "partitioner": "murmur2_random", "compression.type": params.get("compression", "none"),
            "message.timeout.ms": int(params.get("delivery_timeout_ms", DEFAULT_DELIVERY_TIMEOUT_MS))}


class DeliveryFailures:
    """A producer's delivery callback for failed records only (``delivery.report.only.error``):
    librdkafka counts a record that failed as delivered, so ``flush`` alone would not tell."""

    def __init__(self):
        self.count = 0
        self.first = ""

    def __call__(self, error, message) -> None:
        if error is not None:
            self.count += 1
            self.first = self.first or error.str()

    def config(self) -> dict:
        return {"on_delivery": self, "delivery.report.only.error": True}


def flush(node: dict, producer, timeout_ms: int, failures: DeliveryFailures) -> None:
    """Wait until the broker acknowledged every record sent, or fail naming the node."""
    left = producer.flush(timeout_ms / 1000 + 5)
    if left:
        raise ConfigurationError(node, f"{left} records were not acknowledged by Kafka at "
                                       f"{node['params']['bootstrap_servers']} within {timeout_ms} ms")
    raise_failures(node, failures)


def raise_failures(node: dict, failures: DeliveryFailures) -> None:
    if failures.count:
        raise ConfigurationError(node, f"Kafka at {node['params']['bootstrap_servers']} did not take "
                                       f"{failures.count} records: {failures.first}")


def check_topic(node: dict, config: dict) -> None:
    from confluent_kafka.admin import AdminClient

    topic_partitions(node, AdminClient({key: value for key, value in config.items()
                                        if key in ("bootstrap.servers", "client.id", "log_level")}),
                     [node["params"]["topic"]])


class KafkaSink(StreamOperator):
    """``delivery: at_least_once``: an idempotent producer, flushed at every checkpoint."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.writer = RecordWriter(node, Grants.of(context.config))
        self.config = producer_config(node)
        self.delivery_timeout_ms = self.config["message.timeout.ms"]
        self.producer = None
        self.failures = DeliveryFailures()

    def open(self):
        from confluent_kafka import Producer

        check_topic(self.node, self.config)
        self.producer = Producer({**self.config, **self.failures.config()})

    def process_batch(self, batch):
        self.writer.write(self.producer, batch)  # failures surface at the checkpoint's flush

    def process_watermark(self, watermark):
        pass

    def snapshot_state(self, checkpoint_id):
        flush(self.node, self.producer, self.delivery_timeout_ms, self.failures)

    def finish(self):
        self.snapshot_state(0)

    def close(self):
        self.producer = None  # freed by librdkafka without waiting for what is still queued


@dataclass
class Transaction:
    """An open transaction of this subtask: its producer, identity, sequence and record count."""

    producer: Any
    identity: ProducerIdentity
    sequence: int
    failures: DeliveryFailures
    records: int = 0


class TransactionalKafkaSink(TwoPhaseCommitSink):
    """``delivery: exactly_once``: one Kafka transaction per subtask and checkpoint (see the module)."""

    prefix_label = "k"

    def __init__(self, node, context):
        super().__init__(node, context)
        self.writer = RecordWriter(node, Grants.of(context.config))
        self.config = {**producer_config(node), "transaction.timeout.ms": int(
            self.params.get("transaction_timeout_ms", DEFAULT_TRANSACTION_TIMEOUT_MS))}
        self.delivery_timeout_ms = self.config["message.timeout.ms"]
        self.bootstrap = self.params["bootstrap_servers"]
        self.registry: TransactionRegistry | None = None
        self._next_sequence = 1
        self._pre_committed: dict[str, Any] = {}  # transactional id -> its live producer, until committed
        self._preparing = None  # (sequence, failures, future of (producer, identity)): the next producer
        self._preparer = None

    def initialize_state(self):
        super().initialize_state()  # recovery first: no producer of a lingering id starts before it ended
        self._prepare_next()

    def connect(self):
        check_topic(self.node, self.config)
        restored = self.context.restore.location if self.context.is_restored else None
        storage = str(self.context.config.get("checkpoint_storage") or "checkpoints")
        self.registry = TransactionRegistry(registry_roots(storage, restored), self.transaction_prefix)
        if self.context.is_restored:
            self._next_sequence = self.context.restore.checkpoint_id + 1

    # -- transactions ----------------------------------------------------------------------------
    def _prepare_next(self) -> None:
        """Start the producer of the next transaction on a helper thread: initialising one (finding the
        coordinator, InitProducerId, the id report) takes from 10 ms to half a second, which would
        otherwise stall this subtask at its first batch after every checkpoint. The producer does
        nothing until ``begin_transaction`` writes it down and begins its transaction."""
        from concurrent.futures import ThreadPoolExecutor

        if self._preparer is None:
            self._preparer = ThreadPoolExecutor(1, thread_name_prefix=f"kafka-producer-{self.node_id}")
        sequence, failures = self._next_sequence, DeliveryFailures()
        transactional_id = f"{self.transaction_prefix}-{self.context.subtask_index}-{sequence}"
        future = self._preparer.submit(transactional_producer, self.node, {**self.config, **failures.config()},
                                       transactional_id, self.delivery_timeout_ms / 1000)
        self._preparing = (sequence, failures, future)

    def _prepared_producer(self) -> tuple:
        """``(producer, identity, failures)`` for ``_next_sequence``: the one prepared, else a new one."""
        if self._preparing is None or self._preparing[0] != self._next_sequence:
            self._prepare_next()
        _, failures, future = self._preparing
        self._preparing = None
        producer, identity = future.result()
        return producer, identity, failures

    def begin_transaction(self):
        subtask = self.context.subtask_index
        sequence = self._next_sequence
        producer, identity, failures = self._prepared_producer()
        self.registry.record(subtask, sequence, identity)
        try:
            producer.begin_transaction()
        except Exception as error:
            raise kafka_error(self.node, f"cannot begin transaction {identity.transactional_id}", error) from None
        return Transaction(producer, identity, sequence, failures)

    def write(self, transaction, batch):
        """No ``poll`` per batch: it gives up the GIL and waits to get it back, and nothing here needs
        serving before the pre-commit's flush (only failed deliveries report)."""
        self.writer.write(transaction.producer, batch)
        transaction.records += len(batch)

    def pre_commit(self, transaction, checkpoint_id):
        """Every record acknowledged, none failed; else the checkpoint fails and so does this attempt (a
        transaction that lost a record must never be committed: recovery aborts it)."""
        flush(self.node, transaction.producer, self.delivery_timeout_ms, transaction.failures)
        identity = transaction.identity
        self.registry.record(self.context.subtask_index, transaction.sequence, identity, checkpoint_id)
        self._pre_committed[identity.transactional_id] = transaction.producer
        self._next_sequence = checkpoint_id + 1
        self._prepare_next()
        return {"transactional_id": identity.transactional_id, "producer_id": identity.producer_id,
                "epoch": identity.epoch, "subtask": self.context.subtask_index, "sequence": transaction.sequence,
                "records": transaction.records}

    def commit(self, committable):
        producer = self._pre_committed.pop(committable["transactional_id"], None)
        if producer is not None:
            from confluent_kafka import KafkaException

            try:
                producer.commit_transaction(self.delivery_timeout_ms / 1000)
            except KafkaException as error:
                if error.args[0].txn_requires_abort():
                    raise CommitError(f"node '{self.node_id}': transaction {committable['transactional_id']} "
                                      f"could not be committed: {error.args[0].str()}") from None
                # not confirmed (a broker away, a timeout): the next attempt's recovery commits it
                raise kafka_error(self.node, f"transaction {committable['transactional_id']} was not confirmed "
                                             "committed", error) from None
        else:
            self._end(ProducerIdentity(committable["transactional_id"], committable["producer_id"],
                                       committable["epoch"]), commit=True)
        self.registry.forget((committable["subtask"], committable["sequence"]))

    def abort(self, transaction):
        """Abort the open transaction when the broker answers soon; else the next attempt's recovery does."""
        try:
            transaction.producer.abort_transaction(ABORT_ON_CLOSE_TIMEOUT_S)
        except Exception:
            return
        self.registry.forget((self.context.subtask_index, transaction.sequence))

    # -- recovery ------------------------------------------------------------------------------
    def leftovers(self):
        """The registered transactions; each must be one this sink began (its id is the sink's name for it),
        or the snapshot whose registry names it is refused before any transaction is ended."""
        entries = self.registry.transactions()
        for entry in entries:
            require(entry.identity.transactional_id == f"{self.transaction_prefix}-{entry.subtask}-{entry.sequence}",
                    self.node, self.context, f"comes with a transaction registry naming "
                                             f"{entry.identity.transactional_id!r:.120}, which this sink did not begin")
        return [(entry.subtask, entry.checkpoint_id, entry) for entry in entries]

    def commit_leftover(self, handle):
        self._end(handle.identity, commit=True)
        self.registry.forget(handle)

    def abort_leftover(self, handle):
        self._end(handle.identity, commit=False)
        self.registry.forget(handle)

    def _end(self, identity: ProducerIdentity, *, commit: bool) -> None:
        """End a transaction of a producer that is gone; a refused commit loses data, a refused abort
        means it ended already (committed earlier, or aborted by a newer producer of the id)."""
        try:
            code = end_transaction(self.bootstrap, identity, commit, timeout_s=self.delivery_timeout_ms / 1000)
        except KafkaProtocolError as error:
            raise ConfigurationError(self.node, f"cannot {'commit' if commit else 'abort'} transaction "
                                                f"{identity.transactional_id}: {error}") from None
        if commit and code != NONE:
            raise CommitError(f"node '{self.node_id}': transaction {identity.transactional_id} of producer "
                              f"{identity.producer_id} could not be committed: {error_name(code)}"
                              + (" (it was aborted: its records are lost)" if code == INVALID_TXN_STATE else ""))

    def close(self):
        try:
            super().close()
        finally:
            # pre-committed transactions stay open for the next attempt: drop the producers, do not close them
            # (close() would abort them); a producer prepared for the next transaction has none
            self._pre_committed.clear()
            self._preparing = None
            if self._preparer is not None:
                self._preparer.shutdown(wait=False, cancel_futures=True)

    def metrics(self):
        return {**super().metrics(), "recovered_committed": self.recovered["committed"],
                "recovered_aborted": self.recovered["aborted"]}


def kafka_sink(node, context):
    """``sink.kafka``: exactly once unless ``delivery`` says at least once."""
    if _at_least_once(node):
        return KafkaSink(node, context)
    return TransactionalKafkaSink(node, context)


def _at_least_once(node) -> bool:
    return (node.get("params") or {}).get("delivery", "exactly_once") == "at_least_once"


kafka_sink.awaits_final_checkpoint = lambda node: not _at_least_once(node)
