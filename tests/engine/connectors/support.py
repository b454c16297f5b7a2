"""What the connector tests share: the exactly-once job, its expected output, a kill plan, readers.

The job: ``datagen (count) -> hash(x % KEYS) -> running sum -> every sink under test``. With
the key ``x % KEYS`` every key's numbers come from one source subtask, in order, so the
running sums a failure-free run emits are fixed: each sink must hold every
``(key, running sum)`` exactly once, whatever was killed on the way.
"""
from __future__ import annotations

import random
import threading
from collections import Counter

KEYS = 12


def sums_job(sinks: list[dict], *, count: int, parallelism: int = 2, rate: float = 0, interval_ms: int = 100,
             attempts: int = 0, name: str = "connectors") -> dict:
    """The running-sum job feeding ``sinks`` (nodes without edges; each gets a forward edge)."""
    return {
        "format": 1, "name": name, "parallelism": parallelism, "max_parallelism": 128,
        "checkpointing": {"interval_ms": interval_ms, "timeout_ms": 30000, "retained": 2},
        "restart": {"strategy": "fixed_delay" if attempts else "none", "attempts": attempts, "delay_ms": 5},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": rate}},
                  {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x"}},
                  *sinks],
        "edges": [{"id": "keyed", "from": "gen", "to": "sum", "partitioning": "hash", "key": f"x % {KEYS}"},
                  *({"id": f"to-{sink['id']}", "from": "sum", "to": sink["id"]} for sink in sinks)],
    }


def expected_sums(count: int) -> Counter:
    """Every ``(key, running sum)`` of a failure-free run, once."""
    sums: dict[int, int] = {}
    lines: Counter = Counter()
    for x in range(count):
        sums[x % KEYS] = sums.get(x % KEYS, 0) + x
        lines[(x % KEYS, sums[x % KEYS])] += 1
    return lines


def postgres_sink(node_id: str, url: str, table: str = "sums", **params) -> dict:
    return {"id": node_id, "type": "sink.postgres",
            "params": {"url": url, "table": table, "columns": {"k": "x[0]", "total": "x[1]"}, **params}}


def create_sums_table(url: str, table: str = "sums", key: bool = False) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE TABLE {table} (k integer {'PRIMARY KEY' if key else ''}, total bigint)")


def table_rows(url: str, table: str = "sums") -> Counter:
    import psycopg

    with psycopg.connect(url) as connection:
        return Counter(tuple(row) for row in connection.execute(f"SELECT k, total FROM {table}"))


def prepared_transactions(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as connection:
        return [row[0] for row in connection.execute("SELECT gid FROM pg_prepared_xacts")]


KILL_POINTS = [
    # (point, vertex); the sinks are chained to "sum", so "sum" kills hit them too
    ("source_poll", "gen"),
    ("process", "sum"),
    ("snapshot", "sum"),
    ("async_upload", "sum"),
    ("before_ack", "sum"),
    ("before_commit", "sum"),
    ("after_commit", "sum"),
    ("snapshot", "gen"),
]


class KillPlan:
    """Kills subtasks at ``limit`` randomised points, one after another (a thread-safe kill hook)."""

    def __init__(self, seed: int, limit: int, parallelism: int, points: list[tuple] | None = None):
        self.random = random.Random(seed)
        self.points = points or KILL_POINTS
        self.parallelism = parallelism
        self.limit = limit
        self.lock = threading.Lock()
        self.kills: list[tuple] = []
        self._rearm()

    def _rearm(self) -> None:
        self.point, self.vertex = self.random.choice(self.points)
        self.index = self.random.randrange(self.parallelism)
        self.skip = self.random.randrange(0, 2)

    def __call__(self, point: str, task: tuple, info: dict) -> bool:
        with self.lock:
            if len(self.kills) >= self.limit or point != self.point or task != (self.vertex, self.index):
                return False
            if self.skip > 0:
                self.skip -= 1
                return False
            self.kills.append((point, task, info.get("checkpoint_id")))
            self._rearm()
            return True

    def stop(self) -> None:
        """No more kills from now on."""
        with self.lock:
            self.limit = len(self.kills)


class SlotKiller:
    """Spark: after a checkpoint of the current attempt completed, SIGKILL a random slot process.

    A checkpoint completing between a kill and the JobMaster noticing it belongs to the killed
    attempt: only one after the next RUNNING arms the next kill."""

    def __init__(self, seed: int, kills: int, slots: int = 2):
        self.random = random.Random(seed)
        self.slots = slots
        self.wanted = kills
        self.kills = 0
        self.armed = threading.Event()
        self.awaiting_restart = False

    def on_event(self, event: dict) -> None:
        if event["type"] == "status" and event["status"] == "RUNNING":
            self.armed.clear()
            self.awaiting_restart = False
        if event["type"] == "checkpoint" and event["event"] == "completed" and not self.awaiting_restart:
            self.armed.set()

    def kill_repeatedly(self, job_master, done: threading.Event) -> None:
        import os
        import signal

        while self.kills < self.wanted and not done.is_set():
            if not self.armed.wait(1):
                continue
            done.wait(self.random.uniform(0, 0.4))
            pids = list(job_master.deployer.slot_pids().values())
            if len(pids) < self.slots or done.is_set():
                continue
            self.awaiting_restart = True
            self.armed.clear()
            os.kill(self.random.choice(pids), signal.SIGKILL)
            self.kills += 1


def all_new_sinks(postgres_url: str, parquet_dir, redis_url: str, stream: str) -> list[dict]:
    """One node of each exactly-once sink of this issue, all fed ``[key, running sum]``."""
    return [postgres_sink("pg", postgres_url),
            {"id": "pq", "type": "sink.parquet", "params": {"path": str(parquet_dir), "row_group_size": 100}},
            {"id": "rs", "type": "sink.redis_stream", "params": {"stream": stream, "url": redis_url}}]


def parquet_sums(directory) -> Counter:
    """``(key, running sum)`` of the committed Parquet files (records ``[k, total]`` become ``value``)."""
    import pyarrow.parquet as pq

    rows: Counter = Counter()
    for path in directory.rglob("part-*.parquet"):
        for row in pq.read_table(path).to_pylist():
            rows[tuple(row["value"])] += 1
    return rows


def redis_sums(client, stream: str) -> Counter:
    import json

    return Counter(tuple(json.loads(fields["value"])) for _, fields in client.xrange(stream))
