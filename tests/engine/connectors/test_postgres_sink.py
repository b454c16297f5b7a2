"""``sink.postgres`` against the tests' own PostgreSQL server: exactly once by two-phase commit."""
from __future__ import annotations

import random
from collections import Counter

import psycopg
import pytest

from engine.cluster.local import LocalCluster
from tests.engine.connectors.support import (KillPlan, create_sums_table, expected_sums, postgres_sink,
                                             prepared_transactions, sums_job, table_rows)

COUNT = 3000


def final_sums(count: int) -> Counter:
    finals: dict = {}
    for key, total in expected_sums(count):
        finals[key] = max(finals.get(key, 0), total)
    return Counter(finals.items())


@pytest.mark.parametrize("mode", ["insert", "upsert"])
def test_rows_arrive_exactly_once_despite_random_kills(postgres_dsn, tmp_path, mode):
    seed = random.randrange(2**32)
    create_sums_table(postgres_dsn, key=mode == "upsert")
    plan = KillPlan(seed, limit=8, parallelism=2)
    sink = postgres_sink("pg", postgres_dsn, **({"mode": "upsert", "key": ["k"]} if mode == "upsert" else {}))
    definition = sums_job([sink], count=COUNT, rate=2500, attempts=20)
    result = LocalCluster(config={"batch_size": 32}).run(definition, kill_hook=plan, timeout=120,
                                                         checkpoint_dir=str(tmp_path / "chk"))
    context = f"seed {seed}, kills {plan.kills}"
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    assert result.restarts >= 1, context
    rows, expected = table_rows(postgres_dsn), expected_sums(COUNT) if mode == "insert" else final_sums(COUNT)
    assert rows == expected, (f"{context}: {sum((expected - rows).values())} lost, "
                              f"{sum((rows - expected).values())} doubled")
    assert prepared_transactions(postgres_dsn) == []


