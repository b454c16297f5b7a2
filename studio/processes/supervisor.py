"""``make up``: run the whole studio on one machine with embedded defaults.

Starts, in order: Redis (embedded when ``REDIS_URL`` is not set), the database
migrations, a Celery worker, the session driver (``studio.runs.session_driver``: one Spark
application that small runs share, unless ``STUDIO_SESSION_MODE=0``), and the ASGI server
(uvicorn with ``STUDIO_WEB_WORKERS`` worker processes, default one more than the CPUs: HTTP +
WebSocket; the channel layer is Redis, so a socket's events reach it whichever worker holds
it). Runs the session does not take start their own Spark drivers (``local[N]`` unless
``SPARK_MASTER`` is set; ``studio.runs.placement`` says which).

Supervision: the launcher checks its children twice a second and starts again whichever
died: the embedded Redis (same port, its data back from its append-only file), the Celery
worker, the session driver (which takes its runs back from their latest checkpoints; one that
lost its session lease exits 1 to be started again, and one started while another holds the
lease waits for it rather than exit, so that it is no crash loop), the web server (which itself
restarts a dead or hung worker process). A child that dies ``RESTART_LIMIT`` times within ``RESTART_WINDOW_S`` is crashing, not failing now and
then: the launcher then stops everything and says so. Ctrl-C or SIGTERM stops everything
this launcher started, drivers and their JVMs included, so no process outlives it.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
SHUTDOWN_GRACE_SECONDS = 10
SUPERVISE_INTERVAL_S = 0.5
RESTART_LIMIT = 5
RESTART_WINDOW_S = 60.0


class CrashLoop(RuntimeError):
    """A child keeps dying right after it is started again."""


class Supervised:
    """A child process the launcher owns: started by ``start``, started again when it died."""

    def __init__(self, name: str, start):
        self.name = name
        self._start = start
        self._restarts: list[float] = []
        self.process = start()

    def restart_if_dead(self) -> bool:
        """Start the child again when it exited; True when it had to. Raises CrashLoop past the limit."""
        if self.process.poll() is None:
            return False
        now = time.monotonic()
        self._restarts = [moment for moment in self._restarts if now - moment < RESTART_WINDOW_S] + [now]
        if len(self._restarts) > RESTART_LIMIT:
            raise CrashLoop(f"{self.name} died {len(self._restarts)} times within {RESTART_WINDOW_S:.0f} s "
                            f"(last exit code {self.process.returncode})")
        print(f"{self.name} exited with code {self.process.returncode}; starting it again", file=sys.stderr,
              flush=True)
        self.process = self._start()
        return True


def advertised_environment(url: str, environ: dict | None = None) -> dict[str, str]:
    """The Django settings a studio reached at ``url`` (``STUDIO_ADVERTISED_URL``) needs:
    its host added to ``DJANGO_ALLOWED_HOSTS`` and its origin to ``DJANGO_CSRF_TRUSTED_ORIGINS``.

    The studio binds ``STUDIO_HOST:STUDIO_PORT`` (``0.0.0.0:8000`` in a container), but
    browsers reach it by another name (a proxy, a published port); Django refuses requests
    whose Host it does not know, and sessions' unsafe requests from an untrusted origin.
    """
    environ = os.environ if environ is None else environ
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"STUDIO_ADVERTISED_URL={url!r}: expected http(s)://host[:port]/")
    origin = f"{parts.scheme}://{parts.netloc}"
    hosts = [host for host in environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",") if host]
    origins = [item for item in environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if item]
    return {"DJANGO_ALLOWED_HOSTS": ",".join(dict.fromkeys([*hosts, parts.hostname])),
            "DJANGO_CSRF_TRUSTED_ORIGINS": ",".join(dict.fromkeys([*origins, origin]))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("STUDIO_HOST", "127.0.0.1"),
                        help="the interface the web server binds (STUDIO_HOST)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("STUDIO_PORT", "8000")),
                        help="its port (STUDIO_PORT)")
    parser.add_argument("--advertised-url", default=os.environ.get("STUDIO_ADVERTISED_URL"),
                        help="the URL browsers reach the studio at, when not http://HOST:PORT/ "
                             "(STUDIO_ADVERTISED_URL)")
    args = parser.parse_args(argv)

    if args.advertised_url:  # before Django's settings are read, here and in every child
        os.environ.update(advertised_environment(args.advertised_url))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    from studio.embedded_redis import embedded_server, ensure_redis_url

    redis_url = ensure_redis_url()
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    try:
        subprocess.run([sys.executable, "-m", "django", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
        subprocess.run([sys.executable, "-m", "django", "recover_runs"], cwd=ROOT, check=True)
        login = subprocess.run([sys.executable, "-m", "django", "ensure_admin"], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
        children = [Supervised("the Celery worker", _start_worker),
                    Supervised("the web server", lambda: _start_web(args.host, args.port))]
        url = f"http://{_reachable(args.host)}:{args.port}/"
        # STUDIO_START_TIMEOUT_S: how long the web server may take to answer first (a loaded machine's benchmarks)
        _wait_for_http(url, [child.process for child in children], stopping,
                       float(os.environ.get("STUDIO_START_TIMEOUT_S", "180")))
        if session_mode_on():  # its JVM starts once the web answers: on a busy machine the web comes first
            children.append(Supervised("the session driver", _start_session_driver))
        _warm_api_schema()
        print(f"\n  Pipeline studio is running at {args.advertised_url or url}\n  {login}\n"
              f"  (Redis {redis_url}; Ctrl-C stops everything)\n", flush=True)
        while not stopping.wait(SUPERVISE_INTERVAL_S):
            redis = embedded_server()
            if redis is not None and redis.restart_if_dead():
                print(f"the embedded Redis died; started again on {redis_url}", file=sys.stderr, flush=True)
            for child in children:
                child.restart_if_dead()
    except CrashLoop as crash:
        print(f"{crash}; stopping", file=sys.stderr)
        return 1
    finally:
        _stop_tree()
    return 0


def _warm_api_schema() -> subprocess.Popen:
    """Generate the API schema in a process of its own at low priority (``warm_api_schema``), so
    that no web process spends seconds on it when someone opens Swagger UI."""
    return subprocess.Popen([sys.executable, "-m", "django", "warm_api_schema", "-v", "0"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, preexec_fn=lambda: os.nice(10))


def _reachable(host: str) -> str:
    """Where this launcher reaches its own web server bound to ``host``."""
    return "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else host


def session_mode_on() -> bool:
    from django.conf import settings

    return settings.SESSION_MODE


def _start_session_driver() -> subprocess.Popen:
    from django.conf import settings

    settings.RUN_LOG_DIR.mkdir(parents=True, exist_ok=True)
    with open(settings.RUN_LOG_DIR / "session-driver.log", "ab") as log:
        return subprocess.Popen([sys.executable, "-m", "studio.runs.session_driver"], cwd=ROOT,
                                start_new_session=True, stdout=log, stderr=subprocess.STDOUT)


def _start_worker() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "studio", "worker", "--pool", "threads", "--concurrency", "8",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle"],
        cwd=ROOT, start_new_session=True)


WEB_HEALTHCHECK_TIMEOUT_S = 60
"""How long uvicorn waits for a web process to answer its health check before it replaces it."""


def web_server_command(host: str, port: int, workers: int | None = None) -> list[str]:
    """The ASGI server as ``make up`` runs it (benchmarks start the same)."""
    workers = workers or int(os.environ.get("STUDIO_WEB_WORKERS") or (os.cpu_count() or 1) + 1)
    return [sys.executable, "-m", "uvicorn", "studio.asgi:application", "--host", host, "--port", str(port),
            "--workers", str(workers), "--loop", "uvloop", "--http", "httptools", "--ws", "websockets",
            "--lifespan", "off", "--no-access-log", "--timeout-graceful-shutdown", "5",
            # a web process starting on a loaded machine answers uvicorn's first health checks late:
            # after the default 5 s it was killed, and its replacement too, and the studio never answered
            "--timeout-worker-healthcheck", str(WEB_HEALTHCHECK_TIMEOUT_S)]


def _start_web(host: str, port: int) -> subprocess.Popen:
    return subprocess.Popen(web_server_command(host, port), cwd=ROOT, start_new_session=True)


def _wait_for_http(url: str, children: list[subprocess.Popen], stopping: threading.Event,
                   timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not stopping.is_set():
        if any(child.poll() is not None for child in children):
            raise RuntimeError("a studio process exited during start-up")
        try:
            with urllib.request.urlopen(url + "api/health", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    if not stopping.is_set():
        raise RuntimeError(f"the studio did not answer at {url} within {timeout}s")


def _stop_tree() -> None:
    """Terminate every descendant (worker, web, drivers, their JVMs), then kill stragglers."""
    descendants = psutil.Process().children(recursive=True)
    for process in descendants:
        _signal(process, signal.SIGTERM)
    _, alive = psutil.wait_procs(descendants, timeout=SHUTDOWN_GRACE_SECONDS)
    for process in alive:
        _signal(process, signal.SIGKILL)
    psutil.wait_procs(alive, timeout=5)


def _signal(process: psutil.Process, signum: int) -> None:
    try:
        process.send_signal(signum)
    except psutil.NoSuchProcess:
        pass


if __name__ == "__main__":
    sys.exit(main())
