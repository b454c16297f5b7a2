"""Benchmark of the studio's live path and its checkpoint history endpoint.

Run with ``make bench-studio`` (``.venv/bin/python tests/bench/bench_studio.py``). It
starts what ``make up`` starts for these paths, in a fresh data directory: the embedded
Redis (channel layer), SQLite, and the ASGI server (``studio.processes.supervisor.web_server_command``:
uvicorn with its worker processes) serving HTTP and WebSockets on a loopback port.

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

Revocation
    ``LOAD_SOCKETS`` sockets follow a run on one API token; the token is deleted over REST.
    Figures: p50 / max from sending the DELETE to each socket having its close (4403).

Load
    What a busy studio sees: ``LOAD_SOCKETS`` WebSockets follow a third, live run while a
    publisher process records ``LOAD_EVENT_RATE`` events a second on it, and a load process
    sends ``LOAD_RATE`` GETs a second for ``LOAD_SECONDS`` (open loop: each request leaves
    at its planned moment whatever the answers before it did, over a pool of keep-alive
    connections), cycling through the run, its checkpoints and the run list. Figures:
    p50 / p99 of the answered (200) GETs, how many were shed (503 with Retry-After), how
    many timed out (no answer within ``LOAD_TIMEOUT_S``) or failed otherwise, and how many
    of the stored events each socket never received (``load_ws_missing_events``, summed
    over the sockets; 0 means every socket got every event, in order).

Start and cancel
    A separate phase (``tests/bench/bench_run_start.py``): the whole studio with real drivers on
    local Spark, each taking the worker's warm driver; ``click_to_running_s`` (target 3 s),
    ``cancel_s`` and ``cancel_scheduling_s`` (2 s each), and ``cold_start_s`` for context.

Live tap
    A driver stand-in process runs an endless datagen → map → collect job (in-process
    slots: the same task, tap and JobMaster code as on Spark, without the control
    channel's loopback hop) and follows the run's Redis command list with the runner's own
    command handling (``studio.runs.driver``). A client opens a tap on the job's first edge over
    REST and follows its WebSocket; the tap's samples travel as in production: tap point →
    tap sender → JobMaster → tap delivery → Redis → web worker → socket. Latency is from the
    moment a sample's records passed the tap point on the edge (their ``ts``, epoch ms, the
    machine's one wall clock) to the client having the parsed message, over ``TAP_SAMPLES``
    samples. Figures: ``tap_p50_ms``, ``tap_p99_ms``, ``tap_max_ms``, ``tap_records``.

Socket leak
    ``LEAK_SOCKETS`` sockets follow a run in uvicorn served from a thread of the bench process
    (the same application and server options as ``make up``, so that its event loop can be
    looked into); each client vanishes with a TCP reset while the server sends it a catch-up
    of events it missed (``tests.socket_leak``). Figures: the tasks still alive in the
    server's loop beyond those of the idle server, and the members left in the run's
    channel-layer group, once the server saw every socket go
    (``ws_tasks_alive_after_abnormal_closes``, ``ws_group_members_after_abnormal_closes``).

Targets (loopback, this 2-core shared machine): ws_p99_ms ≤ 50, rest_p99_ms ≤ 100,
revocation_close_max_ms ≤ 1000, load_rest_p99_ms ≤ 200, load_timeouts 0, load_ws_missing_events 0,
tap_p99_ms ≤ 100, click_to_running_s ≤ 3, cancel_s ≤ 2, cancel_scheduling_s ≤ 2, and 0 tasks and 0 group
members left after the abnormal closes. The last line is one
JSON object; the exit status is 1 when a target is missed.
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.smoke import SMOKE, sized  # noqa: E402

EVENTS = sized(1000, 20)
EVENT_GAP_S = 0.005
CHECKPOINTS = sized(1000, 20)
SUBTASKS = 4
REST_WARMUP = sized(20, 2)
REST_REQUESTS = sized(300, 10)
TARGET_WS_P99_MS = 50
TARGET_REST_P99_MS = 100
LOAD_RATE = sized(200, 20)
LOAD_SECONDS = sized(30, 1)
LOAD_SOCKETS = sized(20, 2)
LOAD_EVENT_RATE = 15
LOAD_CONNECTIONS = 64
LOAD_TIMEOUT_S = 30
TARGET_LOAD_REST_P99_MS = 200
TARGET_REVOCATION_MS = 1000
TAP_SAMPLES = sized(300, 5)
TARGET_TAP_P99_MS = 100
TARGET_CLICK_TO_RUNNING_S = 3
TARGET_CANCEL_S = 2
LEAK_SOCKETS = sized(50, 3)


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
    from studio.runs.events import set_status
    from tests.support import simple_pipeline

    user = get_user_model().objects.create_user("bench", password="bench")
    _, key = ApiToken.issue(user, "bench")
    revoked_token, revoked_key = ApiToken.issue(user, "revoked")
    pipeline = Pipeline.objects.create(name="bench", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline(parallelism=4))
    history_run = Run.objects.create(pipeline=pipeline, version=version)
    live_run = Run.objects.create(pipeline=pipeline, version=version)
    load_run = Run.objects.create(pipeline=pipeline, version=version)
    tapped = PipelineVersion.objects.create(pipeline=pipeline, number=2, definition=simple_pipeline(
        count=None, rate=2000, interval_ms=1000, name="tapped"))
    tap_run = Run.objects.create(pipeline=pipeline, version=tapped)
    leak_run = Run.objects.create(pipeline=pipeline, version=version)
    for run in (history_run, live_run, load_run, tap_run, leak_run):
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
    return {"key": key, "history_run": history_run.id, "live_run": live_run.id, "load_run": load_run.id,
            "tap_run": tap_run.id, "leak_run": leak_run.id,
            "pipeline": pipeline.id, "revoked_token": revoked_token.id, "revoked_key": revoked_key}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_web_server(port: int) -> subprocess.Popen:
    """The ASGI server exactly as ``make up`` starts it (``studio.processes.supervisor``)."""
    from studio.processes.supervisor import web_server_command

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(web_server_command("127.0.0.1", port), cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120  # a busy machine starts a dozen worker processes slowly
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/api/health")
            if connection.getresponse().status == 200:
                wait_until_settled(server)
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the web server did not answer within 120 s")


def wait_until_settled(server: subprocess.Popen, timeout: float = sized(60, 0)) -> None:
    """Wait until the server's start-up is over: it answers health before its worker processes
    (``studio.processes.budget``'s pools, a dozen on this machine) have imported the engine, seconds of
    CPU that would otherwise land in the first measurements. Settled: the server's processes
    used under a tenth of a core over half a second."""
    import psutil

    def cpu_seconds() -> float:
        total = 0.0
        root = psutil.Process(server.pid)
        for process in [root, *root.children(recursive=True)]:
            try:
                times = process.cpu_times()
                total += times.user + times.system
            except psutil.NoSuchProcess:
                pass
        return total

    deadline = time.monotonic() + timeout
    before = cpu_seconds()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = cpu_seconds()
        if now - before < 0.05:
            return
        before = now


def measure_rest(port: int, key: str, path: str) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Token {key}", "Accept": "application/json"}
    timings = []
    for number in range(REST_WARMUP + REST_REQUESTS):
        while True:
            started = time.perf_counter()
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            elapsed = (time.perf_counter() - started) * 1000
            if response.status != 503 or not SMOKE:
                break
            time.sleep(float(response.getheader("Retry-After") or 1))  # shed on a busy machine: a smoke run
            # checks the path, not the time
        if response.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {response.status} {body[:200]!r}")
        if number >= REST_WARMUP:
            timings.append(elapsed)
    payload = json.loads(body)
    assert payload["counts"]["completed"] == CHECKPOINTS, payload["counts"]
    return timings


def publish(run_id: int) -> None:
    """The publisher process: ``record_event`` as the driver's event sink calls it, EVENTS times."""
    from studio.runs.events import record_event

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


def publish_load(run_id: int) -> None:
    """The load phase's publisher: ``LOAD_EVENT_RATE`` checkpoint events a second for ``LOAD_SECONDS``."""
    from studio.runs.events import record_event

    started = time.monotonic()
    for number in range(LOAD_EVENT_RATE * LOAD_SECONDS):
        time.sleep(max(0.0, started + number / LOAD_EVENT_RATE - time.monotonic()))
        event = "triggered" if number % 2 == 0 else "completed"
        record_event(run_id, "checkpoint", {"event": event, "id": number // 2 + 1, "kind": "checkpoint",
                                            "trigger_timestamp": 1_700_000_000_000 + number, "num_subtasks": 4,
                                            "num_acknowledged_subtasks": 4 if event == "completed" else 0})


async def generate_load(port: int, key: str, paths: list[str]) -> dict:
    """Open-loop GETs: request ``i`` is due at ``i / LOAD_RATE`` s; latency counts from when it was due."""
    import aiohttp

    headers = {"Authorization": f"Token {key}", "Accept": "application/json"}
    latencies: list[float] = []
    outcomes = {"ok": 0, "shed": 0, "shed_without_retry_after": 0, "timeouts": 0, "errors": 0}
    timeout = aiohttp.ClientTimeout(total=LOAD_TIMEOUT_S)
    connector = aiohttp.TCPConnector(limit=LOAD_CONNECTIONS)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, headers=headers) as session:
        async def one(due: float, path: str) -> None:
            try:
                async with session.get(f"http://127.0.0.1:{port}{path}") as response:
                    await response.read()
                    elapsed = (time.perf_counter() - due) * 1000
                    if response.status == 200:
                        outcomes["ok"] += 1
                        latencies.append(elapsed)
                    elif response.status == 503:
                        outcomes["shed"] += 1
                        outcomes["shed_without_retry_after"] += "Retry-After" not in response.headers
                    else:
                        outcomes["errors"] += 1
            except asyncio.TimeoutError:
                outcomes["timeouts"] += 1
            except aiohttp.ClientError:
                outcomes["errors"] += 1

        started = time.perf_counter() + 0.1
        tasks = []
        for number in range(LOAD_RATE * LOAD_SECONDS):
            due = started + number / LOAD_RATE
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            tasks.append(asyncio.create_task(one(due, paths[number % len(paths)])))
        await asyncio.gather(*tasks)
    return {"latencies": latencies, **outcomes}


