"""Restored state is data: an operator acts on what a snapshot names only inside its own places.

Each test rewrites a real snapshot (or writes one, as a user could in a location she may
write) so that its state names something the operator does not own: a pending file of
another directory, a prefix that climbs out of the sink's directory, a split of another
file, another stream. The restored job fails, naming the node and the snapshot, and
nothing outside the operator's own places changed. Both deployments: threads and Spark.
"""
from __future__ import annotations

import json

import pytest

from tests.engine.checkpoint.restored_state_support import (SECRET, assert_refused, file_source_job, listing,
                                                            places, rewrite_metadata, rewrite_state, savepoint_of,
                                                            sink_job, write_snapshot)

PREFIX_NAMES = ("broadcast/transaction_prefix", "transaction_prefix")
"""Where a sink's transaction prefix is in its operator state: every subtask's copy, and (snapshots of versions
before that) a plain list state."""


@pytest.mark.parametrize("sink_type", ["sink.file", "sink.parquet"])
def test_a_file_sink_commits_no_pending_file_outside_its_own_directory(deployment, tmp_path, sink_type):
    where = places(tmp_path)
    alice, bob = where["alice"], where["bob"]
    definition = sink_job(sink_type, alice / "out")
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", alice / "sp")
    (alice / "mine.jsonl").write_text("{}\n")
    outside = tmp_path / "outside.jsonl"
    moves = [(str(bob / "out" / "part-0-1.jsonl"), str(alice / "stolen.jsonl")),
             (str(alice / "mine.jsonl"), str(outside)),
             (str(alice / "out" / ".part-files-x-0-t-1.pending-1"), str(alice / "out" / "../escaped.jsonl"))]

    def plant(state: dict) -> None:
        for name in PREFIX_NAMES:  # a snapshot of a version without prefixes: its list is all it has
            state.pop(name, None)
        if sink_type == "sink.file":
            state["pending"] = [{"pending": pending, "final": final, "records": 1, "checkpoint_id": 1}
                                for pending, final in moves]
        else:
            state["pending"] = [{"files": [list(move) for move in moves], "records": 1, "checkpoint_id": 1}]

    assert rewrite_state(savepoint, "files", plant) == 1
    before = listing(tmp_path, without=(alice / "out", tmp_path / "chk-2"))
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk-2"), restore=str(savepoint))
    assert_refused(result, "files", savepoint)
    assert listing(tmp_path, without=(alice / "out", tmp_path / "chk-2")) == before
    assert (bob / "out" / "part-0-1.jsonl").read_text() == json.dumps({"committed": SECRET}) + "\n"


@pytest.mark.parametrize("name", PREFIX_NAMES)
@pytest.mark.parametrize("prefix", ["../../escaped", "f/../../..", "", "f0123456789ab\n"])
def test_a_restored_transaction_prefix_is_one_the_sink_could_have_made(deployment, tmp_path, prefix, name):
    where = places(tmp_path)
    alice = where["alice"]
    definition = sink_job("sink.file", alice / "out")
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", alice / "sp")
    assert rewrite_state(savepoint, "files", lambda state: state.update({name: [prefix]})) == 1
    before = listing(tmp_path, without=(alice / "out", tmp_path / "chk-2"))
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk-2"), restore=str(savepoint))
    assert_refused(result, "files", savepoint)
    assert listing(tmp_path, without=(alice / "out", tmp_path / "chk-2")) == before


def test_a_restored_prefix_the_sink_made_restores_and_commits(deployment, tmp_path):
    """The control: the savepoint as it was written restores, and the output holds every record once."""
    where = places(tmp_path)
    alice = where["alice"]
    definition = sink_job("sink.file", alice / "out")
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", alice / "sp")
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk-2"), restore=str(savepoint))
    assert result.status == "FINISHED", result.failure
    records = [json.loads(line) for path in sorted((alice / "out").glob("part-*")) for line in
               path.read_text().splitlines()]
    assert sorted(records) == list(range(400))


def rescaled_savepoint(deployment, tmp_path) -> tuple[dict, Path]:
    """Alice's file sink job at parallelism 2 and a savepoint of it, each subtask's pending list holding two
    transactions (as when a checkpoint's completion had not reached a subtask before the savepoint's): at
    parallelism 3 the third subtask then gets one of them."""
    definition = {**sink_job("sink.file", places(tmp_path)["alice"] / "out"), "parallelism": 2}
    definition["edges"][0]["partitioning"] = "rebalance"  # every sink subtask writes, whichever source has splits
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", tmp_path / "alice" / "sp")

    def one_more_pending(state: dict) -> None:
        state["pending"] = [*state["pending"], *state["pending"]]

    assert rewrite_state(savepoint, "files", one_more_pending) == 2
    return definition, savepoint


