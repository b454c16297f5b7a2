"""`make up`'s launcher supervises what it starts: a killed Redis, worker or web server comes back.

Before: a killed embedded Redis never came back and the studio ran on without it. The
test starts the launcher as `make up` does (its own data directory, embedded Redis,
SQLite), kills each child with SIGKILL and waits for a new one that answers. How fast
Redis comes back is printed (the supervision loop checks twice a second), not asserted.
"""
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import psutil
import pytest
import redis

from tests.conftest import ROOT
from tests.support import wait_until


ADVERTISED_URL = "http://studio.example:8443/"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def health(url: str) -> int | None:
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def child(launcher: psutil.Process, is_it) -> psutil.Process | None:
    """The launcher's live direct child that ``is_it`` picks."""
    for process in launcher.children():
        try:
            if process.status() != psutil.STATUS_ZOMBIE and is_it(process.cmdline()):
                return process
        except psutil.NoSuchProcess:
            pass
    return None


def descendant(process: psutil.Process, is_it) -> psutil.Process | None:
    """A live descendant of ``process`` that ``is_it`` picks; one that ends while being looked at is passed over
    (the session driver starts and reaps short-lived children while the JVM comes up)."""
    for candidate in process.children(recursive=True):
        try:
            if is_it(candidate):
                return candidate
        except psutil.NoSuchProcess:
            pass
    return None


def slot_daemon(driver: psutil.Process) -> psutil.Process | None:
    """The executors' Python daemon (``engine.cluster.spark_daemon``, the JVM's child) below the session driver, once
    started; not one of the workers it forks, which carry the same command line."""
    for process in driver.children(recursive=True):
        try:
            if "engine.cluster.spark_daemon" in " ".join(process.cmdline()) and "java" in process.parent().name():
                return process
        except psutil.NoSuchProcess:
            pass
    return None


def is_redis(cmdline) -> bool:
    return bool(cmdline) and "redis-server" in cmdline[0]  # it retitles itself "redis-server host:port"


def is_session_driver(cmdline) -> bool:
    return "studio.runs.session_driver" in cmdline


def is_worker(cmdline) -> bool:
    return "celery" in cmdline and "worker" in cmdline


@pytest.fixture
def studio(tmp_path):
    port = free_port()
    env = {key: value for key, value in os.environ.items()  # the studio's own, under its data directory
           if key not in ("REDIS_URL", "DATABASE_URL", "STUDIO_WORKSPACE_ROOT")}
    env.update(STUDIO_DATA_DIR=str(tmp_path), STUDIO_PORT=str(port), STUDIO_WEB_WORKERS="1",
               STUDIO_ADMIN_PASSWORD="launcher-test", PYTHONPATH=str(ROOT), STUDIO_HOST="0.0.0.0",
               STUDIO_ADVERTISED_URL=ADVERTISED_URL, STUDIO_RUN_AUTOGROUP_NICE="10",
               STUDIO_SLOT_AUTOGROUP_NICE="12")
    env.pop("DJANGO_ALLOWED_HOSTS", None)
    launcher = subprocess.Popen([sys.executable, "-m", "studio.processes.supervisor"], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: health(url) == 200 or launcher.poll() is not None, 240, "the studio to answer")
        assert launcher.poll() is None
        yield psutil.Process(launcher.pid), url
    finally:
        descendants = psutil.Process(launcher.pid).children(recursive=True) if launcher.poll() is None else []
        launcher.send_signal(signal.SIGINT)
        launcher.wait(60)
        psutil.wait_procs(descendants, timeout=15)