async def measure_revocation(port: int, key: str, revoked_token: int, revoked_key: str, run_id: int) -> list[float]:
    """``LOAD_SOCKETS`` sockets on one token; the token is deleted over REST: ms until each socket closed."""
    import aiohttp

    headers = {"Authorization": f"Token {revoked_key}", "Origin": f"http://127.0.0.1:{port}"}
    async with aiohttp.ClientSession() as session:
        sockets = [await session.ws_connect(f"ws://127.0.0.1:{port}/ws/runs/{run_id}/", headers=headers)
                   for _ in range(LOAD_SOCKETS)]

        async def closed_at(socket_) -> float:
            while (await socket_.receive()).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                pass
            return time.perf_counter()

        waiting = [asyncio.create_task(closed_at(socket_)) for socket_ in sockets]
        await asyncio.sleep(0.5)  # every socket has its stored events and listens
        started = time.perf_counter()
        async with session.delete(f"http://127.0.0.1:{port}/api/auth/tokens/{revoked_token}",
                                  headers={"Authorization": f"Token {key}"}) as response:
            assert response.status == 204, response.status
        closes = await asyncio.wait_for(asyncio.gather(*waiting), timeout=30)
        assert all(socket_.close_code == 4403 for socket_ in sockets), [s.close_code for s in sockets]
    return [(moment - started) * 1000 for moment in closes]