def test_a_sink_restored_at_another_parallelism_keeps_its_one_prefix(deployment, tmp_path):
    """The prefix is the sink's, not a subtask's: every new subtask has it, also one the old job did not
    have, so none refuses its share of the pending transactions nor writes under a prefix of its own."""
    definition, savepoint = rescaled_savepoint(deployment, tmp_path)
    result = deployment.run({**definition, "parallelism": 3}, checkpoint_dir=str(tmp_path / "chk-2"),
                            restore=str(savepoint))
    assert result.status == "FINISHED", result.failure
    parts = sorted((tmp_path / "alice" / "out").glob("part-*"))
    assert {path.name.split("-")[2] for path in parts} == {path.name.split("-")[2] for path in parts[:1]}
    assert {path.name.split("-")[3] for path in parts} == {"0", "1", "2"}, "every subtask wrote"
    records = [json.loads(line) for path in parts for line in path.read_text().splitlines()]
    assert sorted(records) == list(range(400))


def test_a_rescaled_sink_whose_subtasks_name_two_prefixes_is_refused(deployment, tmp_path):
    """Each old subtask keeps a copy of the sink's one prefix: a snapshot whose copies differ (one rewritten to
    another sink's) cannot tell which transactions are the sink's, whichever copy a new subtask would read."""
    definition, savepoint = rescaled_savepoint(deployment, tmp_path)
    rewritten = []

    def another_sinks_prefix(state: dict) -> None:
        if not rewritten:
            rewritten.append(state[PREFIX_NAMES[0]])
            state[PREFIX_NAMES[0]] = ["f0123456789ab"]

    rewrite_state(savepoint, "files", another_sinks_prefix)
    before = listing(tmp_path, without=(tmp_path / "chk-2",))
    result = deployment.run({**definition, "parallelism": 3}, checkpoint_dir=str(tmp_path / "chk-2"),
                            restore=str(savepoint))
    assert_refused(result, "files", savepoint)
    assert "2 transaction prefixes" in result.failure, result.failure
    assert listing(tmp_path, without=(tmp_path / "chk-2",)) == before


# --- sources: splits and offsets ---------------------------------------------------------------


