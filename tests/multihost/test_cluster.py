"""A Spark standalone cluster across hosts: master, two workers and the driver each in its
own network namespace, running docker-compose.yml's commands and settings.

Before, the cluster path was proven on 127.0.0.1 only, where every process shares one
network stack: an address advertised wrongly still worked. Here the driver binds and
advertises its own address (``ENGINE_CONTROL_*``, ``SPARK_DRIVER_*``), each worker's slots
theirs (``ENGINE_DATA_*``, the executor's address), and the checkpoint, shuffle and output
directory is shared through the file system. One cluster serves the module (Spark's start
costs tens of seconds); each test starts its own driver on the driver host:

1. a p=4 keyed job whose hash exchange crosses the two worker hosts, exactly once;
2. a partition between a worker host and the rest (its link down, then up): the region
   fails over, the partitioned attempt cancels itself and never commits, output exact;
3. the loss of a worker host (every process in its namespace killed): the job waits for
   a replacement host and finishes from the latest checkpoint, output exact;
4. the studio (web server, Celery worker, its run drivers) on the driver host with
   PostgreSQL and Redis on a database host: a pipeline saved and run over its REST API
   finishes on the cluster with exact output.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from tests.multihost.hosts import Network, compose_command, compose_environment
from tests.postgres_server import PostgresServer
from tests.support import assert_exactly_once, wait_until

pytestmark = [pytest.mark.multihost, pytest.mark.spark, pytest.mark.timeout(600)]  # a cluster starts in the first

ROOT = Path(__file__).resolve().parents[2]
WORKER_CORES = "2"
"""Each worker host offers 2 slots (compose says 4: this machine has 2 CPUs), so a p=4
region needs both hosts and its hash exchange crosses them."""


def keyed_sums(shared: Path, count: int, rate: float) -> dict:
    """datagen -> hash(x % 8) -> running sum -> file sink, p=4: the committed lines of a
    run are fixed (every key's numbers come from one source subtask, in order)."""
    return {
        "format": 1, "name": "multihost", "parallelism": 4,
        "checkpointing": {"interval_ms": 300},
        "restart": {"strategy": "fixed_delay", "attempts": 5, "delay_ms": 0},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": rate}},
                  {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
                  {"id": "out", "type": "sink.file", "params": {"path": str(shared / "out")}}],
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


def assert_exact(directory: Path, count: int) -> None:
    assert_exactly_once(committed_lines(directory), expected_lines(count))


def base_env(work: Path) -> dict:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ENGINE_", "SPARK_", "PYSPARK_"))}
    return {**env, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable, "SPARK_LOG_DIR": str(work / "logs"),
            "ENGINE_CPU_LOCK_DIR": str(work / "cpu-locks")}


class Cluster:
    """The module's hosts and Spark services; ``start_worker`` and ``start_driver`` add to it."""

    def __init__(self, network: Network, work: Path):
        self.network = network
        self.work = work
        self.master = network.add("master")
        self.driver_host = network.add("driver")
        self.workers = {}
        self.addresses = {"spark-master": self.master.address, "worker": self.driver_host.address}
        self.master_url = f"spark://{self.master.address}:7077"

    def start_master(self) -> None:
        log = self.work / "master.log"
        self.master.start(compose_command("spark-master", self.addresses),
                          {**base_env(self.work), "SPARK_LOCAL_IP": self.master.address}, log)
        wait_until(lambda: "Starting Spark master at" in log.read_text() or "I have been elected leader"
                   in log.read_text(), 90, "the Spark master to start")

    def start_worker(self, name: str):
        host = self.network.add(name)
        log = self.work / f"{name}.log"
        argv = compose_command("spark-worker", self.addresses)
        argv[argv.index("--cores") + 1] = WORKER_CORES
        # two executors' memory (1g each): the studio's elastic session runs one-core executors, two a host
        # (docs/deployment.md); with 1g a host took one, and a run of 4 slots waited for ever on 2 hosts
        argv[argv.index("--memory") + 1] = "2g"
        env = {**base_env(self.work), **compose_environment("spark-worker", self.addresses),
               "SPARK_LOCAL_IP": host.address}
        host.start([*argv, "--work-dir", str(self.work / f"{name}-work")], env, log)
        wait_until(lambda: "Successfully registered with master" in log.read_text(), 90, f"{name} to register")
        self.workers[name] = host
        return host

    def start_driver(self, tmp_path: Path, definition: dict):
        definition_file = tmp_path / "pipeline.json"
        definition_file.write_text(json.dumps(definition))
        env = {**base_env(self.work), **compose_environment("worker", self.addresses)}
        return self.driver_host.start(
            [sys.executable, "-m", "engine", "run", str(definition_file), "--master", self.master_url,
             "--checkpoint-dir", str(tmp_path / "shared" / "checkpoints")],
            env, tmp_path / "driver.log", stdout=tmp_path / "events.jsonl")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2 (CI runs as root)")
    work = tmp_path_factory.mktemp("multihost")
    network = Network()
    try:
        cluster = Cluster(network, work)
        cluster.start_master()
        cluster.start_worker("worker1")
        cluster.start_worker("worker2")
        yield cluster
    finally:
        network.close()


def events_of(tmp_path: Path) -> list[dict]:
    path = tmp_path / "events.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines if line.startswith("{")]


def statuses(tmp_path: Path) -> list[str]:
    return [event["status"] for event in events_of(tmp_path) if event["type"] == "status"]


def completed_checkpoints(tmp_path: Path) -> list[dict]:
    return [e for e in events_of(tmp_path) if e["type"] == "checkpoint" and e["event"] == "completed"]


def finish(driver, tmp_path: Path, timeout: float) -> None:
    try:
        code = driver.wait(timeout)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert code == 0, (statuses(tmp_path), (tmp_path / "driver.log").read_text()[-3000:])


def test_a_hash_exchange_crosses_the_worker_hosts_exactly_once(cluster, tmp_path):
    shared = tmp_path / "shared"
    count = 4000
    driver = cluster.start_driver(tmp_path, keyed_sums(shared, count, 1500))
    worker1, worker2 = cluster.workers["worker1"], cluster.workers["worker2"]
    crossing = wait_until(lambda: driver.poll() is not None or worker1.connections_to(worker2), 120,
                          "a data connection between the worker hosts")
    finish(driver, tmp_path, 180)
    assert crossing is not True and crossing, "the job ended before its slots connected across hosts"
    data_ports = range(42000, 42032)  # docker-compose.yml's ENGINE_DATA_PORTS
    assert any(int(line.split()[-1].rsplit(":", 1)[1]) in data_ports or
               int(line.split()[-2].rsplit(":", 1)[1]) in data_ports for line in crossing), crossing
    assert statuses(tmp_path) == ["RUNNING", "FINISHED"]
    completed = completed_checkpoints(tmp_path)
    assert completed and max(event["num_subtasks"] for event in completed) == 8
    assert_exact(shared / "out", count)


def test_a_partitioned_worker_host_is_fenced_and_the_output_is_exact(cluster, tmp_path):
    """worker2's link goes down after a checkpoint: its control connections die within
    DEAD_PEER_TIMEOUT_S, the driver restarts the region, and the slots on worker2, cut off
    from their driver, cancel themselves; the link comes back, Spark frees worker2's
    cores, and the new attempt finishes from the latest checkpoint."""
    shared = tmp_path / "shared"
    count = 6000
    worker2 = cluster.workers["worker2"]
    driver = cluster.start_driver(tmp_path, keyed_sums(shared, count, 500))
    try:
        wait_until(lambda: completed_checkpoints(tmp_path) and worker2.connections_to(cluster.driver_host)
                   or driver.poll() is not None, 120, "a completed checkpoint with slots on worker2")
        assert driver.poll() is None, statuses(tmp_path)
        before = len(committed_lines(shared / "out"))
        worker2.link(False)
        try:
            wait_until(lambda: "RESTARTING" in statuses(tmp_path) or driver.poll() is not None, 90,
                       "the driver to fail the region over")
        finally:
            worker2.link(True)
        assert "RESTARTING" in statuses(tmp_path), statuses(tmp_path)
        finish(driver, tmp_path, 240)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert statuses(tmp_path)[-1] == "FINISHED"
    causes = [e.get("cause", "") for e in events_of(tmp_path) if e.get("status") == "RESTARTING"]
    print("restarted because:", causes)
    assert "lost its connection" in causes[0], causes  # the control channel noticed, not a timeout elsewhere
    assert before < sum(expected_lines(count).values())
    assert_exact(shared / "out", count)


def test_losing_a_worker_host_mid_run_recovers_on_a_new_host_with_exact_output(cluster, tmp_path):
    shared = tmp_path / "shared"
    count = 6000
    worker2 = cluster.workers["worker2"]
    driver = cluster.start_driver(tmp_path, keyed_sums(shared, count, 500))
    try:
        wait_until(lambda: completed_checkpoints(tmp_path) and worker2.connections_to(cluster.driver_host)
                   or driver.poll() is not None, 120, "a completed checkpoint with slots on worker2")
        assert driver.poll() is None, statuses(tmp_path)
        assert worker2.kill_all() >= 3  # the worker's JVM, its executor's JVM, the slots' Python workers
        wait_until(lambda: "RESTARTING" in statuses(tmp_path) or driver.poll() is not None, 120,
                   "the driver to restart the region")
        cluster.start_worker("worker3")
        finish(driver, tmp_path, 240)
    finally:
        if driver.poll() is None:
            driver.kill()
    found = statuses(tmp_path)
    assert found[0] == "RUNNING" and found[-1] == "FINISHED" and "RESTARTING" in found, found
    assert_exact(shared / "out", count)


class NamespacedPostgres(PostgresServer):
    """The tests' PostgreSQL server, listening on a host of the network instead of loopback."""

    def __init__(self, host):
        super().__init__()
        self.host = host.address
        self._in_host = host

    def _demote(self) -> None:
        self._in_host.enter()  # before the user change: entering a namespace needs root
        super()._demote()

    def _run(self, command: list[str]) -> None:
        super()._run(command)
        if command[0].endswith("initdb"):  # the other hosts of the network may connect, with the password
            network = ".".join(self.host.split(".")[:3]) + ".0/24"
            with open(self.directory / "data" / "pg_hba.conf", "a") as hba:
                hba.write(f"host all all {network} scram-sha-256\n")


def api(url: str, token: str, path: str, body: dict | None = None) -> dict:
    """One API call; a read the studio shed (503 + Retry-After, ``studio.load_shedding``) is retried
    after the wait it asks for, as a client should -- a loaded CI machine sheds now and then."""
    request = urllib.request.Request(f"{url}{path}", data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
                                     method="GET" if body is None else "POST")
    for attempt in range(5):
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            if error.code != 503 or body is not None or attempt == 4:
                raise
            time.sleep(float(error.headers.get("Retry-After") or 1))


def test_the_studio_runs_a_pipeline_on_the_cluster_from_its_own_host(cluster, tmp_path):
    """Web, Celery worker and drivers on the driver host (compose's ``worker`` settings),
    PostgreSQL and Redis on the database host, the Spark cluster on the others."""
    database_host = cluster.network.add("db")
    studio_host = cluster.driver_host
    redis = database_host.start([str(Path(sys.executable).parent / "python"), "-c",
                                 "import os, sys; from studio.embedded_redis import redis_server_binary; "
                                 "b = redis_server_binary(); os.execv(b, [b, *sys.argv[1:]])",
                                 "--bind", database_host.address, "--port", "6379", "--save", "",
                                 "--protected-mode", "no"], base_env(cluster.work), tmp_path / "redis.log")
    with NamespacedPostgres(database_host) as postgres:
        data_dir = tmp_path / "studio-data"
        port = 8000
        env = {**base_env(cluster.work), **compose_environment("worker", cluster.addresses),
               "DATABASE_URL": postgres.create_database("studio"),
               "REDIS_URL": f"redis://{database_host.address}:6379/0", "SPARK_MASTER": cluster.master_url,
               "STUDIO_DATA_DIR": str(data_dir), "STUDIO_ADMIN_PASSWORD": "multihost-admin",
               "STUDIO_WEB_WORKERS": "1", "DJANGO_ALLOWED_HOSTS": studio_host.address,
               "DJANGO_SETTINGS_MODULE": "studio.settings"}
        launcher = studio_host.start([sys.executable, "-m", "studio.processes.supervisor", "--host", studio_host.address,
                                      "--port", str(port)], env, tmp_path / "studio.log")
        url = f"http://{studio_host.address}:{port}"
        try:
            wait_until(lambda: launcher.poll() is not None or "Pipeline studio is running" in
                       (tmp_path / "studio.log").read_text(), 240, "the studio to start")
            assert launcher.poll() is None, (tmp_path / "studio.log").read_text()[-3000:]
            issued = studio_host.run(sys.executable, "-m", "django", "create_token", "admin", check=False, env=env)
            token = issued.stdout.strip()
            assert issued.returncode == 0 and token, issued.stderr
            count = 3000
            output = data_dir / "users" / "admin" / "out"  # inside the location every user is granted
            pipeline = api(url, token, "/api/pipelines", {"name": "multihost",
                                                          "definition": keyed_sums(output.parent, count, 1500)})
            run = api(url, token, f"/api/pipelines/{pipeline['id']}/runs", {})
            final = wait_until(lambda: (lambda r: r if r["status"] in ("FINISHED", "FAILED", "CANCELED") else None)(
                api(url, token, f"/api/runs/{run['id']}")), 300, "the run to end")
            said = {key: final.get(key) for key in ("status", "placement", "placement_reason", "failure_cause")}
            assert final["status"] == "FINISHED", (said, (tmp_path / "studio.log").read_text()[-3000:])
            assert_exact(output, count)
            checkpoints = api(url, token, f"/api/runs/{run['id']}/checkpoints")
            assert checkpoints["counts"]["completed"] >= 1, checkpoints["counts"]
        finally:
            launcher.send_signal(signal.SIGINT)
            try:
                launcher.wait(60)
            except Exception:
                launcher.kill()
            redis.kill()