async def follow_run(port: int, key: str, run_id: int, after: int, done: asyncio.Event, seqs: list[int]) -> int:
    """One socket of the load phase: record every seq received; reconnect with ``after=`` when closed.

    Returns how often the server closed the socket.
    """
    import aiohttp

    headers = {"Authorization": f"Token {key}", "Origin": f"http://127.0.0.1:{port}"}
    closes = 0
    async with aiohttp.ClientSession() as session:
        while not done.is_set():
            last = seqs[-1] if seqs else after
            url = f"ws://127.0.0.1:{port}/ws/runs/{run_id}/?after={last}"
            try:
                async with session.ws_connect(url, headers=headers, max_msg_size=0, heartbeat=None) as socket_:
                    while not done.is_set():
                        try:
                            message = await asyncio.wait_for(socket_.receive(), timeout=0.5)
                        except asyncio.TimeoutError:
                            continue
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        seq = json.loads(message.data).get("seq")
                        if seq is not None:
                            seqs.append(seq)
            except aiohttp.ClientError:
                pass
            if not done.is_set():
                closes += 1
                await asyncio.sleep(0.2)
    return closes


async def measure_load(port: int, key: str, run_id: int, pipeline_id: int) -> dict:
    """20 sockets on a live run, a publisher on it, and the GET load in its own process, all at once."""
    from studio.models import RunEvent

    first = await asyncio.to_thread(lambda: RunEvent.objects.filter(run_id=run_id).order_by("-seq").first().seq)
    done = asyncio.Event()
    received: list[list[int]] = [[] for _ in range(LOAD_SOCKETS)]
    followers = [asyncio.create_task(follow_run(port, key, run_id, first, done, seqs)) for seqs in received]
    await asyncio.sleep(1)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    paths = json.dumps([f"/api/runs/{run_id}", f"/api/runs/{run_id}/checkpoints", f"/api/runs?pipeline={pipeline_id}"])
    load = await asyncio.create_subprocess_exec(sys.executable, __file__, "--load", str(port), key, paths, cwd=ROOT,
                                                env=env, stdout=subprocess.PIPE)
    publisher = await asyncio.create_subprocess_exec(sys.executable, __file__, "--publish-load", str(run_id),
                                                     cwd=ROOT, env=env)
    output, _ = await load.communicate()
    await publisher.wait()
    stored = await asyncio.to_thread(lambda: set(
        RunEvent.objects.filter(run_id=run_id, seq__gt=first).values_list("seq", flat=True)))
    deadline = time.monotonic() + 30  # the sockets' last events may still be on their way
    while time.monotonic() < deadline and any(not stored <= set(seqs) for seqs in received):
        await asyncio.sleep(0.2)
    done.set()
    closes = await asyncio.gather(*followers)
    result = json.loads(output)
    result["ws_missing_events"] = sum(len(stored - set(seqs)) for seqs in received)
    result["ws_out_of_order"] = sum(seqs != sorted(set(seqs)) for seqs in received)
    result["ws_closes"] = sum(closes)
    result["events_published"] = len(stored)
    return result


