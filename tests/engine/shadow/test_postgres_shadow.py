"""A shadow of a CDC -> exactly-once PostgreSQL pipeline leaves production's table, slot and prepared
transactions as they were, and still reads the changes production has not read yet.

Production copies ``items`` into ``copy`` (upsert by id) from a replication slot; the shadow's
slot copy is made, production stops with a savepoint (so "as they were" is a fixed point);
more changes are written; the shadow of production's version and a candidate that keeps
only even ids restores the savepoint, reads them through its slot copy and redirects both
sinks. Production's table rows, its slot's positions and the server's prepared transactions
are the same before and after, and the shadow's slot copy is gone after the release.
"""
from __future__ import annotations

import uuid

import psycopg
import pytest

from engine.api import (RedirectedSink, committed_records, diff_outputs, fork_definition, load_checkpoint_metadata,
                        normalise_definition, prepare_source_forks, release_source_forks, source_forks_config)
from tests.engine.deployers import InProcessDeployment
from tests.support import wait_until

pytestmark = pytest.mark.timeout(300)


def _version(url: str, slot: str, predicate: str) -> dict:
    return normalise_definition({
        "format": 1, "name": "copy", "parallelism": 1, "max_parallelism": 64,
        "checkpointing": {"interval_ms": 200}, "restart": {"strategy": "none"},
        "nodes": [{"id": "cdc", "type": "source.postgres_cdc",
                   "params": {"url": url, "tables": ["items"], "slot": slot, "snapshot": "never"}},
                  {"id": "keep", "type": "transform.filter", "params": {"predicate": predicate}},
                  {"id": "copy", "type": "sink.postgres",
                   "params": {"url": url, "table": "copy", "mode": "upsert", "key": ["id"],
                              "columns": {"id": 'x["key"]["id"]', "v": 'x["values"]["v"]'}}}],
        "edges": [{"id": "e1", "from": "cdc", "to": "keep"}, {"id": "e2", "from": "keep", "to": "copy"}]})


def _insert(url: str, ids) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        for i in ids:
            connection.execute("INSERT INTO items VALUES (%s, %s)", (i, i * 10))


def _production_view(url: str, slot: str) -> dict:
    """Production's table, its slot's positions and the server's prepared transactions."""
    with psycopg.connect(url) as connection:
        return {
            "rows": connection.execute("SELECT id, v FROM copy ORDER BY id").fetchall(),
            "slot": connection.execute("SELECT restart_lsn::text, confirmed_flush_lsn::text FROM pg_replication_slots "
                                       "WHERE slot_name = %s", (slot,)).fetchall(),
            "prepared": connection.execute("SELECT gid, database FROM pg_prepared_xacts ORDER BY gid").fetchall(),
        }


def _slots(url: str) -> list[str]:
    with psycopg.connect(url) as connection:
        return [row[0] for row in connection.execute("SELECT slot_name FROM pg_replication_slots ORDER BY 1")]


def test_a_shadow_leaves_productions_table_slot_and_prepared_transactions_as_they_were(postgres_dsn, tmp_path):
    slot = f"prod_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE items (id integer PRIMARY KEY, v integer)")
        connection.execute("CREATE TABLE copy (id integer PRIMARY KEY, v integer)")
    production = _version(postgres_dsn, slot, 'x["op"] != "delete"')
    deployment = InProcessDeployment()
    handle = deployment.submit(production, checkpoint_dir=str(tmp_path / "production"))
    forks = []
    try:
        wait_until(lambda: slot in _slots(postgres_dsn), 60, "production to create its slot")
        _insert(postgres_dsn, range(0, 20))
        wait_until(lambda: len(_production_view(postgres_dsn, slot)["rows"]) == 20, 60, "production to copy")
        forks = prepare_source_forks(production, "t1")  # the slot copy is made before the snapshot
        location = handle.stop_with_savepoint(drain=False).result(timeout=120)
        assert handle.wait(120).status == "FINISHED"
        savepoint = load_checkpoint_metadata(location)
        _insert(postgres_dsn, range(20, 50))  # changes production has not read
        before = _production_view(postgres_dsn, slot)

        candidate = _version(postgres_dsn, slot, 'x["op"] != "delete" and x["key"]["id"] % 2 == 0')
        job = fork_definition(production, candidate, str(tmp_path / "shadow"))
        shadow = InProcessDeployment({"source_forks": source_forks_config(forks)}).submit(
            job.definition, checkpoint_dir=str(tmp_path / "shadow-checkpoints"), restore=savepoint)
        ours = RedirectedSink.from_json(job.sinks[0]["production"])
        theirs = RedirectedSink.from_json(job.sinks[0]["candidate"])
        wait_until(lambda: len(committed_records(ours.path)) == 30 or shadow.job.status == "FAILED", 60,
                   "the shadow to read the new changes")
        shadow.stop_with_savepoint(drain=False).result(timeout=120)
        assert shadow.wait(120).status == "FINISHED"

        assert sorted(record["key"]["id"] for record in committed_records(ours.path)) == list(range(20, 50))
        assert sorted(record["key"]["id"] for record in committed_records(theirs.path)) == list(range(20, 50, 2))
        diff = diff_outputs(ours, theirs)
        assert diff["keyed"] and diff["counts"]["only_production"] == 15 and diff["counts"]["only_candidate"] == 0
        assert diff["samples"]["only_production"][0] == {"id": 21, "v": 210}
        assert _production_view(postgres_dsn, slot) == before
    finally:
        if handle.job.status not in ("FINISHED", "CANCELED", "FAILED"):
            handle.cancel()
        assert release_source_forks(forks) == []
    assert _slots(postgres_dsn) == [slot]  # the copy is dropped, production's is there
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
