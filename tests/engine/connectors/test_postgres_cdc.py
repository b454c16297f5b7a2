"""``source.postgres_cdc`` against the tests' own server: changes exactly once, the slot moves on checkpoints."""
from __future__ import annotations

import json
import random
import threading
import uuid

import pytest

import psycopg

from engine.checkpoint.coordinator import CheckpointException
from engine.cluster.local import LocalCluster
from tests.engine.connectors.support import KillPlan
from tests.support import wait_until


@pytest.fixture
def slot(postgres_dsn):
    """A replication slot name of this test's own (slots are per server); dropped after the test."""
    name = f"cdc_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                           "WHERE slot_name = %s AND NOT active", (name,))


def cdc_job(url: str, sink_dir, slot: str = "cdc_unused", *, snapshot: str = "never", interval_ms: int = 100,
            attempts: int = 0) -> dict:
    return {"format": 1, "name": "cdc", "checkpointing": {"interval_ms": interval_ms},
            "restart": {"strategy": "fixed_delay" if attempts else "none", "attempts": attempts, "delay_ms": 5},
            "nodes": [{"id": "cdc", "type": "source.postgres_cdc",
                       "params": {"url": url, "tables": ["items"], "slot": slot, "snapshot": snapshot}},
                      {"id": "out", "type": "sink.file", "params": {"path": str(sink_dir)}}],
            "edges": [{"id": "e", "from": "cdc", "to": "out"}]}


def make_table(url: str, rows: int = 0) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE items (id integer PRIMARY KEY, v integer, note text)")
        for i in range(rows):
            connection.execute("INSERT INTO items VALUES (%s, %s, 'initial')", (i, i))


def committed_changes(directory) -> list[dict]:
    return [json.loads(line) for path in sorted(directory.glob("part-*.jsonl")) for line in path.read_text().splitlines()]


def lsn(text: str) -> int:
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


def write_changes(url: str, seed: int, count: int, done: threading.Event, log: list, existing: int = 0) -> None:
    """Random inserts, updates and deletes in small transactions; ``log`` gets (op, id, v) in commit order.
    Rows ``0 .. existing - 1`` are there already."""
    rng = random.Random(seed)
    alive: set[int] = set(range(existing))
    with psycopg.connect(url, autocommit=True) as connection:
        for step in range(count):
            key = rng.randrange(40)
            with connection.transaction():
                if key not in alive:
                    connection.execute("INSERT INTO items VALUES (%s, %s, 'x')", (key, step))
                    log.append(("insert", key, step))
                    alive.add(key)
                elif rng.random() < 0.3:
                    connection.execute("DELETE FROM items WHERE id = %s", (key,))
                    log.append(("delete", key, None))
                    alive.discard(key)
                else:
                    connection.execute("UPDATE items SET v = %s WHERE id = %s", (step, key))
                    log.append(("update", key, step))
    done.set()


def as_changes(records: list[dict]) -> list[tuple]:
    ordered = sorted(records, key=lambda r: lsn(r["lsn"]))
    return [(r["op"], r["key"]["id"], (r["values"] or {}).get("v")) for r in ordered]


def stop_with_savepoint_through_failovers(handle, attempts: int = 5) -> None:
    """Stop with a savepoint, asking again when a failover aborted it: a kill that fired just
    before ``plan.stop()`` can restart the region after the job was seen RUNNING."""
    for attempt in range(attempts):
        wait_until(lambda: handle.job.status == "RUNNING", 30, "the job to run")
        try:
            handle.stop_with_savepoint(drain=False).result(timeout=60)
            return
        except CheckpointException as error:
            if "failover" not in str(error) or attempt == attempts - 1:
                raise


def test_every_change_arrives_exactly_once_in_order_despite_kills(postgres_dsn, slot, tmp_path):
    make_table(postgres_dsn)
    seed = random.randrange(2**32)
    points = [("source_poll", "cdc"), ("snapshot", "cdc"), ("async_upload", "cdc"), ("before_commit", "cdc"),
              ("after_commit", "cdc")]
    plan = KillPlan(seed, limit=6, parallelism=1, points=points)
    handle = LocalCluster(config={"batch_size": 7}).submit(
        cdc_job(postgres_dsn, tmp_path / "out", slot, attempts=20), kill_hook=plan, checkpoint_dir=str(tmp_path / "chk"))
    wait_until(lambda: slot_exists(postgres_dsn, slot), 30, "the source to create its slot")
    log: list = []
    done = threading.Event()
    writer = threading.Thread(target=write_changes, args=(postgres_dsn, seed, 600, done, log))
    writer.start()
    writer.join(120)
    assert done.is_set()
    wait_until(lambda: len(committed_changes(tmp_path / "out")) >= len(log) or handle.job.status == "FAILED",
               90, "every change committed")
    plan.stop()
    stop_with_savepoint_through_failovers(handle)
    result = handle.wait(60)
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert plan.kills, "the job was killed on the way"
    changes = committed_changes(tmp_path / "out")
    assert as_changes(changes) == log, f"seed {seed}, kills {plan.kills}"
    for path in (tmp_path / "out").glob("part-*.jsonl"):  # emitted in commit order, so per key too
        lsns = [lsn(json.loads(line)["lsn"]) for line in path.read_text().splitlines()]
        assert lsns == sorted(lsns), path.name
    assert len({r["lsn"] for r in changes}) == len(changes), "no change twice"