def drive_tapped_run(run_id: int) -> None:
    """The live tap's driver stand-in: run the job, follow the run's commands as ``studio.runs.driver`` does."""
    from engine.api import InProcess, submit
    from studio.models import Run
    from studio.runs.command_follower import command_follower
    from studio.runs.commands import command_key
    from studio.runs.driver import SavepointReporter, _execute

    run = Run.objects.select_related("version").get(pk=run_id)
    handle = submit(run.version.definition, InProcess(), checkpoint_dir=tempfile.mkdtemp(prefix="bench-tap-"))
    savepoints, key = SavepointReporter(run_id), command_key(run)
    command_follower().add(run_id, key, lambda command: _execute(command, run_id, handle, savepoints))
    sys.stdin.read()  # until the bench closes our stdin
    command_follower().remove(key)
    handle.cancel()
    handle.wait(60)


async def measure_tap(port: int, key: str, run_id: int) -> tuple[list[float], int]:
    import aiohttp

    headers = {"Authorization": f"Token {key}", "Origin": f"http://127.0.0.1:{port}"}
    driver = subprocess.Popen([sys.executable, __file__, "--drive-tapped", str(run_id)], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE)
    latencies: list[float] = []
    records = 0
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(f"http://127.0.0.1:{port}/api/runs/{run_id}/taps", headers=headers,
                                    json={"edge": "e1", "records_per_second": 200}) as response:
                tap = await response.json()
                if response.status != 201:
                    raise RuntimeError(f"POST taps: HTTP {response.status} {tap}")
            async with session.ws_connect(f"ws://127.0.0.1:{port}{tap['websocket']}", headers=headers) as socket_:
                while len(latencies) < TAP_SAMPLES:
                    message = await asyncio.wait_for(socket_.receive(), timeout=120)
                    received = time.time() * 1000
                    sample = json.loads(message.data)
                    if sample["type"] == "records":
                        latencies.append(received - sample["ts"])
                        records += len(sample["records"])
    finally:
        driver.stdin.close()
        driver.wait(90)
    return latencies, records


