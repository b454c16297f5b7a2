"""Cluster mode: a Spark standalone master and two workers from the pyspark distribution.

A keyed job at parallelism 4 across both workers (its hash exchange crosses them), with
checkpoints and the two-phase-commit output on a directory every node shares; then the
same job losing a worker mid-run. docker-compose.yml's spark-master and spark-worker
services run the same two commands.
"""
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from tests.conftest import stop_process_tree
from tests.support import assert_exactly_once, wait_until

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]


def spark_class() -> str:
    found = shutil.which("spark-class", path=str(Path(sys.executable).parent))
    assert found, "spark-class ships with pyspark in the virtualenv"
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def standalone_spark(work: Path, workers: int, memory: str):
    """A master and ``workers`` 2-core workers on 127.0.0.1, logging under ``work``; every process they
    started stopped on exit. Yields ``url``, ``env``, ``work``, ``processes`` (the master first), ``workers``."""
    port = free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(work / "logs"),
           "PYSPARK_PYTHON": sys.executable}
    master = subprocess.Popen(
        [spark_class(), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
         "--webui-port", str(free_port())],
        env=env, stdout=open(work / "master.log", "wb"), stderr=subprocess.STDOUT)
    processes = [master]
    try:
        wait_until(lambda: listening(port), 60, "the Spark master to listen")
        url = f"spark://127.0.0.1:{port}"
        for index in range(workers):
            processes.append(subprocess.Popen(
                [spark_class(), "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                 "--cores", "2", "--memory", memory, "--webui-port", str(free_port()),
                 "--work-dir", str(work / f"worker-{index}")],
                env=env, stdout=open(work / f"worker-{index}.log", "wb"), stderr=subprocess.STDOUT))
        wait_until(lambda: all("Successfully registered with master" in (work / f"worker-{i}.log").read_text()
                               for i in range(workers)), 60, "the workers to register")
        yield {"url": url, "workers": processes[1:], "work": work, "env": env, "processes": processes}
    finally:
        for process in processes:
            stop_process_tree(process.pid, grace=10)


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory):
    """Master + two 2-core workers on 127.0.0.1; torn down with every process they started."""
    with standalone_spark(tmp_path_factory.mktemp("spark-standalone"), workers=2, memory="1g") as cluster:
        yield cluster


def python_workers_under(process: subprocess.Popen) -> list[psutil.Process]:
    try:
        children = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [child for child in children if "python" in child.name()]


def start_worker(cluster: dict, index: int) -> subprocess.Popen:
    """A 2-core worker registered with the master; its log says when it did."""
    work = cluster["work"]
    log = work / f"worker-{index}.log"
    worker = subprocess.Popen(
        [spark_class(), "org.apache.spark.deploy.worker.Worker", cluster["url"], "--host", "127.0.0.1",
         "--cores", "2", "--memory", "1g", "--webui-port", str(free_port()), "--work-dir", str(work / f"worker-{index}")],
        env=cluster["env"], stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    cluster["processes"].append(worker)
    wait_until(lambda: "Successfully registered with master" in log.read_text(), 180, f"worker {index} to register")
    return worker


def keyed_sums_on_shared_storage(shared: Path, count: int, rate: float) -> dict:
    """datagen -> hash(x % 8) -> running sum -> file sink at parallelism 4: every key's numbers come
    from one source subtask (x % 4), so the committed lines of a failure-free run are fixed."""
    return {
        "format": 1, "name": "cluster", "parallelism": 4,
        "checkpointing": {"interval_ms": 200},
        "restart": {"strategy": "fixed_delay", "attempts": 3, "delay_ms": 0},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": rate}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
            {"id": "out", "type": "sink.file", "params": {"path": str(shared / "out")}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x % 8"},
                  {"id": "e2", "from": "sum", "to": "out"}],
    }


def expected_lines(count: int) -> Counter:
    sums: dict[int, int] = {}
    lines: Counter = Counter()
    for x in range(count):
        sums[x % 8] = sums.get(x % 8, 0) + x
        lines[(x % 8, sums[x % 8])] += 1
    return lines


def committed_lines(directory: Path) -> Counter:
    return Counter(tuple(json.loads(line)) for part in directory.glob("part-*.jsonl")
                   for line in part.read_text().splitlines() if line)


def start_driver(cluster: dict, tmp_path: Path, definition: dict) -> subprocess.Popen:
    definition_file = tmp_path / "pipeline.json"
    definition_file.write_text(json.dumps(definition))
    return subprocess.Popen(
        [sys.executable, "-m", "engine", "run", str(definition_file), "--master", cluster["url"],
         "--checkpoint-dir", str(tmp_path / "shared" / "checkpoints")],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=open(tmp_path / "events.jsonl", "wb"),
        stderr=open(tmp_path / "driver.log", "wb"))


def events_of(tmp_path: Path) -> list[dict]:
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.startswith("{")]