def test_a_crash_between_completion_and_commit_is_committed_by_the_restore(postgres_dsn, tmp_path):
    """Kill at the first commit and give up: the prepared transaction stays on the server; a
    restore from the completed checkpoint commits it and rolls back what came after."""
    create_sums_table(postgres_dsn)
    cluster = LocalCluster(config={"batch_size": 16})
    plan = KillPlan(1, limit=1, parallelism=2)
    plan.point, plan.vertex, plan.index, plan.skip = "before_commit", "sum", 1, 2
    definition = sums_job([postgres_sink("pg", postgres_dsn)], count=COUNT, rate=4000)
    crashed = cluster.run(definition, kill_hook=plan, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert crashed.status == "FAILED" and plan.kills
    left = prepared_transactions(postgres_dsn)
    assert left, "the killed subtask's prepared transaction stays on the server"
    restored = cluster.run(definition, restore=crashed.latest_checkpoint, timeout=60,
                           checkpoint_dir=str(tmp_path / "chk2"))
    assert restored.status == "FINISHED", restored.failure
    assert table_rows(postgres_dsn) == expected_sums(COUNT)
    assert prepared_transactions(postgres_dsn) == []


def test_upsert_keeps_one_row_per_key_with_the_last_value(postgres_dsn, tmp_path):
    create_sums_table(postgres_dsn, key=True)
    sink = postgres_sink("pg", postgres_dsn, mode="upsert", key=["k"])
    result = LocalCluster(config={"batch_size": 64}).run(sums_job([sink], count=COUNT), timeout=60,
                                                         checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert table_rows(postgres_dsn) == final_sums(COUNT)
    with psycopg.connect(postgres_dsn) as connection:
        assert connection.execute("SELECT count(*) FROM sums__pipeline_staging").fetchone()[0] == 0


def test_dict_records_fill_columns_by_name_and_defaults_stay(postgres_dsn, tmp_path):
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE events (id serial PRIMARY KEY, name text, payload jsonb, n integer)")
    definition = {
        "format": 1, "name": "dicts", "checkpointing": {"interval_ms": 50},
        "nodes": [{"id": "gen", "type": "source.datagen",
                   "params": {"count": 5, "expression": '{"name": f"e{x}", "payload": {"x": x, "l": [x]}, "n": x}'}},
                  {"id": "pg", "type": "sink.postgres", "params": {"url": postgres_dsn, "table": "events"}}],
        "edges": [{"id": "e", "from": "gen", "to": "pg"}]}
    result = LocalCluster().run(definition, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    with psycopg.connect(postgres_dsn) as connection:
        rows = connection.execute("SELECT id, name, payload, n FROM events ORDER BY n").fetchall()
    assert rows == [(i + 1, f"e{i}", {"x": i, "l": [i]}, i) for i in range(5)]


def test_an_aborted_checkpoint_keeps_its_transaction_for_the_next_one(postgres_dsn, tmp_path):
    """A checkpoint declined after the sink pre-committed is aborted; the sink hears of it and its
    prepared transaction is committed by the next completed checkpoint: nothing lost, nothing left."""
    create_sums_table(postgres_dsn)
    declined = []

    def decline_twice(point, task, info):
        if point == "async_upload" and task == ("sum", 0) and len(declined) < 2 and info["checkpoint_id"] > 2:
            declined.append(info["checkpoint_id"])
            raise RuntimeError("storage unavailable")  # a decline, not a crash
        return False

    definition = sums_job([postgres_sink("pg", postgres_dsn)], count=COUNT, rate=1500)  # ~2 s: metrics
    definition["checkpointing"]["tolerable_failures"] = 5
    result = LocalCluster(config={"batch_size": 16}).run(definition, kill_hook=decline_twice, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert result.restarts == 0 and len(declined) == 2
    failed = {e["id"] for e in result.events if e["type"] == "checkpoint" and e["event"] == "failed"}
    assert set(declined) <= failed
    aborted_seen = max(e["vertices"]["sum"].get("aborted_transactions", 0)
                       for e in result.events if e["type"] == "metrics" and "sum" in e["vertices"])
    assert aborted_seen >= 1, "the sink was told about the aborted checkpoints"
    assert table_rows(postgres_dsn) == expected_sums(COUNT)
    assert prepared_transactions(postgres_dsn) == []


def test_a_missing_table_fails_the_run_naming_node_and_table(postgres_dsn, tmp_path):
    result = LocalCluster().run(sums_job([postgres_sink("pg", postgres_dsn, table="nowhere")], count=10),
                                timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "node 'pg' (sink.postgres): table \"nowhere\" does not exist" in result.failure
    assert "Traceback" not in result.failure and "File \"" not in result.failure


def test_insert_mode_over_a_unique_key_written_twice_fails_naming_upsert(postgres_dsn, tmp_path):
    """Running sums repeat each key within a checkpoint: the table refuses the second row."""
    create_sums_table(postgres_dsn, key=True)
    result = LocalCluster().run(sums_job([postgres_sink("pg", postgres_dsn)], count=200, rate=400), timeout=60,
                                checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "node 'pg' (sink.postgres): duplicate key value" in result.failure
    assert "use mode upsert" in result.failure and "Traceback" not in result.failure
    rollback_prepared_transactions(postgres_dsn)


def test_a_write_waiting_on_a_row_lock_fails_after_the_lock_timeout_instead_of_hanging(
        postgres_dsn, tmp_path, monkeypatch):
    """A key held by an uncommitted transaction (in insert mode, typically the sink's own prepared
    one, which only the waiting subtask could commit): the sink fails naming the cause."""
    from engine.runtime.operators.connectors import postgres_sink as sink_module

    monkeypatch.setattr(sink_module, "LOCK_TIMEOUT_MS", 300)
    create_sums_table(postgres_dsn, key=True)
    with psycopg.connect(postgres_dsn) as holder:
        holder.execute("INSERT INTO sums VALUES (0, 0)")  # uncommitted: holds key 0
        result = LocalCluster().run(sums_job([postgres_sink("pg", postgres_dsn)], count=1, parallelism=1),
                                    timeout=60, checkpoint_dir=str(tmp_path / "chk"))
        holder.rollback()
    assert result.status == "FAILED", result.failure
    assert "node 'pg' (sink.postgres): a write into table sums waited over 300 ms for a row lock" in result.failure
    assert "use mode upsert" in result.failure
    rollback_prepared_transactions(postgres_dsn)


def rollback_prepared_transactions(url: str) -> None:
    """What a restore would roll back: a failed job leaves its prepared transactions on the server."""
    with psycopg.connect(url, autocommit=True) as connection:
        for (gid,) in connection.execute("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()"):
            connection.execute(f"ROLLBACK PREPARED '{gid}'")


def test_a_refused_connection_fails_the_run_naming_node_and_server(postgres_server, tmp_path):
    from tests.postgres_server import free_port

    url = f"postgresql://postgres:secret-word@127.0.0.1:{free_port()}/db"
    result = LocalCluster().run(sums_job([postgres_sink("pg", url)], count=10), timeout=60,
                                checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "node 'pg' (sink.postgres): cannot connect to PostgreSQL at 127.0.0.1:" in result.failure
    assert "secret-word" not in result.failure


@pytest.fixture(scope="module")
def server_without_prepared_transactions():
    from tests.postgres_server import PostgresServer

    with PostgresServer(max_prepared_transactions=0) as server:
        yield server


def test_a_server_without_prepared_transactions_is_named_as_the_cause(server_without_prepared_transactions, tmp_path):
    url = server_without_prepared_transactions.create_database()
    create_sums_table(url)
    result = LocalCluster().run(sums_job([postgres_sink("pg", url)], count=10), timeout=60,
                                checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "does not allow prepared transactions (max_prepared_transactions = 0)" in result.failure
    assert "node 'pg' (sink.postgres)" in result.failure