def measure_socket_leak(key: str, run_id: int) -> dict:
    """``LEAK_SOCKETS`` sockets vanish while the server sends to them: what they left behind."""
    from studio.asgi import application
    from tests.socket_leak import vanish_while_sending
    from tests.support import ThreadedAsgiServer

    with ThreadedAsgiServer(application) as server:
        tasks, members = vanish_while_sending(server, run_id, key, LEAK_SOCKETS)
    return {"ws_abnormal_closes": LEAK_SOCKETS, "ws_tasks_alive_after_abnormal_closes": tasks,
            "ws_group_members_after_abnormal_closes": members}


def main_leak_only() -> int:
    """``bench_studio.py --leak``: only the socket leak phase."""
    data_dir = tempfile.mkdtemp(prefix="bench-studio-")
    setup_django(data_dir)
    seeded = seed()
    try:
        figures = measure_socket_leak(seeded["key"], seeded["leak_run"])
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(json.dumps(figures))
    return 1 if figures["ws_tasks_alive_after_abnormal_closes"] or figures["ws_group_members_after_abnormal_closes"] \
        else 0


def main_tap_only() -> int:
    """``bench_studio.py --tap``: only the live tap phase (it needs no Spark, and runs in a minute)."""
    data_dir = tempfile.mkdtemp(prefix="bench-studio-")
    setup_django(data_dir)
    seeded = seed()
    port = free_port()
    server = start_web_server(port)
    try:
        tap, tap_records = asyncio.run(measure_tap(port, seeded["key"], seeded["tap_run"]))
    finally:
        server.terminate()
        server.wait(10)
    try:
        leak = measure_socket_leak(seeded["key"], seeded["leak_run"])
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    figures = {"tap_p50_ms": round(percentile(tap, 50), 2), "tap_p99_ms": round(percentile(tap, 99), 2),
               "tap_max_ms": round(max(tap), 2), "tap_samples": len(tap), "tap_records": tap_records}
    print(json.dumps(figures))
    return 1 if figures["tap_p99_ms"] > TARGET_TAP_P99_MS else 0


def main_load_only() -> int:
    """``bench_studio.py --load-only``: only the load phase, for comparing server settings
    (``STUDIO_MAX_REQUESTS_IN_FLIGHT``, ``STUDIO_WEB_WORKERS``) in a minute."""
    data_dir = tempfile.mkdtemp(prefix="bench-studio-")
    setup_django(data_dir)
    seeded = seed()
    port = free_port()
    server = start_web_server(port)
    try:
        load = asyncio.run(measure_load(port, seeded["key"], seeded["load_run"], seeded["pipeline"]))
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(data_dir, ignore_errors=True)
    figures = load_figures(load)
    print(json.dumps(figures))
    return 1 if figures["load_rest_p99_ms"] > TARGET_LOAD_REST_P99_MS or figures["load_timeouts"] else 0


