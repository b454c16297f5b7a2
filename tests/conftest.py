"""Shared fixtures: isolated data directories, pipeline builders, users with API clients, a real Celery worker,
a PostgreSQL server of the tests' own."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.support import RedisServer, simple_pipeline, token_client

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def pipeline_definition() -> dict:
    return simple_pipeline()


@pytest.fixture(scope="session")
def studio_data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("studio-data")


@pytest.fixture(autouse=True, scope="session")
def _isolated_run_dirs(studio_data_dir):
    """Keep test runs' checkpoints and logs out of the developer's ./var.

    pytest-django configures settings before any conftest runs, so the directories are
    overridden here rather than through STUDIO_DATA_DIR.
    """
    from django.conf import settings

    settings.CHECKPOINT_ROOT = str(studio_data_dir / "checkpoints")
    settings.RUN_LOG_DIR = studio_data_dir / "runs"
    settings.STATE_BROWSER_CACHE = studio_data_dir / "state-browser"
    settings.SNAPSHOT_SIGNING_KEY_FILE = studio_data_dir / "snapshot-signing-key"  # the workers' and drivers' too
    # pipelines' workspaces (pipeline-<id>): the session's, for its Celery worker and the drivers it starts
    # (they read it from the environment); each test other than the worker's gets its own (_own_workspaces)
    os.environ["STUDIO_WORKSPACE_ROOT"] = settings.STUDIO_WORKSPACE_ROOT = str(studio_data_dir / "workspaces")
    # xdist's processes share one Redis but each has its own database, so run ids repeat
    # across them: each process gets channel-layer groups of its own, or a socket on run 5
    # of one process would hear run 5 of the other. Drivers and workers they start inherit it.
    os.environ["STUDIO_CHANNEL_PREFIX"] = f"asgi-{os.getpid()}"
    settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = os.environ["STUDIO_CHANNEL_PREFIX"]
    # Likewise Celery's queue: a worker of one process would launch a run of another's database.
    from studio.celery import app

    os.environ["STUDIO_CELERY_QUEUE"] = f"celery-{os.getpid()}"
    settings.CELERY_TASK_DEFAULT_QUEUE = app.conf.task_default_queue = os.environ["STUDIO_CELERY_QUEUE"]


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashes():
    """Test users' passwords are hashed with PBKDF2 at 1,000 rounds instead of the studio's 1,000,000.

    A hash at full strength costs half a CPU-second, and most tests create one or two users: on CI's two
    cores that was minutes of the suite. The algorithm stays PBKDF2-SHA256 and a hash carries its round
    count, so a studio process the tests start (e2e) checks these passwords with its own settings."""
    from django.conf import settings
    from django.contrib.auth.hashers import get_hashers, get_hashers_by_algorithm

    settings.PASSWORD_HASHERS = ["tests.hashers.FewRoundsPBKDF2PasswordHasher"]
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()


@pytest.fixture(autouse=True)
def _own_workspaces(request, settings, monkeypatch, studio_data_dir):
    """Each test's pipelines have workspaces of their own, in this process and in the drivers and workers it
    starts (they read ``STUDIO_WORKSPACE_ROOT`` from the environment).

    Pipeline ids repeat: across test sessions (a database each), and within one, where a plain
    ``django_db`` test's rolled-back pipeline gives its id to the next test's. Tests that share the
    session's Celery worker keep the session's root, which that worker was started with; their pipelines
    are committed, so their ids do not repeat."""
    if "celery_worker_process" in request.fixturenames:
        return
    root = studio_data_dir / "test-workspaces" / f"{next(_test_numbers)}"
    settings.STUDIO_WORKSPACE_ROOT = str(root)
    monkeypatch.setenv("STUDIO_WORKSPACE_ROOT", str(root))


_test_numbers = itertools.count(1)


@pytest.fixture(autouse=True)
def _launches_reach_the_worker_only_when_asked(request, monkeypatch):
    """A run started by a test that did not ask for the Celery worker is launched by no one.

    Once a test asked for it, the worker (``celery_worker_process``) lives for the session and reads
    this process's queue: without this, every run a later test created would get a real driver,
    which takes the commands and reports the outcomes of a test that plays the driver itself; and a
    launch queued in a transaction a plain ``django_db`` test rolls back would wait in the queue
    for the later run that gets the same id. Such launches go to a queue no worker reads (sent
    through Redis all the same), emptied after the test."""
    if "celery_worker_process" in request.fixturenames:
        yield
        return
    from studio.runs.tasks import launch_run

    unread, sent = f"{os.environ['STUDIO_CELERY_QUEUE']}-unread", []

    def delay(run_id):
        sent.append(run_id)
        return launch_run.apply_async((run_id,), queue=unread)

    monkeypatch.setattr(launch_run, "delay", delay)
    yield
    if sent:
        with launch_run.app.connection_for_write() as connection:
            connection.default_channel.queue_purge(unread)


@pytest.fixture(autouse=True)
def _rows_of_data_migrations(request):
    """The rows the migrations seed (the ``user-data`` location every user has), as a fresh database holds them.

    A ``transaction=True`` test ends by emptying every table, so without this a test after it would see
    them missing (``StorageLocation.DoesNotExist``), depending on the order the tests ran in."""
    asked = [name for name in ("transactional_db", "db") if name in request.fixturenames]
    if request.node.get_closest_marker("django_db") is None and not asked:
        return
    if asked:  # a fixture the test needs asks for the database: it opens before this autouse fixture writes
        request.getfixturevalue(asked[0])
    import importlib

    from django.apps import apps

    importlib.import_module("studio.migrations.0007_storage_locations").create_user_data_location(apps, None)


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """Throttle counters live in the cache; each test starts with none."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="alice-password")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="bob-password")


