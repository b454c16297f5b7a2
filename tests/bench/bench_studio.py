"""Benchmark of the studio's live path and its checkpoint history endpoint.

Run with ``make bench-studio`` (``.venv/bin/python tests/bench/bench_studio.py``). It
starts what ``make up`` starts for these paths, in a fresh data directory: the embedded
Redis (channel layer), SQLite, and daphne serving HTTP and WebSockets on a loopback port.

WebSocket latency
    A client (aiohttp, in this process) follows ``ws/runs/<id>/`` over TCP with an API
    token. A publisher process, standing in for a run's driver, publishes 1,000
    checkpoint-completed events exactly as the driver does (``record_event``: store, apply
    to the checkpoint row, fan out through Redis), one every ``EVENT_GAP_S``; each event
    carries the publisher's ``time.perf_counter()`` from just before the call. Latency is
    from that moment to the client having the parsed message; ``perf_counter`` is
    CLOCK_MONOTONIC, one clock for all processes of the machine. Figures: p50 / p99 / max.

REST latency
    A run with 1,000 stored checkpoints (4 subtasks each, the per-subtask statistics
    included). ``GET /api/runs/<id>/checkpoints`` (counts and summary over all 1,000,
    latest, history page of 100) is requested ``REST_REQUESTS`` times over one keep-alive
    HTTP connection with token auth, after ``REST_WARMUP`` unmeasured requests; figures:
    p50 / p99 wall time per request as the client sees it. The whole history
    (``?limit=1000``) is measured the same way for context.

Targets (loopback, this 2-core shared machine): ws_p99_ms ≤ 50, rest_p99_ms ≤ 100. The
last line is one JSON object; the exit status is 1 when a target is missed.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVENTS = 1000
EVENT_GAP_S = 0.005
CHECKPOINTS = 1000
SUBTASKS = 4
REST_WARMUP = 20
REST_REQUESTS = 300
TARGET_WS_P99_MS = 50
TARGET_REST_P99_MS = 100


def percentile(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(percent / 100 * len(ordered) + 0.5) - 1))]


def setup_django(data_dir: str):
    os.environ["STUDIO_DATA_DIR"] = data_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    os.environ["DJANGO_DEBUG"] = "0"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed() -> dict:
    from django.contrib.auth import get_user_model

    from studio.models import ApiToken, Checkpoint, Pipeline, PipelineVersion, Run
    from studio.realtime.events import set_status
    from tests.support import simple_pipeline

    user = get_user_model().objects.create_user("bench", password="bench")
    _, key = ApiToken.issue(user, "bench")
    pipeline = Pipeline.objects.create(name="bench", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline(parallelism=4))
    history_run = Run.objects.create(pipeline=pipeline, version=version)
    live_run = Run.objects.create(pipeline=pipeline, version=version)
    for run in (history_run, live_run):
        for status in ("CREATED", "SCHEDULING", "RUNNING"):
            set_status(run.id, status)
    rows = []
    for checkpoint_id in range(1, CHECKPOINTS + 1):
        trigger = 1_700_000_000_000 + checkpoint_id * 1000
        subtasks = [{"task": f"v1#{i}", "vertex": "v1", "index": i, "status": "completed",
                     "ack_timestamp": trigger + 40 + i, "end_to_end_duration": 40 + i, "start_delay": 1.0 + i,
                     "alignment_duration": 2.0 * i, "sync_duration": 0.4, "async_duration": 5.0,
                     "state_size": 4096, "processed_data": 0, "persisted_data": 0} for i in range(SUBTASKS)]
        rows.append(Checkpoint(run=history_run, checkpoint_id=checkpoint_id, status="COMPLETED",
                               trigger_timestamp=trigger, latest_ack_timestamp=trigger + 43,
                               end_to_end_duration=40 + checkpoint_id % 17, alignment_duration=6.0,
                               state_size=SUBTASKS * 4096, num_acknowledged_subtasks=SUBTASKS,
                               num_subtasks=SUBTASKS, external_path=f"/data/run-1/chk-{checkpoint_id}",
                               subtasks=subtasks))
    Checkpoint.objects.bulk_create(rows)
    return {"key": key, "history_run": history_run.id, "live_run": live_run.id}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_daphne(port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                               "studio.asgi:application"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/api/health")
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("daphne did not answer within 60 s")


def measure_rest(port: int, key: str, path: str) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {key}", "Accept": "application/json"}
    timings = []
    for number in range(REST_WARMUP + REST_REQUESTS):
        started = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {response.status} {body[:200]!r}")
        if number >= REST_WARMUP:
            timings.append(elapsed)
    payload = json.loads(body)
    assert payload["counts"]["completed"] == CHECKPOINTS, payload["counts"]
    return timings


def publish(run_id: int) -> None:
    """The publisher process: ``record_event`` as the driver's event sink calls it, EVENTS times."""
    from studio.realtime.events import record_event

    for number in range(EVENTS):
        checkpoint_id = number + 1
        data = {"event": "completed", "id": checkpoint_id, "kind": "checkpoint", "bench": number,
                "trigger_timestamp": 1_700_000_000_000 + number, "end_to_end_duration": 40, "state_size": 16384,
                "num_acknowledged_subtasks": SUBTASKS, "num_subtasks": SUBTASKS,
                "external_path": f"/data/run-2/chk-{checkpoint_id}", "subtasks": []}
        data["sent_at"] = time.perf_counter()
        record_event(run_id, "checkpoint", data)
        time.sleep(EVENT_GAP_S)


