"""Kafka: ``source.kafka`` and ``sink.kafka``, on librdkafka (``confluent-kafka``).

- :mod:`.source` reads the partitions its enumerator hands it, offsets in operator state,
  committed to the consumer group when a checkpoint completes, per-partition watermarks;
- :mod:`.enumerator` finds partitions (also while running) and deals them out as splits,
  from the JobMaster (an operator coordinator, as the file sources' split enumerators);
- :mod:`.sink` writes through a Kafka transaction per subtask and checkpoint (the
  two-phase-commit template), or at least once;
- :mod:`.transactions` writes each transaction down before its first record, so a restart
  can end what a dead attempt left; :mod:`.protocol` ends them (``EndTxn``), which
  librdkafka cannot do for a transaction it did not begin;
- :mod:`.formats` turns batches of values into bytes and back (JSON, CSV, Avro, text);
- :mod:`.clients` configures librdkafka for a node; :mod:`.browse` lists topics and samples
  messages without a job (``engine.api.kafka_topics``, ``kafka_sample``).
"""