def slot_exists(url: str, slot: str) -> bool:
    """Changes count from the slot's creation on (snapshot: never): a test writes only after it."""
    with psycopg.connect(url) as connection:
        return connection.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()


def slot_confirmed(url: str, slot: str) -> int:
    with psycopg.connect(url) as connection:
        return lsn(connection.execute("SELECT confirmed_flush_lsn::text FROM pg_replication_slots "
                                      "WHERE slot_name = %s", (slot,)).fetchone()[0])


def test_the_slot_advances_only_when_a_checkpoint_completes(postgres_dsn, slot, tmp_path):
    make_table(postgres_dsn, rows=3)
    definition = cdc_job(postgres_dsn, tmp_path / "out", slot, snapshot="initial", interval_ms=3_600_000)
    events: list = []
    handle = LocalCluster(config={"batch_size": 5}).submit(definition, on_event=events.append,
                                                           checkpoint_dir=str(tmp_path / "chk"))
    wait_until(lambda: slot_exists(postgres_dsn, slot), 30, "the source to create its slot")
    start = slot_confirmed(postgres_dsn, slot)
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        for i in range(10, 30):
            connection.execute("INSERT INTO items VALUES (%s, %s, 'new')", (i, i))
        written_up_to = lsn(connection.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0])

    def emitted() -> int:
        metrics = [e for e in events if e["type"] == "metrics"]
        return metrics[-1]["vertices"]["cdc"].get("changes_emitted", 0) if metrics else 0

    wait_until(lambda: emitted() >= 20, 30, "the changes to be read")
    assert slot_confirmed(postgres_dsn, slot) == start, "no checkpoint completed: the slot has not moved"
    handle.trigger_savepoint().result(timeout=30)
    wait_until(lambda: slot_confirmed(postgres_dsn, slot) > start, 30, "the slot to advance after the checkpoint")
    assert slot_confirmed(postgres_dsn, slot) <= written_up_to
    handle.stop_with_savepoint(drain=False).result(timeout=30)
    assert handle.wait(30).status == "FINISHED"
    records = committed_changes(tmp_path / "out")
    assert [(r["op"], r["key"]["id"]) for r in records if r["op"] == "snapshot"] == [("snapshot", i) for i in range(3)]
    assert sorted(r["key"]["id"] for r in records if r["op"] == "insert") == list(range(10, 30))