@pytest.fixture
def api(user):
    """An APIClient that authenticates as ``user`` with a real API token."""
    return token_client(user)


@pytest.fixture
def other_api(other_user):
    return token_client(other_user)


@pytest.fixture
def grant(db):
    """Grant a storage location to a user, as an administrator would (``studio.locations``):
    ``grant(user, tmp_path)`` for a directory, ``grant(user, dsn, kind="postgres")`` for a server."""
    from studio.models import LocationGrant, StorageLocation

    def make(user, prefix, kind: str = "path", *, write: bool = True, shared: bool = False) -> StorageLocation:
        location = StorageLocation.objects.create(name=f"test-{StorageLocation.objects.count() + 1}-{kind}",
                                                  kind=kind, prefix=str(prefix), shared=shared)
        LocationGrant.objects.create(location=location, user=user, can_write=write)
        return location

    return make


@pytest.fixture
def granted_tmp_path(grant, user, tmp_path) -> Path:
    """``tmp_path``, granted (read and write) to ``user``: where a test's file sources and sinks may go."""
    grant(user, tmp_path)
    return tmp_path


@pytest.fixture
def redis_server(settings):
    """A Redis of the test's own (commands, health, channel layer) that it may stop and start again."""
    from studio.settings import channel_layer_host

    server = RedisServer()
    server.start()
    settings.REDIS_URL = server.url  # commands
    settings.CHANNEL_LAYERS = {"default": {**settings.CHANNEL_LAYERS["default"], "CONFIG": {
        **settings.CHANNEL_LAYERS["default"]["CONFIG"], "hosts": [channel_layer_host(server.url)]}}}
    yield server
    if server.process.poll() is None:
        server.process.terminate()
        server.process.wait(10)


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server per test session, started by the tests (see ``tests/postgres_server``)."""
    from tests.postgres_server import PostgresServer

    with PostgresServer() as server:
        yield server


@pytest.fixture
def kafka_cluster():
    """A Kafka cluster of the test's own: librdkafka's mock cluster, 3 brokers (see ``tests/kafka_server``;
    it starts in about 0.2 s).

    Not one per session: the mock hands out producer ids at random from 900,000 values and finds a producer
    by its id alone, so of two transactional producers that drew the same id the later one is refused
    (``INVALID_PRODUCER_ID_MAPPING``), a failure no real broker has. A CI session's few hundred
    producers on one cluster drew a pair often enough to fail a run (odds about n^2 / 1.8M); a test's own
    few dozen almost never do."""
    from tests.kafka_server import KafkaMockCluster

    with KafkaMockCluster() as cluster:
        yield cluster


@pytest.fixture
def postgres_dsn(postgres_server) -> str:
    """The URL of a fresh, empty database on the session's server."""
    return postgres_server.create_database()


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, studio_data_dir):
    """A real Celery worker process on the test database, as `make up` starts one."""
    from django.db import connection

    from studio.celery import app

    # its heartbeat check sees every run of the database, and the tests' RUNNING runs without a driver never
    # beat: at 15 s it failed them mid-test ("driver lost") once a loaded test took longer. Tests of the check
    # call it themselves, or start a worker of their own with a short timeout (test_live_run).
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
           "STUDIO_DATA_DIR": str(studio_data_dir), "PYTHONPATH": str(ROOT), "STUDIO_HEARTBEAT_TIMEOUT": "3600"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "studio", "worker", "--pool", "threads", "--concurrency", "4",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env)
    deadline = time.monotonic() + 120  # it answers in seconds; at a load of 30 on 2 cores it took over a minute
    try:
        while not app.control.ping(timeout=0.5):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the Celery worker did not start")
    except BaseException:
        stop_process_tree(worker.pid)  # else it outlives the session, failing on its deleted database
        raise
    yield worker
    stop_process_tree(worker.pid)


def stop_process_tree(pid: int, grace: float = 15) -> None:
    """SIGTERM a process and all its descendants, SIGKILL what is left after ``grace``."""
    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    processes = [root, *root.children(recursive=True)]
    for process in processes:
        try:
            process.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(processes, timeout=grace)
    for process in alive:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass


def pytest_unconfigure(config):
    """The test database file is gone by now, but SQLite leaves its -wal and -shm files: remove ours."""
    from django.conf import settings

    name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if name and str(os.getpid()) in str(name):
        for suffix in ("-wal", "-shm"):
            Path(f"{name}{suffix}").unlink(missing_ok=True)
