"""Cluster mode: a Spark standalone master and two workers from the pyspark distribution.

The same job as in local mode, parallelism 4 across both workers, checkpoints and the
two-phase-commit output on a directory every node shares. docker-compose.yml's
spark-master and spark-worker services run the same two commands.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import stop_process_tree
from tests.support import wait_until

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


@pytest.fixture(scope="module")
def standalone_cluster(tmp_path_factory):
    """Master + two 2-core workers on 127.0.0.1; torn down with every process they started."""
    work = tmp_path_factory.mktemp("spark-standalone")
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
        for index in range(2):
            processes.append(subprocess.Popen(
                [spark_class(), "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                 "--cores", "2", "--memory", "1g", "--webui-port", str(free_port()),
                 "--work-dir", str(work / f"worker-{index}")],
                env=env, stdout=open(work / f"worker-{index}.log", "wb"), stderr=subprocess.STDOUT))
        wait_until(lambda: all("Successfully registered with master" in (work / f"worker-{i}.log").read_text()
                               for i in range(2)), 60, "both workers to register")
        yield {"url": url, "workers": processes[1:], "work": work}
    finally:
        for process in processes:
            stop_process_tree(process.pid, grace=10)


def python_workers_under(process: subprocess.Popen) -> list[psutil.Process]:
    try:
        children = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [child for child in children if "python" in child.name()]


def test_parallelism_4_pipeline_runs_across_two_workers_exactly_once(standalone_cluster, tmp_path):
    shared = tmp_path / "shared"
    definition = {
        "format": 1, "name": "cluster", "parallelism": 4,
        "checkpointing": {"interval_ms": 200},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": 4000, "rate": 2000}},
            {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
            {"id": "out", "type": "sink.file", "params": {"path": str(shared / "out")}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e2", "from": "double", "to": "out"}],
    }
    definition_file = tmp_path / "pipeline.json"
    definition_file.write_text(json.dumps(definition))
    driver = subprocess.Popen(
        [sys.executable, "-m", "engine", "run", str(definition_file), "--master", standalone_cluster["url"],
         "--checkpoint-dir", str(shared / "checkpoints")],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=open(tmp_path / "events.jsonl", "wb"),
        stderr=open(tmp_path / "driver.log", "wb"))
    seen_on = set()
    deadline = time.monotonic() + 120
    while driver.poll() is None and time.monotonic() < deadline:
        for index, worker in enumerate(standalone_cluster["workers"]):
            if python_workers_under(worker):
                seen_on.add(index)
        time.sleep(0.2)  # sampling the process tree, not a timing assertion
    if driver.poll() is None:
        stop_process_tree(driver.pid)
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines if line.startswith("{")]
    statuses = [event["status"] for event in events if event["type"] == "status"]
    assert driver.returncode == 0, (statuses, (tmp_path / "driver.log").read_text()[-3000:])
    assert statuses == ["RUNNING", "FINISHED"]
    assert seen_on == {0, 1}, "the slots should run on both workers"
    completed = [e for e in events if e["type"] == "checkpoint" and e["event"] == "completed"]
    assert completed and max(event["num_subtasks"] for event in completed) == 4  # later ones skip finished tasks
    assert Path(completed[-1]["external_path"], "_metadata").is_file()
    records = []
    for part in (shared / "out").glob("part-*.jsonl"):
        records.extend(json.loads(line) for line in part.read_text().splitlines())
    assert sorted(records) == [2 * x for x in range(4000)]