def load_figures(load: dict) -> dict:
    answered = load["latencies"]
    return {"load_rest_p50_ms": round(percentile(answered, 50), 2) if answered else None,
            "load_rest_p99_ms": round(percentile(answered, 99), 2) if answered else None,
            "load_requests": LOAD_RATE * LOAD_SECONDS, "load_ok": load["ok"], "load_shed": load["shed"],
            "load_shed_without_retry_after": load["shed_without_retry_after"], "load_timeouts": load["timeouts"],
            "load_errors": load["errors"], "load_ws_sockets": LOAD_SOCKETS, "load_ws_events": load["events_published"],
            "load_ws_missing_events": load["ws_missing_events"], "load_ws_out_of_order": load["ws_out_of_order"]}


def main() -> int:
    data_dir = tempfile.mkdtemp(prefix="bench-studio-")
    setup_django(data_dir)
    seeded = seed()
    port = free_port()
    server = start_web_server(port)
    try:
        rest = measure_rest(port, seeded["key"], f"/api/runs/{seeded['history_run']}/checkpoints")
        full = measure_rest(port, seeded["key"], f"/api/runs/{seeded['history_run']}/checkpoints?limit=1000")
        ws = asyncio.run(measure_websocket(port, seeded["key"], seeded["live_run"]))
        revocation = asyncio.run(measure_revocation(port, seeded["key"], seeded["revoked_token"],
                                                    seeded["revoked_key"], seeded["live_run"]))
        load = asyncio.run(measure_load(port, seeded["key"], seeded["load_run"], seeded["pipeline"]))
        tap, tap_records = asyncio.run(measure_tap(port, seeded["key"], seeded["tap_run"]))
    finally:
        server.terminate()
        server.wait(10)
    try:
        leak = measure_socket_leak(seeded["key"], seeded["leak_run"])
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    figures = {
        "ws_p50_ms": round(percentile(ws, 50), 2), "ws_p99_ms": round(percentile(ws, 99), 2),
        "ws_max_ms": round(max(ws), 2), "ws_events": len(ws),
        "rest_p50_ms": round(percentile(rest, 50), 2), "rest_p99_ms": round(percentile(rest, 99), 2),
        "rest_full_history_p50_ms": round(percentile(full, 50), 2),
        "rest_full_history_p99_ms": round(percentile(full, 99), 2),
        "rest_requests": len(rest), "checkpoints_stored": CHECKPOINTS,
        "revocation_close_p50_ms": round(percentile(revocation, 50), 2),
        "revocation_close_max_ms": round(max(revocation), 2),
        **load_figures(load),
        "load_ws_reconnects": load["ws_closes"],
        "tap_p50_ms": round(percentile(tap, 50), 2), "tap_p99_ms": round(percentile(tap, 99), 2),
        "tap_max_ms": round(max(tap), 2), "tap_samples": len(tap), "tap_records": tap_records,
        **leak,
    }
    print(f"WebSocket: checkpoint-completed event, driver publish → client, {len(ws)} events: "
          f"p50 {figures['ws_p50_ms']} ms, p99 {figures['ws_p99_ms']} ms, max {figures['ws_max_ms']} ms "
          f"(mean {statistics.mean(ws):.2f} ms)")
    print(f"REST: GET checkpoints with {CHECKPOINTS} stored (history page of 100), {len(rest)} requests: "
          f"p50 {figures['rest_p50_ms']} ms, p99 {figures['rest_p99_ms']} ms")
    print(f"REST: the same with the whole history (?limit=1000): p50 {figures['rest_full_history_p50_ms']} ms, "
          f"p99 {figures['rest_full_history_p99_ms']} ms")
    print(f"Revocation: token deleted over REST with {LOAD_SOCKETS} sockets open on it: closed (4403) after "
          f"p50 {figures['revocation_close_p50_ms']} ms, max {figures['revocation_close_max_ms']} ms")
    print(f"Load: {LOAD_RATE} GET/s for {LOAD_SECONDS} s, {LOAD_SOCKETS} sockets on a run publishing "
          f"{LOAD_EVENT_RATE} events/s: {figures['load_ok']} answered (p50 {figures['load_rest_p50_ms']} ms, "
          f"p99 {figures['load_rest_p99_ms']} ms), {figures['load_shed']} shed with 503, "
          f"{figures['load_timeouts']} timed out, {figures['load_errors']} other errors; sockets missed "
          f"{figures['load_ws_missing_events']} of {LOAD_SOCKETS} x {figures['load_ws_events']} events "
          f"({figures['load_ws_reconnects']} reconnects)")
    print(f"Live tap: record on the edge → client, {len(tap)} samples ({tap_records} records): "
          f"p50 {figures['tap_p50_ms']} ms, p99 {figures['tap_p99_ms']} ms, max {figures['tap_max_ms']} ms")
    print(f"Socket leak: {LEAK_SOCKETS} sockets reset by their clients while the server sent to them: "
          f"{figures['ws_tasks_alive_after_abnormal_closes']} tasks and "
          f"{figures['ws_group_members_after_abnormal_closes']} group members left")
    targets = (("ws_p99_ms", TARGET_WS_P99_MS), ("tap_p99_ms", TARGET_TAP_P99_MS), ("rest_p99_ms", TARGET_REST_P99_MS),
               ("revocation_close_max_ms", TARGET_REVOCATION_MS),
               ("load_rest_p99_ms", TARGET_LOAD_REST_P99_MS), ("load_timeouts", 0), ("load_ws_missing_events", 0),
               ("load_ws_out_of_order", 0), ("ws_tasks_alive_after_abnormal_closes", 0),
               ("ws_group_members_after_abnormal_closes", 0))
    # A separate phase with the whole studio and real Spark drivers (tests/bench/bench_run_start.py)
    from tests.bench.bench_run_start import measure as measure_start_and_cancel

    start = measure_start_and_cancel()
    figures.update(start)
    print(f"Start and cancel (warm drivers on local Spark, median of {start['start_cancel_rounds']}): click to "
          f"RUNNING {start['click_to_running_s']} s (max {start['click_to_running_max_s']} s, target 3 s), cancel "
          f"{start['cancel_s']} s (max {start['cancel_max_s']} s, target 2 s; {start['cancel_stuck']} stuck), cancel "
          f"while scheduling {start['cancel_scheduling_s']} s (target 2 s; {start['cancel_scheduling_stuck']} stuck "
          f"past 60 s); a cold start (no warm driver ready yet) {start['cold_start_s']} s")
    targets += (("click_to_running_s", TARGET_CLICK_TO_RUNNING_S), ("cancel_s", TARGET_CANCEL_S),
                ("cancel_scheduling_s", TARGET_CANCEL_S), ("cancel_stuck", 0), ("cancel_scheduling_stuck", 0))
    misses = [f"{name} {figures[name]} > {target}" for name, target in targets
              if figures[name] is None or figures[name] > target]
    for miss in misses:
        print(f"target missed: {miss}")
    print(json.dumps(figures))
    return 1 if misses and not SMOKE else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--publish":
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        import django

        django.setup()
        publish(int(sys.argv[2]))
        sys.exit(0)
    if sys.argv[1:] == ["--load-only"]:
        sys.exit(main_load_only())
    if sys.argv[1:] == ["--tap"]:
        sys.exit(main_tap_only())
    if sys.argv[1:] == ["--leak"]:
        sys.exit(main_leak_only())
    if len(sys.argv) == 3 and sys.argv[1] == "--drive-tapped":
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        import django

        django.setup()
        drive_tapped_run(int(sys.argv[2]))
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == "--publish-load":
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
        import django

        django.setup()
        publish_load(int(sys.argv[2]))
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == "--load":
        print(json.dumps(asyncio.run(generate_load(int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])))))
        sys.exit(0)
    sys.exit(main())
