"""Redis Streams: consumer groups acknowledged on checkpoints; the exactly-once sink under kills."""
from __future__ import annotations

import json
import os
import random
import uuid
from collections import Counter

import pytest

from engine.cluster.local import LocalCluster
from tests.engine.connectors.support import KillPlan, expected_sums, sums_job


@pytest.fixture
def redis_client():
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    keys: list[str] = []
    yield client, keys
    for pattern in keys:
        for key in client.scan_iter(f"{pattern}*"):
            client.delete(key)
    client.close()


def stream_sums(client, stream: str) -> Counter:
    return Counter(tuple(json.loads(fields["value"])) for _, fields in client.xrange(stream))


def test_stream_entries_appear_exactly_once_despite_random_kills(redis_client, tmp_path):
    client, keys = redis_client
    stream = f"test-eo-{uuid.uuid4().hex}"
    keys.append(stream)
    seed = random.randrange(2**32)
    plan = KillPlan(seed, limit=8, parallelism=2)
    sink = {"id": "out", "type": "sink.redis_stream", "params": {"stream": stream, "url": os.environ["REDIS_URL"]}}
    result = LocalCluster(config={"batch_size": 32}).run(sums_job([sink], count=3000, rate=2500, attempts=20),
                                                         kill_hook=plan, timeout=120,
                                                         checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert result.restarts >= 1
    assert stream_sums(client, stream) == expected_sums(3000), f"seed {seed}, kills {plan.kills}"
    assert list(client.scan_iter(f"{stream}:*")) == [], "no staging list or registry is left"


def group_job(stream: str, group: str, sink_dir, parallelism: int = 2, bounded: bool = True) -> dict:
    return {"format": 1, "name": "group", "parallelism": parallelism, "checkpointing": {"interval_ms": 50},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "in", "type": "source.redis_stream",
                       "params": {"stream": stream, "group": group, "url": os.environ["REDIS_URL"],
                                  "bounded": bounded, "batch_size": 25}},
                      {"id": "out", "type": "sink.file", "params": {"path": str(sink_dir)}}],
            "edges": [{"id": "e", "from": "in", "to": "out"}]}


def file_records(directory) -> list:
    return [json.loads(line) for path in directory.glob("part-*.jsonl") for line in path.read_text().splitlines()]


