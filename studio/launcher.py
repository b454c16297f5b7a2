"""``make up``: run the whole studio on one machine with embedded defaults.

Starts, in order: Redis (embedded when ``REDIS_URL`` is not set), the database
migrations, a Celery worker, and the ASGI server (daphne: HTTP + WebSocket). Runs then
start their own Spark drivers (``local[N]`` unless ``SPARK_MASTER`` is set). Ctrl-C or
SIGTERM stops everything this launcher started, drivers and their JVMs included, so no
process outlives it.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
SHUTDOWN_GRACE_SECONDS = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("STUDIO_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("STUDIO_PORT", "8000")))
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    from studio.embedded_redis import ensure_redis_url

    redis_url = ensure_redis_url()
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    children: list[subprocess.Popen] = []
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
        subprocess.run([sys.executable, "manage.py", "recover_runs"], cwd=ROOT, check=True)
        login = subprocess.run([sys.executable, "manage.py", "ensure_admin"], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
        children.append(_start_worker())
        children.append(_start_web(args.host, args.port))
        url = f"http://{args.host}:{args.port}/"
        _wait_for_http(url, children, stopping)
        print(f"\n  Pipeline studio is running at {url}\n  {login}\n"
              f"  (Redis {redis_url}; Ctrl-C stops everything)\n", flush=True)
        while not stopping.is_set():
            for child in children:
                if child.poll() is not None:
                    print(f"{child.args[2]} exited with code {child.returncode}; stopping", file=sys.stderr)
                    stopping.set()
            stopping.wait(0.5)
    finally:
        _stop_tree()
    return 0


def _start_worker() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "studio", "worker", "--pool", "threads", "--concurrency", "8",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle"],
        cwd=ROOT, start_new_session=True)


def _start_web(host: str, port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "daphne", "-b", host, "-p", str(port), "studio.asgi:application"],
                            cwd=ROOT, start_new_session=True)


def _wait_for_http(url: str, children: list[subprocess.Popen], stopping: threading.Event,
                   timeout: float = 60) -> None:
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