def health_as(url: str, host: str) -> int:
    request = urllib.request.Request(f"{url}/api/health", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_studio_binds_its_host_and_answers_at_its_advertised_url(studio):
    """STUDIO_HOST=0.0.0.0 binds every interface; STUDIO_ADVERTISED_URL's host is allowed,
    another host name is refused (Django's Host check)."""
    launcher, url = studio
    web = child(launcher, lambda cmdline: "uvicorn" in cmdline)
    assert any(conn.laddr.ip == "0.0.0.0" and conn.status == psutil.CONN_LISTEN
               for conn in web.net_connections("tcp")), "the web server should bind STUDIO_HOST"
    assert health_as(url, "studio.example:8443") == 200
    assert health_as(url, "elsewhere.example") == 400


def test_the_advertised_url_adds_its_host_and_origin_to_the_django_settings():
    from studio.processes.supervisor import advertised_environment

    assert advertised_environment("https://studio.example.com/", {"DJANGO_ALLOWED_HOSTS": "a,b"}) == {
        "DJANGO_ALLOWED_HOSTS": "a,b,studio.example.com",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://studio.example.com"}
    with pytest.raises(ValueError, match="STUDIO_ADVERTISED_URL='studio:8000'"):
        advertised_environment("studio:8000", {})


def test_the_runs_yield_the_cpu_to_the_web_server(studio):
    """The session driver leads a session of its own, other than the web server's, which its Spark JVM and slot
    processes share; where the kernel groups the CPU by session (autogroup), that group has the niceness
    ``STUDIO_RUN_AUTOGROUP_NICE`` (10 here; off unless set) and the web server's the default, so a web request is
    not one group among equals with a hundred runs (docs/performance.md, issue 40, seventh wave). The slots' Python
    daemon leaves that session for one of its own at ``STUDIO_SLOT_AUTOGROUP_NICE`` (12 here)."""
    from studio.processes.priority import autogroup_nice, autogroup_on

    launcher, _ = studio
    web = child(launcher, lambda cmdline: "uvicorn" in cmdline)
    driver = wait_until(lambda: child(launcher, is_session_driver), 60, "the session driver")
    assert os.getsid(driver.pid) == driver.pid != os.getsid(web.pid)
    assert os.getsid(web.pid) != os.getsid(launcher.pid)
    if not autogroup_on():
        pytest.skip("this kernel does not group the CPU by session")
    wait_until(lambda: autogroup_nice(driver.pid) == 10, 120,
               "the session driver to lower its group's weight")
    jvm = wait_until(lambda: descendant(driver, lambda process: "java" in process.name()), 180,
                     "the session's Spark JVM")
    assert os.getsid(jvm.pid) == driver.pid and autogroup_nice(jvm.pid) == 10
    daemon = wait_until(lambda: slot_daemon(driver), 180, "the slots' Python daemon")
    wait_until(lambda: autogroup_nice(daemon.pid) == 12, 60, "the slots' daemon to take a group of its own")
    assert os.getsid(daemon.pid) == daemon.pid, "the slots lead a session (an autogroup) of their own"
    web_side = [web, *web.children(recursive=True)]
    assert [autogroup_nice(process.pid) for process in web_side] == [0] * len(web_side), \
        "the web server keeps the default weight"


def test_killed_children_are_started_again(studio):
    launcher, url = studio
    old_redis = child(launcher, is_redis)
    port = int(" ".join(old_redis.cmdline()).split()[1].rsplit(":", 1)[1])
    client = redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=2)
    client.set("survives-a-restart", "yes")
    wait_until(lambda: client.info("persistence")["aof_rewrite_in_progress"] == 0, 10, "the AOF to settle")
    time.sleep(1.2)  # appendfsync everysec: let the write reach the file (not a timing assertion)

    old_redis.kill()
    killed_at = time.monotonic()
    new_redis = wait_until(lambda: (lambda p: p if p and p.pid != old_redis.pid else None)(child(launcher, is_redis)),
                           30, "a new redis-server")
    wait_until(lambda: _pings(client), 30, "the new Redis to answer on the same port")
    print(f"embedded Redis answered again {time.monotonic() - killed_at:.2f} s after SIGKILL")
    assert new_redis.pid != old_redis.pid
    assert client.get("survives-a-restart") == b"yes"  # its data came back from the append-only file
    wait_until(lambda: health(url) == 200, 30, "health to be ok again")

    old_worker = child(launcher, is_worker)
    old_worker.kill()
    new_worker = wait_until(lambda: (lambda p: p if p and p.pid != old_worker.pid else None)(
        child(launcher, is_worker)), 30, "a new Celery worker")
    assert new_worker.is_running()

    old_session = child(launcher, is_session_driver)
    assert old_session is not None, "make up keeps a session driver (STUDIO_SESSION_MODE defaults to on)"
    old_session.kill()
    new_session = wait_until(lambda: (lambda p: p if p and p.pid != old_session.pid else None)(
        child(launcher, is_session_driver)), 30, "a new session driver")
    assert new_session.is_running()
    assert launcher.is_running()


def _pings(client) -> bool:
    try:
        return client.ping()
    except redis.RedisError:
        return False