def test_snapshot_only_reads_the_table_once_without_a_slot(postgres_dsn, tmp_path):
    make_table(postgres_dsn, rows=12)
    definition = cdc_job(postgres_dsn, tmp_path / "out", snapshot="only")
    result = LocalCluster(config={"batch_size": 5}).run(definition, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    records = committed_changes(tmp_path / "out")
    assert sorted(r["values"]["v"] for r in records) == list(range(12))
    with psycopg.connect(postgres_dsn) as connection:
        assert connection.execute("SELECT count(*) FROM pg_replication_slots "
                                  "WHERE database = current_database()").fetchone()[0] == 0


def test_a_missing_table_and_a_refused_connection_name_node_and_cause(postgres_dsn, tmp_path):
    from tests.postgres_server import free_port

    result = LocalCluster().run(cdc_job(postgres_dsn, tmp_path / "out"), timeout=60,
                                checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "node 'cdc' (source.postgres_cdc): table \"items\" does not exist" in result.failure
    refused = cdc_job(f"postgresql://u:p@127.0.0.1:{free_port()}/db", tmp_path / "out")
    result = LocalCluster().run(refused, timeout=60, checkpoint_dir=str(tmp_path / "chk2"))
    assert result.status == "FAILED"
    assert "node 'cdc' (source.postgres_cdc): cannot connect to PostgreSQL at 127.0.0.1:" in result.failure


@pytest.mark.spark
def test_on_spark_killed_slots_restore_every_change_exactly_once(spark_session, postgres_dsn, slot, tmp_path):
    from engine.api import Spark, job_master_for
    from engine.spec import normalise_definition
    from tests.engine.connectors.support import SlotKiller

    make_table(postgres_dsn)
    killer = SlotKiller(seed=7, kills=2)
    events: list = []

    def on_event(event):
        events.append(event)
        killer.on_event(event)

    definition = cdc_job(postgres_dsn, tmp_path / "out", slot, attempts=5)
    definition["nodes"][1]["parallelism"] = 2  # two slot processes: the reader's and another sink's
    definition["edges"][0]["partitioning"] = "rebalance"
    definition = normalise_definition(definition)
    job_master = job_master_for(definition, Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=on_event)
    runner = threading.Thread(target=lambda: events.append({"type": "outcome", "outcome": job_master.run()}))
    runner.start()
    done = threading.Event()
    kills = threading.Thread(target=killer.kill_repeatedly, args=(job_master, done))
    kills.start()
    log: list = []
    writer_done = threading.Event()
    try:
        wait_until(lambda: slot_exists(postgres_dsn, slot), 60, "the source to create its slot")
        write_changes(postgres_dsn, 11, 300, writer_done, log)
        wait_until(lambda: killer.kills == 2, 90, "two slot kills")
        done.set()
        kills.join()
        wait_until(lambda: [e.get("status") for e in events].count("RUNNING") == 3, 120,
                   "the job to run again after the second kill")
        wait_until(lambda: len(committed_changes(tmp_path / "out")) >= len(log), 120, "every change committed")
        job_master.stop_with_savepoint(drain=False).result(timeout=60)
        runner.join(60)
    finally:
        done.set()
        if runner.is_alive():
            job_master.cancel()
            runner.join(60)
    outcome = next(e["outcome"] for e in events if e["type"] == "outcome")
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert as_changes(committed_changes(tmp_path / "out")) == log


def replay(records: list[dict]) -> dict:
    """The table a consumer builds: snapshot rows first, then the changes in commit order. Strict:
    an insert of a row it has, or an update or delete of one it has not, means a change the
    snapshot already showed was emitted again (or one was lost)."""
    table = {r["key"]["id"]: r["values"]["v"] for r in records if r["op"] == "snapshot"}
    for r in sorted((r for r in records if r["op"] != "snapshot"), key=lambda r: lsn(r["lsn"])):
        key = r["key"]["id"]
        if (r["op"] == "insert") == (key in table):
            return {"inconsistent": r}
        if r["op"] == "delete":
            del table[key]
        else:
            table[key] = r["values"]["v"]
    return table


def test_kills_during_the_initial_snapshot_resume_it_without_losing_or_doubling_a_change(
        postgres_dsn, slot, tmp_path):
    make_table(postgres_dsn, rows=40)
    seed = random.randrange(2**32)
    points = [("source_poll", "cdc"), ("snapshot", "cdc"), ("async_upload", "cdc"), ("before_commit", "cdc")]
    plan = KillPlan(seed, limit=5, parallelism=1, points=points)
    plan.point, plan.vertex, plan.skip = "source_poll", "cdc", 6  # the first kill in the middle of the snapshot
    definition = cdc_job(postgres_dsn, tmp_path / "out", slot, snapshot="initial", interval_ms=30, attempts=20)
    log: list = []
    done = threading.Event()
    writer = threading.Thread(target=write_changes, args=(postgres_dsn, seed, 400, done, log, 40))
    handle = LocalCluster(config={"batch_size": 3}).submit(definition, kill_hook=plan,
                                                           checkpoint_dir=str(tmp_path / "chk"))
    writer.start()  # changes race the snapshot from its first row on
    writer.join(120)
    assert done.is_set() and len(log) == 400
    wait_until(lambda: slot_exists(postgres_dsn, slot), 30, "the slot")
    with psycopg.connect(postgres_dsn) as connection:
        final = dict(connection.execute("SELECT id, v FROM items").fetchall())
    wait_until(lambda: replay(committed_changes(tmp_path / "out")) == final or handle.job.status == "FAILED",
               90, "the committed changes to rebuild the table")
    plan.stop()
    stop_with_savepoint_through_failovers(handle)
    result = handle.wait(60)
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert plan.kills, seed
    records = committed_changes(tmp_path / "out")
    context = f"seed {seed}, kills {plan.kills}"
    assert replay(records) == final, context
    snapshot_keys = [r["key"]["id"] for r in records if r["op"] == "snapshot"]
    assert len(snapshot_keys) == len(set(snapshot_keys)), f"{context}: a row read twice"
    changes = [r["lsn"] for r in records if r["op"] != "snapshot"]
    assert len(changes) == len(set(changes)), f"{context}: a change emitted twice"
