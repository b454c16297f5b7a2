"""The exactly-once sinks of PostgreSQL, Parquet and Redis Streams on local Spark, slots SIGKILLed.

One job feeds all three sinks at parallelism 2 (records cross slot processes over TCP). Six
times, a random slot's Spark Python worker is killed at a random moment after a checkpoint
completed; the job restarts from its latest checkpoint each time. Each sink must then hold
exactly what a failure-free run writes, and no prepared transaction, pending file or
staging list may be left.
"""
from __future__ import annotations

import os
import threading
import uuid

import pytest

from engine.api import Spark, job_master_for
from engine.spec import normalise_definition
from tests.engine.connectors.support import (SlotKiller, all_new_sinks, create_sums_table, expected_sums,
                                             parquet_sums, prepared_transactions, redis_sums, sums_job, table_rows)

pytestmark = pytest.mark.spark

KILLS = 6
COUNT = 6000


def test_six_slot_kills_leave_every_sink_exact(spark_session, postgres_dsn, tmp_path):
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    stream = f"test-spark-eo-{uuid.uuid4().hex}"
    create_sums_table(postgres_dsn)
    sinks = all_new_sinks(postgres_dsn, tmp_path / "parquet", os.environ["REDIS_URL"], stream)
    definition = normalise_definition(sums_job(sinks, count=COUNT, rate=700, interval_ms=150, attempts=KILLS + 2))
    killer = SlotKiller(seed=int(os.environ.get("KILL_SEED", "20261122")), kills=KILLS)
    job_master = job_master_for(definition, Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=killer.on_event)
    done = threading.Event()
    thread = threading.Thread(target=killer.kill_repeatedly, args=(job_master, done))
    thread.start()
    try:
        outcome = job_master.run()
    finally:
        done.set()
        thread.join()
    try:
        assert outcome.status == "FINISHED", outcome.failure_cause
        assert killer.kills == KILLS, f"only {killer.kills} kills happened before the job ended"
        expected = expected_sums(COUNT)
        assert table_rows(postgres_dsn) == expected
        assert prepared_transactions(postgres_dsn) == []
        assert parquet_sums(tmp_path / "parquet") == expected
        assert [p.name for p in (tmp_path / "parquet").rglob(".*")] == []
        assert redis_sums(client, stream) == expected
        assert list(client.scan_iter(f"{stream}:*")) == []
    finally:
        for key in client.scan_iter(f"{stream}*"):
            client.delete(key)
        client.close()