def test_a_hash_exchange_crosses_the_two_workers_exactly_once(standalone_cluster, tmp_path):
    shared = tmp_path / "shared"
    driver = start_driver(standalone_cluster, tmp_path, keyed_sums_on_shared_storage(shared, 4000, 2000))
    seen_on = set()
    deadline = time.monotonic() + 120
    while driver.poll() is None and time.monotonic() < deadline:
        for index, worker in enumerate(standalone_cluster["workers"]):
            if python_workers_under(worker):
                seen_on.add(index)
        time.sleep(0.2)  # sampling the process tree, not a timing assertion
    if driver.poll() is None:
        stop_process_tree(driver.pid)
    events = events_of(tmp_path)
    statuses = [event["status"] for event in events if event["type"] == "status"]
    assert driver.returncode == 0, (statuses, (tmp_path / "driver.log").read_text()[-3000:])
    assert statuses == ["RUNNING", "FINISHED"]
    assert seen_on == {0, 1}, "the slots should run on both workers, so the hash exchange crosses them"
    completed = [e for e in events if e["type"] == "checkpoint" and e["event"] == "completed"]
    assert completed and max(event["num_subtasks"] for event in completed) == 8
    assert Path(completed[-1]["external_path"], "_metadata").is_file()
    assert committed_lines(shared / "out") == expected_lines(4000)


def test_killing_a_worker_mid_run_recovers_once_capacity_is_back_with_exact_output(standalone_cluster, tmp_path):
    """SIGKILL of one worker's JVM and its Python workers after a checkpoint: the region fails,
    waits for four slots, runs again once a new worker registered, from the latest checkpoint."""
    shared = tmp_path / "shared"
    count = 6000
    driver = start_driver(standalone_cluster, tmp_path, keyed_sums_on_shared_storage(shared, count, 1000))
    try:
        wait_until(lambda: any(e["type"] == "checkpoint" and e["event"] == "completed" for e in events_of(tmp_path))
                   and python_workers_under(standalone_cluster["workers"][1]), 120,
                   "a completed checkpoint with slots on worker 1")
        victim = standalone_cluster["workers"][1]
        family = [psutil.Process(victim.pid), *psutil.Process(victim.pid).children(recursive=True)]
        for process in family:
            process.kill()
        wait_until(lambda: any(e.get("status") == "RESTARTING" for e in events_of(tmp_path)), 120,
                   "the JobMaster to restart the region")
        standalone_cluster["workers"][1] = start_worker(standalone_cluster, 2)
        assert driver.wait(240) == 0, (tmp_path / "driver.log").read_text()[-3000:]
    finally:
        if driver.poll() is None:
            stop_process_tree(driver.pid)
    statuses = [event["status"] for event in events_of(tmp_path) if event["type"] == "status"]
    assert statuses[0] == "RUNNING" and statuses[-1] == "FINISHED" and "RESTARTING" in statuses, statuses
    assert_exactly_once(committed_lines(shared / "out"), expected_lines(count))
