"""Connector throughput: records per second through each new source and sink, exactly once.

Each job runs in the in-process cluster at parallelism 1 with checkpoints every second
(the exactly-once sinks commit on them), against a PostgreSQL server this benchmark starts
(``tests/postgres_server.py``) and the embedded Redis (or ``REDIS_URL``). A job's rate is
its records over its whole run (start, restore checks, the final checkpoint included), so
short jobs look slower than their steady state; the counts are chosen so that each job runs
for a few seconds. The exactly-once file sink (``sink.file``) runs first and last as the
reference the others are read against (its two figures also show how much the machine's
load moved meanwhile).

CDC: the changes are committed before the job starts (the slot exists already), and the
rate is how fast the job catches up: from the first poll to the last change emitted,
measured from the per-second metrics (so +-1 s).

Figures are printed, never asserted. The last line is one JSON object with the ``rps_*``
figures and ``load_average``.

Run: ``make bench-connectors`` or ``.venv/bin/python tests/bench/bench_connectors.py [rows]``
(``rows``: default 200,000; the Redis and upsert jobs take half).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else sized(200_000, 2_000)


def job(source: dict, sink: dict) -> dict:
    return {"format": 1, "name": "bench", "checkpointing": {"interval_ms": 1000}, "restart": {"strategy": "none"},
            "nodes": [source, sink], "edges": [{"id": "e", "from": source["id"], "to": sink["id"]}]}


def numbers(count: int, expression: str = '{"k": x % 1000, "total": x}') -> dict:
    return {"id": "gen", "type": "source.datagen", "params": {"count": count, "expression": expression}}


COUNTER = {"id": "out", "type": "sink.collect", "params": {"max_records": 1}}


def timed(definition: dict, records: int, work: str) -> float:
    with tempfile.TemporaryDirectory() as checkpoints:
        result = LocalCluster().run(definition, timeout=600, checkpoint_dir=checkpoints)
    if result.status != "FINISHED":
        raise RuntimeError(f"{work}: {result.failure}")
    rate = records / result.duration_s
    print(f"{work:<44} {records:>8} records {result.duration_s:6.2f} s {rate:>12,.0f} records/s", flush=True)
    return rate


def cdc_catch_up(url: str, changes: int) -> float:
    import psycopg

    slot = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE changes (id bigint PRIMARY KEY, v bigint)")
        connection.execute("CREATE PUBLICATION %s FOR TABLE changes" % slot)
        connection.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (slot,))
        for start in range(0, changes, 10_000):
            connection.execute("INSERT INTO changes SELECT i, i FROM generate_series(%s::bigint, %s::bigint) i",
                               (start, start + 9_999))
    source = {"id": "cdc", "type": "source.postgres_cdc",
              "params": {"url": url, "tables": ["changes"], "slot": slot, "snapshot": "never"}}
    marks: list = []

    def on_event(event: dict) -> None:
        if event["type"] == "metrics":
            emitted = event["vertices"].get("cdc", {}).get("changes_emitted", 0)
            marks.append((time.monotonic(), emitted))

    with tempfile.TemporaryDirectory() as checkpoints:
        handle = LocalCluster().submit(job(source, COUNTER), on_event=on_event, checkpoint_dir=checkpoints)
        started = time.monotonic()
        while not marks or marks[-1][1] < changes:
            time.sleep(0.05)
            if time.monotonic() - started > 600:
                raise RuntimeError("CDC did not catch up")
        handle.cancel()
        handle.wait(60)
    first = next(at for at, emitted in marks if emitted > 0)
    done = next(at for at, emitted in marks if emitted >= changes)
    seconds = max(done - first, 1.0)
    rate = changes / seconds
    print(f"{'source.postgres_cdc (catch-up, pgoutput)':<44} {changes:>8} records {seconds:6.2f} s "
          f"{rate:>12,.0f} records/s", flush=True)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
    return rate


def main() -> None:
    from studio.embedded_redis import ensure_redis_url
    from tests.postgres_server import PostgresServer

    redis_url = ensure_redis_url()
    load = os.getloadavg()[0]
    figures: dict = {}
    with PostgresServer() as server, tempfile.TemporaryDirectory() as work:
        import psycopg
        import redis

        url = server.create_database("bench")
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("CREATE TABLE sums (k integer, total bigint)")
            connection.execute("CREATE TABLE latest (k integer PRIMARY KEY, total bigint)")
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        stream = f"bench-{uuid.uuid4().hex}"
        print(f"load average at start: {load:.2f} (2 cores shared with other work)")
        figures["rps_file_sink"] = timed(job(numbers(ROWS), {"id": "out", "type": "sink.file",
                                                             "params": {"path": f"{work}/files"}}),
                                         ROWS, "sink.file (reference)")
        figures["rps_postgres_insert"] = timed(job(numbers(ROWS), {"id": "out", "type": "sink.postgres", "params": {
            "url": url, "table": "sums"}}), ROWS, "sink.postgres insert (COPY, 2PC)")
        figures["rps_postgres_upsert"] = timed(job(numbers(ROWS // 2), {"id": "out", "type": "sink.postgres", "params": {
            "url": url, "table": "latest", "mode": "upsert", "key": ["k"]}}), ROWS // 2,
            "sink.postgres upsert (staged, 2PC)")
        figures["rps_parquet_sink"] = timed(job(numbers(ROWS), {"id": "out", "type": "sink.parquet",
                                                                "params": {"path": f"{work}/parquet"}}),
                                            ROWS, "sink.parquet (2PC)")
        figures["rps_parquet_source"] = timed(job({"id": "in", "type": "source.parquet",
                                                   "params": {"path": f"{work}/parquet"}}, COUNTER),
                                              ROWS, "source.parquet")
        figures["rps_redis_sink_exactly_once"] = timed(job(numbers(ROWS // 2), {
            "id": "out", "type": "sink.redis_stream", "params": {"stream": stream, "url": redis_url}}),
            ROWS // 2, "sink.redis_stream exactly_once")
        figures["rps_redis_sink_at_least_once"] = timed(job(numbers(ROWS // 2), {
            "id": "out", "type": "sink.redis_stream",
            "params": {"stream": stream + "-alo", "url": redis_url, "delivery": "at_least_once"}}),
            ROWS // 2, "sink.redis_stream at_least_once")
        figures["rps_redis_source"] = timed(job({"id": "in", "type": "source.redis_stream", "params": {
            "stream": stream, "url": redis_url, "bounded": True}}, COUNTER), ROWS // 2, "source.redis_stream (reference)")
        figures["rps_redis_group_source"] = timed(job({"id": "in", "type": "source.redis_stream", "params": {
            "stream": stream, "url": redis_url, "group": "bench", "bounded": True}}, COUNTER),
            ROWS // 2, "source.redis_stream group (XACK on checkpoints)")
        figures["rps_cdc_snapshot"] = timed(job({"id": "in", "type": "source.postgres_cdc", "params": {
            "url": url, "tables": ["sums"], "snapshot": "only"}}, COUNTER), ROWS, "source.postgres_cdc snapshot only")
        figures["rps_cdc_stream"] = cdc_catch_up(url, ROWS // 2)
        figures["rps_file_sink_again"] = timed(job(numbers(ROWS), {"id": "out", "type": "sink.file",
                                                                   "params": {"path": f"{work}/files2"}}),
                                               ROWS, "sink.file (reference, again)")
        for key in client.scan_iter(f"{stream}*"):
            client.delete(key)
        client.close()
    figures = {name: round(value) for name, value in figures.items()}
    figures["load_average"] = round(os.getloadavg()[0], 2)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