def test_a_consumer_group_reads_each_entry_once_and_acknowledges_on_checkpoints(redis_client, tmp_path):
    client, keys = redis_client
    stream = f"test-group-{uuid.uuid4().hex}"
    keys.append(stream)
    for i in range(400):
        client.xadd(stream, {"value": json.dumps(i)})
    result = LocalCluster(config={"batch_size": 25}).run(group_job(stream, "g", tmp_path / "out"), timeout=60,
                                                         checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert sorted(file_records(tmp_path / "out")) == list(range(400))
    group = client.xinfo_groups(stream)[0]
    assert group["pending"] == 0, "every entry was acknowledged by a completed checkpoint"
    consumers = {c["name"] for c in client.xinfo_consumers(stream, "g")}
    assert consumers <= {"in-0", "in-1"}


def test_unacknowledged_entries_are_emitted_again_after_a_restore_and_only_those(redis_client, tmp_path):
    """A savepoint, then more reading that no checkpoint covers; the restored job re-emits exactly
    what was delivered after the savepoint (pending in the group), then the rest."""
    client, keys = redis_client
    stream = f"test-group-restore-{uuid.uuid4().hex}"
    keys.append(stream)
    for i in range(300):
        client.xadd(stream, {"value": json.dumps(i)})
    definition = group_job(stream, "g", tmp_path / "out", bounded=False)
    definition["checkpointing"]["interval_ms"] = 3_600_000  # only the savepoint
    handle = LocalCluster(config={"batch_size": 10}).submit(definition, checkpoint_dir=str(tmp_path / "c1"))
    savepoint = handle.trigger_savepoint().result(timeout=30)
    from tests.support import wait_until

    last = client.xrevrange(stream, count=1)[0][0]
    wait_until(lambda: client.xinfo_groups(stream)[0]["last-delivered-id"] == last, 30, "every entry delivered")
    handle.cancel()
    handle.wait(30)
    pending = client.xpending(stream, "g")["pending"]
    assert pending > 0, "entries delivered after the savepoint are not acknowledged"
    for i in range(300, 350):
        client.xadd(stream, {"value": json.dumps(i)})
    restored = group_job(stream, "g", tmp_path / "out", bounded=True)
    result = LocalCluster(config={"batch_size": 10}).run(restored, restore=savepoint, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert sorted(file_records(tmp_path / "out")) == list(range(350))
    assert client.xpending(stream, "g")["pending"] == 0


def test_an_unreachable_redis_fails_naming_node_and_server(tmp_path):
    from tests.postgres_server import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    definition = {"format": 1, "name": "x", "restart": {"strategy": "none"},
                  "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 5}},
                            {"id": "out", "type": "sink.redis_stream", "params": {"stream": "s", "url": url}}],
                  "edges": [{"id": "e", "from": "gen", "to": "out"}]}
    result = LocalCluster().run(definition, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FAILED"
    assert "node 'out' (sink.redis_stream): cannot reach Redis at 127.0.0.1:" in result.failure


def test_idle_backoff_starts_short_after_records_and_doubles_up_to_its_longest():
    from engine.runtime.operators.source import IDLE_POLL_DELAY, IdleBackoff

    backoff = IdleBackoff(first=0.001, longest=0.008)
    assert [backoff.idle() for _ in range(6)] == [0.001, 0.002, 0.004, 0.008, 0.008, 0.008]
    backoff.active()
    assert backoff.idle() == 0.001
    assert IdleBackoff().longest == IDLE_POLL_DELAY


@pytest.mark.parametrize("group", [None, "readers"])
def test_a_redis_source_that_just_read_entries_polls_again_within_a_millisecond(redis_client, group):
    """A fixed 50 ms wait after an empty poll set the latency of a lightly fed stream (p50 ~25 ms at
    1,000 events/s); after entries the wait starts at 1 ms and grows only while the stream stays empty."""
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.redis_exactly_once import redis_stream_source

    client, keys = redis_client
    stream = f"test-backoff-{uuid.uuid4().hex}"
    keys.append(stream)
    params = {"stream": stream, "url": os.environ["REDIS_URL"], **({"group": group} if group else {})}
    node = {"id": "in", "type": "source.redis_stream", "params": params}
    context = OperatorContext(task=("in", 0), node_id="in", parallelism=1, max_parallelism=8, config={})
    source = redis_stream_source(node, context)
    source.initialize_state()
    source.open()
    try:
        assert source.poll_next() == []
        delays = [source.next_poll_delay() for _ in range(8)]
        assert delays[0] == 0.001 and delays == sorted(delays) and delays[-1] == 0.05
        client.xadd(stream, {"value": json.dumps({"n": 1})})
        assert source.poll_next() == [{"n": 1}]
        assert source.poll_next() == []
        assert source.next_poll_delay() == 0.001
    finally:
        source.close()


def opened_stream_source(stream: str):
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.redis_exactly_once import redis_stream_source

    node = {"id": "in", "type": "source.redis_stream", "params": {"stream": stream, "url": os.environ["REDIS_URL"]}}
    source = redis_stream_source(node, OperatorContext(task=("in", 0), node_id="in", parallelism=1,
                                                       max_parallelism=8, config={}))
    source.initialize_state()
    source.open()
    return source


def test_a_waiting_redis_source_is_resumed_by_the_entry_that_arrives_not_by_a_timer(redis_client):
    """An empty poll used to be followed by a timer (1 ms doubling to 50 ms): an entry arriving after a pause
    of its producer waited for the grown back-off. The source's waiter blocks in XREAD for it instead."""
    import threading

    client, keys = redis_client
    stream = f"test-waiter-{uuid.uuid4().hex}"
    keys.append(stream)
    source = opened_stream_source(stream)
    try:
        client.xadd(stream, {"value": json.dumps(0)})
        assert source.poll_next() == [0]
        assert source.poll_next() == []
        arrived = threading.Event()
        assert source.when_readable(arrived.set) is True
        assert not arrived.is_set(), "nothing follows the entry read: no wake-up"
        client.xadd(stream, {"value": json.dumps(1)})
        assert arrived.wait(30), "the entry resumed the source"
        assert source.poll_next() == [1]
        waiter = source._waiter._thread
    finally:
        source.close()
    waiter.join(30)
    assert not waiter.is_alive(), "a closed source's waiter ends after its blocked read"


def test_a_consumer_groups_source_keeps_its_timed_polls(redis_client):
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.redis_exactly_once import redis_stream_source

    client, keys = redis_client
    stream = f"test-waiter-group-{uuid.uuid4().hex}"
    keys.append(stream)
    node = {"id": "in", "type": "source.redis_stream",
            "params": {"stream": stream, "group": "g", "url": os.environ["REDIS_URL"]}}
    source = redis_stream_source(node, OperatorContext(task=("in", 0), node_id="in", parallelism=1,
                                                       max_parallelism=8, config={}))
    source.initialize_state()
    source.open()
    try:
        assert source.poll_next() == []
        assert source.when_readable(lambda: None) is False, "a blocked XREADGROUP would take the entries"
    finally:
        source.close()


def test_an_entry_after_the_source_went_idle_reaches_the_sink_without_another_poll_on_a_timer(redis_client,
                                                                                                 tmp_path, monkeypatch):
    """Timed polls are switched off (an hour apart): the entry added once the source found the stream empty
    reaches the output stream only because its arrival resumed the source."""
    import threading

    from engine.runtime.operators.connectors.redis_stream import RedisStreamSource

    client, keys = redis_client
    source_stream, sink_stream = f"test-idle-in-{uuid.uuid4().hex}", f"test-idle-out-{uuid.uuid4().hex}"
    keys += [source_stream, sink_stream]
    found_empty = threading.Event()
    poll = RedisStreamSource.poll_next

    def poll_next(self):
        batch = poll(self)
        if isinstance(batch, list) and not batch:
            found_empty.set()
        return batch

    monkeypatch.setattr(RedisStreamSource, "poll_next", poll_next)
    monkeypatch.setattr(RedisStreamSource, "next_poll_delay", lambda self: 3600.0)
    url = os.environ["REDIS_URL"]
    definition = {"format": 1, "name": "idle-source", "restart": {"strategy": "none"},
                  "nodes": [{"id": "in", "type": "source.redis_stream", "params": {"stream": source_stream, "url": url}},
                            {"id": "out", "type": "sink.redis_stream", "params": {"stream": sink_stream, "url": url}}],
                  "edges": [{"id": "e", "from": "in", "to": "out"}]}
    handle = LocalCluster().submit(definition, checkpoint_dir=str(tmp_path / "chk"))
    try:
        assert found_empty.wait(60), "the source polled the empty stream"
        client.xadd(source_stream, {"value": json.dumps({"n": 1})})
        from tests.support import wait_until

        written = wait_until(lambda: client.xrange(sink_stream), 60, "the entry reached the output stream")
        assert [json.loads(fields["value"]) for _, fields in written] == [{"n": 1}]
    finally:
        handle.cancel()
        handle.wait(30)


def test_a_waiter_that_cannot_reach_redis_resumes_the_source_so_its_poll_meets_the_error():
    import threading

    from engine.runtime.operators.connectors.redis_stream import EntryWaiter
    from tests.postgres_server import free_port

    waiter = EntryWaiter(f"redis://127.0.0.1:{free_port()}/0")
    resumed = threading.Event()
    waiter.wait_for("s", "0-0", resumed.set)
    try:
        assert resumed.wait(30), "not left waiting for an entry that cannot come"
    finally:
        waiter.close()


def at_least_once_sink(stream: str, url: str):
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.redis_stream import RedisStreamSink

    node = {"id": "out", "type": "sink.redis_stream", "params": {"stream": stream, "url": url,
                                                                 "delivery": "at_least_once"}}
    context = OperatorContext(task=("out", 0), node_id="out", parallelism=1, max_parallelism=8, config={})
    sink = RedisStreamSink(node, context)
    sink.open()
    return sink


def test_the_at_least_once_sink_appends_a_batch_in_order_with_one_call_per_chunk(redis_client):
    """A batch of 5,000 records is two script calls (4,096 + 904), not 5,000 queued XADDs, and the
    entries are the records, in order. (The sink's own connection's commands are counted: the server's
    command statistics are shared with tests running beside this one.)"""
    from engine.runtime.operators.connectors.redis_stream import APPEND_CHUNK

    client, keys = redis_client
    stream = f"test-append-{uuid.uuid4().hex}"
    keys.append(stream)
    sink = at_least_once_sink(stream, os.environ["REDIS_URL"])
    records = [{"n": n, "user": f"u{n % 7}"} for n in range(APPEND_CHUNK + 904)]
    try:
        sink.process_batch(records[:1])  # the script is loaded by its first call
        sent: list = []
        execute = sink._client.execute_command
        sink._client.execute_command = lambda *args, **options: sent.append(args[0]) or execute(*args, **options)
        sink.process_batch(records[1:])
    finally:
        sink.close()
    assert sent == ["EVALSHA", "EVALSHA"]
    assert [json.loads(fields["value"]) for _, fields in client.xrange(stream)] == records


def test_the_at_least_once_sink_appends_per_record_where_the_server_refuses_scripts(redis_client, caplog):
    """A Redis user without scripting (an ACL) still gets every record, in order, and the log says why."""
    from urllib.parse import urlsplit, urlunsplit

    client, keys = redis_client
    stream, user = f"test-noscript-{uuid.uuid4().hex}", f"test-noscript-{uuid.uuid4().hex[:8]}"
    keys.append(stream)
    client.acl_setuser(user, enabled=True, passwords=["+secret"], keys=["*"], channels=["*"],
                       commands=["+@all", "-@scripting"])
    parts = urlsplit(os.environ["REDIS_URL"])
    url = urlunsplit(parts._replace(netloc=f"{user}:secret@{parts.hostname}:{parts.port or 6379}"))
    try:
        sink = at_least_once_sink(stream, url)
        try:
            sink.process_batch([{"n": n} for n in range(3)])
            sink.process_batch([{"n": n} for n in range(3, 5)])
        finally:
            sink.close()
    finally:
        client.acl_deluser(user)
    assert [json.loads(fields["value"]) for _, fields in client.xrange(stream)] == [{"n": n} for n in range(5)]
    assert "refused the append script" in caplog.text


def test_the_at_least_once_sink_raises_when_its_stream_key_is_not_a_stream(redis_client):
    """A script that fails for another reason (the key holds a string) is an error, not a reason to
    append some other way."""
    import redis

    client, keys = redis_client
    stream = f"test-wrongtype-{uuid.uuid4().hex}"
    keys.append(stream)
    client.set(stream, "not a stream")
    sink = at_least_once_sink(stream, os.environ["REDIS_URL"])
    try:
        with pytest.raises(redis.ResponseError, match="(?i)wrong"):
            sink.process_batch([{"n": 1}])
        assert sink._append is not None
    finally:
        sink.close()
    assert client.get(stream) == "not a stream"


@pytest.mark.parametrize("group", [None, "readers"])
def test_a_redis_read_is_caught_up_only_when_it_got_fewer_entries_than_it_asked_for(redis_client, group):
    """The node's ``batch_size`` (here 250) is what a read asks for, not the subtask's 1,024: a full read may
    have more behind it, so the output buffers keep filling; a short one found the stream's end."""
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.redis_exactly_once import redis_stream_source

    client, keys = redis_client
    stream = f"test-caught-up-{uuid.uuid4().hex}"
    keys.append(stream)
    pipe = client.pipeline(transaction=False)
    for n in range(600):
        pipe.xadd(stream, {"value": json.dumps(n)})
    pipe.execute()
    params = {"stream": stream, "url": os.environ["REDIS_URL"], "batch_size": 250,
              **({"group": group, "start_id": "0-0"} if group else {})}
    source = redis_stream_source({"id": "in", "type": "source.redis_stream", "params": params},
                                 OperatorContext(task=("in", 0), node_id="in", parallelism=1, max_parallelism=8,
                                                 config={}))
    source.initialize_state()
    source.open()
    try:
        reads = []
        for _ in range(4):  # a group's consumer reads its pending entries first: none here, an empty poll
            records = len(source.poll_next())
            if records:
                reads.append((records, source.caught_up(records)))
        assert reads == [(250, False), (250, False), (100, True)]
    finally:
        source.close()