@pytest.mark.parametrize("split", [
    {"path": "{bob}/data/secret.jsonl", "start": 0, "end": None, "offset": 0, "header": None},
    {"path": "{alice}/in/../../bob/data/secret.jsonl", "start": 0, "end": None, "offset": 0, "header": None},
    {"path": "{alice}/in/part-0.jsonl", "start": 0, "end": None, "offset": -5, "header": None},
    {"path": "{alice}/in/part-0.jsonl", "start": "0", "end": None, "offset": 0, "header": None},
    {"path": "{alice}/in/part-0.jsonl", "start": 0, "end": None, "offset": 0, "header": "not a list"},
])
def test_a_file_source_seeks_only_in_its_own_files(deployment, tmp_path, split):
    where = places(tmp_path)
    split = {key: value.format(**{k: str(v) for k, v in where.items()}) if isinstance(value, str) else value
             for key, value in split.items()}
    definition = file_source_job(where["alice"] / "in")
    snapshot = write_snapshot(where["alice"] / "planted", definition, {"in": {"splits": [split]}},
                              coordinators={"in": {"files": []}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert_refused(result, "in", snapshot)
    assert SECRET not in json.dumps(result.collected)


def test_a_split_enumerator_hands_out_only_its_own_files(deployment, tmp_path):
    where = places(tmp_path)
    definition = file_source_job(where["alice"] / "in")
    snapshot = write_snapshot(where["alice"] / "planted", definition, {"in": {"splits": []}},
                              coordinators={"in": {"files": [[str(where["bob"] / "data" / "secret.jsonl"), [0, 64]]]}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert_refused(result, "in", snapshot)
    assert SECRET not in json.dumps(result.collected)


def test_a_parquet_source_reads_only_its_own_files(deployment, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    where = places(tmp_path)
    (where["alice"] / "columns").mkdir()
    pq.write_table(pa.table({"mine": [1, 2]}), where["alice"] / "columns" / "a.parquet")
    pq.write_table(pa.table({"secret": [SECRET]}), where["bob"] / "data" / "secret.parquet")
    definition = file_source_job(where["alice"] / "columns", "source.parquet")
    split = {"path": str(where["bob"] / "data" / "secret.parquet"), "start": 0, "end": None, "row": 0}
    snapshot = write_snapshot(where["alice"] / "planted", definition, {"in": {"splits": [split]}},
                              coordinators={"in": {"files": []}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert_refused(result, "in", snapshot)
    assert SECRET not in json.dumps(result.collected)


def test_a_restored_snapshot_as_the_engine_wrote_it_reads_on(deployment, tmp_path):
    """The control for the sources: a split of its own file, at an offset inside it, is read on from there."""
    where = places(tmp_path)
    definition = file_source_job(where["alice"] / "in")
    first = where["alice"] / "in" / "part-0.jsonl"
    offset = sum(len(line) for line in first.read_bytes().splitlines(keepends=True)[:150])
    split = {"path": str(first), "start": 0, "end": None, "offset": offset, "header": None}
    snapshot = write_snapshot(where["alice"] / "planted", definition, {"in": {"splits": [split]}},
                              coordinators={"in": {"files": []}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert result.status == "FINISHED", result.failure
    assert result.collected["out"] == [{"file": 0, "line": line} for line in range(150, 200)]


# --- streams and databases: the node's own stream, slot and transactions only -----------------------


@pytest.fixture
def redis_server():
    from tests.support import RedisServer

    server = RedisServer()
    server.start()
    yield server
    server.process.terminate()
    server.process.wait(10)


def stream_job(url: str, **params) -> dict:
    return {"format": 1, "name": "stream", "parallelism": 1, "checkpointing": {"interval_ms": 100},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "in", "type": "source.redis_stream",
                       "params": {"stream": "mine", "url": url, "bounded": True, **params}},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "e1", "from": "in", "to": "out"}]}


@pytest.mark.parametrize("state_name, split", [
    ("position", {"stream": "theirs", "last_id": "0-0", "end_id": None}),
    ("position", {"stream": "mine", "last_id": "0-0; FLUSHALL", "end_id": None}),
    ("consumers", {"stream": "mine", "consumer": "someone-else-0", "last_id": "0-0", "end_id": None}),
    ("consumers", {"stream": "theirs", "consumer": "in-0", "last_id": "0-0", "end_id": None}),
])
def test_a_stream_source_reads_only_its_own_stream(deployment, tmp_path, redis_server, state_name, split):
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.xadd("theirs", {"value": json.dumps({"secret": SECRET})})
    client.xadd("mine", {"value": json.dumps({"mine": 1})})
    definition = stream_job(redis_server.url, **({"group": "g"} if state_name == "consumers" else {}))
    snapshot = write_snapshot(tmp_path / "sp", definition, {"in": {state_name: [split]}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert_refused(result, "in", snapshot)
    assert SECRET not in json.dumps(result.collected)
    assert client.xlen("theirs") == 1 and not client.exists("theirs:txns")


def test_a_redis_sink_commits_no_staged_list_it_cannot_tell_its_own(deployment, tmp_path, redis_server):
    """A pending list without the sink's prefix could be any list of the server: not moved into the stream."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.rpush("theirs:txn:r0123456789ab:0:3", json.dumps({"secret": SECRET}))
    definition = {"format": 1, "name": "to-stream", "parallelism": 1, "checkpointing": {"interval_ms": 100},
                  "restart": {"strategy": "none"},
                  "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 10}},
                            {"id": "out", "type": "sink.redis_stream",
                             "params": {"stream": "mine", "url": redis_server.url}}],
                  "edges": [{"id": "e1", "from": "gen", "to": "out"}]}
    snapshot = write_snapshot(tmp_path / "sp", definition, {"out": {"pending": [
        {"key": "theirs:txn:r0123456789ab:0:3", "records": 1, "checkpoint_id": 3}]}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert_refused(result, "out", snapshot)
    assert client.llen("theirs:txn:r0123456789ab:0:3") == 1 and not client.exists("mine")


def test_a_postgres_sink_commits_no_prepared_transaction_it_cannot_tell_its_own(deployment, tmp_path, postgres_dsn):
    import psycopg

    from tests.engine.connectors.support import create_sums_table, postgres_sink

    create_sums_table(postgres_dsn)
    with psycopg.connect(postgres_dsn) as theirs:  # another pipeline's transaction, prepared in the same database
        theirs.execute("INSERT INTO sums VALUES (1, 1)")
        theirs.execute("PREPARE TRANSACTION 'pg0123456789ab-0-3'")
    definition = {"format": 1, "name": "to-table", "parallelism": 1, "checkpointing": {"interval_ms": 100},
                  "restart": {"strategy": "none"},
                  "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 10}},
                            {**postgres_sink("out", postgres_dsn), "params": {
                                **postgres_sink("out", postgres_dsn)["params"], "columns": {"k": "x", "total": "x"}}}],
                  "edges": [{"id": "e1", "from": "gen", "to": "out"}]}
    snapshot = write_snapshot(tmp_path / "sp", definition, {"out": {"pending": [
        {"gid": "pg0123456789ab-0-3", "rows": 1, "checkpoint_id": 3}]}})
    try:
        result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
        assert_refused(result, "out", snapshot)
        with psycopg.connect(postgres_dsn) as connection:
            assert connection.execute("SELECT gid FROM pg_prepared_xacts").fetchall() == [("pg0123456789ab-0-3",)]
            assert connection.execute("SELECT count(*) FROM sums").fetchone() == (0,)
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute("ROLLBACK PREPARED 'pg0123456789ab-0-3'")


@pytest.mark.parametrize("change", [
    {"slot": "theirs"}, {"table": 7}, {"table": -1}, {"lsn": "0/0'; DROP TABLE items; --"}, {"row": -3},
    {"segments": [[0, None, "not an lsn"]]}, {"phase": "done"},
])
def test_a_change_data_source_resumes_only_its_own_slot(deployment, tmp_path, change):
    definition = {"format": 1, "name": "cdc", "parallelism": 1, "checkpointing": {"interval_ms": 100},
                  "restart": {"strategy": "none"},
                  "nodes": [{"id": "in", "type": "source.postgres_cdc",
                             "params": {"url": "postgresql://nowhere.invalid/app", "tables": ["items"],
                                        "slot": "mine"}},
                            {"id": "out", "type": "sink.collect", "params": {}}],
                  "edges": [{"id": "e1", "from": "in", "to": "out"}]}
    position = {"slot": "mine", "lsn": "0/16B3748", "skip": 0, "phase": "stream", "table": 1, "row": 0,
                "after": None, "segments": [], **change}
    snapshot = write_snapshot(tmp_path / "sp", definition, {"in": {"position": [position]}})
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot))
    assert_refused(result, "in", snapshot)


def kafka_job(source: dict, sink: dict | None = None) -> dict:
    sink = sink or {"id": "out", "type": "sink.collect", "params": {}}
    return {"format": 1, "name": "kafka", "parallelism": 1, "checkpointing": {"interval_ms": 100},
            "restart": {"strategy": "none"}, "nodes": [source, sink],
            "edges": [{"id": "e1", "from": source["id"], "to": sink["id"]}]}


@pytest.mark.parametrize("where", ["source", "enumerator"])
def test_a_kafka_source_reads_only_its_own_topics(deployment, tmp_path, kafka_cluster, where):
    from tests.engine.connectors.kafka_support import kafka_source, new_topic, produce_events

    mine, theirs = new_topic(kafka_cluster, "mine", 1), new_topic(kafka_cluster, "theirs", 1)
    produce_events(kafka_cluster.bootstrap, theirs, 20, 1)
    source = kafka_source(kafka_cluster.bootstrap, mine, watermarks=False)
    source["params"].pop("timestamp")
    definition = kafka_job(source)
    split = {"topic": theirs, "partition": 0, "offset": 0, "stop": 20}
    state, coordinators = ({"partitions": [split]}, {"events": {"known": [[mine, 0]], "unassigned": []}}) \
        if where == "source" else ({"partitions": []}, {"events": {"known": [[mine, 0]], "unassigned": [split]}})
    snapshot = write_snapshot(tmp_path / "sp", definition, {"events": state}, coordinators=coordinators)
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot), timeout=60)
    assert_refused(result, "events", snapshot)
    assert result.collected.get("out", []) == []


def test_a_kafka_sink_ends_no_transaction_it_did_not_begin(deployment, tmp_path, kafka_cluster):
    """The transaction registry beside a restored checkpoint is read to end what the checkpoint's run left: one
    naming another sink's transaction (planted next to a copied checkpoint) refuses the snapshot."""
    from tests.engine.connectors.kafka_support import kafka_sink, new_topic

    out = new_topic(kafka_cluster, "out", 1)
    sink = kafka_sink(kafka_cluster.bootstrap, out)
    sink["params"].pop("key")
    definition = kafka_job({"id": "gen", "type": "source.datagen", "params": {"count": 10}}, sink)
    snapshot = write_snapshot(tmp_path / "planted" / "chk-5", definition,
                              {"out": {"transaction_prefix": ["k0123456789ab"], "pending": []}})
    registry = tmp_path / "planted" / "kafka-transactions" / "k0123456789ab"
    registry.mkdir(parents=True)
    (registry / "0.1.c1.json").write_text(json.dumps({"transactional_id": "kfeedfacefeed0-0-1", "producer_id": 5,
                                                      "epoch": 0}))
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot), timeout=60)
    assert_refused(result, "out", snapshot)
    assert (registry / "0.1.c1.json").exists()