async def measure_websocket(port: int, key: str, run_id: int) -> list[float]:
    import aiohttp

    from studio.models import RunEvent

    last = await asyncio.to_thread(lambda: RunEvent.objects.filter(run_id=run_id).order_by("-seq").first().seq)
    latencies: list[float] = []
    url = f"ws://127.0.0.1:{port}/ws/runs/{run_id}/?after={last}"
    headers = {"Authorization": f"Token {key}", "Origin": f"http://127.0.0.1:{port}"}
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url, headers=headers, max_msg_size=0) as socket_:
            publisher = subprocess.Popen([sys.executable, __file__, "--publish", str(run_id)], cwd=ROOT,
                                         env={**os.environ, "PYTHONPATH": str(ROOT)})
            try:
                while len(latencies) < EVENTS:
                    message = await asyncio.wait_for(socket_.receive(), timeout=60)
                    received = time.perf_counter()
                    event = json.loads(message.data)
                    if "sent_at" in event["data"]:
                        latencies.append((received - event["data"]["sent_at"]) * 1000)
            finally:
                publisher.wait(60)
    return latencies


def main() -> int:
    data_dir = tempfile.mkdtemp(prefix="bench-studio-")
    setup_django(data_dir)
    seeded = seed()
    port = free_port()
    server = start_daphne(port)
    try:
        rest = measure_rest(port, seeded["key"], f"/api/runs/{seeded['history_run']}/checkpoints")
        full = measure_rest(port, seeded["key"], f"/api/runs/{seeded['history_run']}/checkpoints?limit=1000")
        ws = asyncio.run(measure_websocket(port, seeded["key"], seeded["live_run"]))
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(data_dir, ignore_errors=True)
    figures = {
        "ws_p50_ms": round(percentile(ws, 50), 2), "ws_p99_ms": round(percentile(ws, 99), 2),
        "ws_max_ms": round(max(ws), 2), "ws_events": len(ws),
        "rest_p50_ms": round(percentile(rest, 50), 2), "rest_p99_ms": round(percentile(rest, 99), 2),
        "rest_full_history_p50_ms": round(percentile(full, 50), 2),
        "rest_full_history_p99_ms": round(percentile(full, 99), 2),
        "rest_requests": len(rest), "checkpoints_stored": CHECKPOINTS,
    }
    print(f"WebSocket: checkpoint-completed event, driver publish → client, {len(ws)} events: "
          f"p50 {figures['ws_p50_ms']} ms, p99 {figures['ws_p99_ms']} ms, max {figures['ws_max_ms']} ms "
          f"(mean {statistics.mean(ws):.2f} ms)")
    print(f"REST: GET checkpoints with {CHECKPOINTS} stored (history page of 100), {len(rest)} requests: "
          f"p50 {figures['rest_p50_ms']} ms, p99 {figures['rest_p99_ms']} ms")
    print(f"REST: the same with the whole history (?limit=1000): p50 {figures['rest_full_history_p50_ms']} ms, "
          f"p99 {figures['rest_full_history_p99_ms']} ms")
    misses = [f"{name} {figures[name]} > {target}" for name, target in
              (("ws_p99_ms", TARGET_WS_P99_MS), ("rest_p99_ms", TARGET_REST_P99_MS)) if figures[name] > target]
    for miss in misses:
        print(f"target missed: {miss}")
    print(json.dumps(figures))
    return 1 if misses else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--publish":
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        import django

        django.setup()
        publish(int(sys.argv[2]))
        sys.exit(0)
    sys.exit(main())
