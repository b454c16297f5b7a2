"""Helpers shared by tests: small pipeline definitions, authenticated clients, polling."""
from __future__ import annotations

import contextlib
import socket
import subprocess
import tempfile
from collections import Counter


def simple_pipeline(count: int | None = 100, expression: str = "x * 2", *, parallelism: int = 1,
                    interval_ms: int = 200, rate: float = 0, name: str = "doubler") -> dict:
    """datagen -> map -> collect: the walking skeleton's pipeline."""
    return {
        "format": 1, "name": name, "mode": "streaming", "parallelism": parallelism,
        "checkpointing": {"interval_ms": interval_ms},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": rate}},
            {"id": "double", "type": "transform.map", "params": {"expression": expression}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 1000}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e2", "from": "double", "to": "out"}],
    }


def assert_exactly_once(found: Counter, expected: Counter, context: str = "") -> None:
    """Every expected item (a line, a record) found once: none lost, none doubled."""
    missing, doubled = expected - found, found - expected
    assert not missing and not doubled, (f"{context}{': ' if context else ''}{sum(missing.values())} lost, "
                                         f"{sum(doubled.values())} doubled; missing {list(missing)[:5]}, "
                                         f"doubled {list(doubled)[:5]}")


def signed_snapshot(directory, pipeline, *, operators=("gen",), checkpoint_id: int = 7, kind: str = "savepoint",
                    run=None, vertices: dict | None = None) -> str:
    """A completed snapshot on disk as a run of ``pipeline`` writes one: a state file holding (empty) state of
    ``operators``, and ``_metadata`` naming it, signed by the studio (``studio.runs.snapshots``)."""
    import json
    import pickle
    from pathlib import Path

    from studio.runs.snapshots import sign_snapshot

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = {"format": 1, "task": ["v", 0], "channels": None,
             "operators": {name: {"keyed": None, "operator": None} for name in operators}}
    (directory / "v-0.state").write_bytes(pickle.dumps(state))
    metadata = {"format": 1, "checkpoint_id": checkpoint_id, "kind": kind, "trigger_timestamp": 1,
                "completed_timestamp": 2, "vertices": vertices or {},
                "tasks": {"v#0": {"path": "v-0.state", "operators": {name: {} for name in operators}}}}
    (directory / "_metadata").write_text(json.dumps(metadata))
    sign_snapshot(str(directory), pipeline, run)
    return str(directory)


def wait_until(predicate, timeout: float, what: str, interval: float = 0.1):
    """Poll ``predicate`` until it returns a truthy value; fail naming ``what`` after ``timeout``.

    Polling for an outcome is not a timing assertion: the timeout only bounds a hang.
    """
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def token_client(user):
    """A DRF APIClient sending ``Authorization: Token <key>`` for a fresh token of ``user``."""
    from rest_framework.test import APIClient

    from studio.models import ApiToken

    _, key = ApiToken.issue(user, "tests")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.token_key = key
    return client


def ws_headers(token_key: str | None = None) -> list[tuple[bytes, bytes]]:
    """Handshake headers for a WebsocketCommunicator: a page of the studio's own origin (as a browser
    sends them), and the token when given."""
    headers = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
    if token_key:
        headers.append((b"authorization", f"Token {token_key}".encode()))
    return headers


def grid_pipeline(count: int = 200, columns: int = 10, name: str = "grid") -> dict:
    """Rows of datagen -> maps -> collect laid out on a grid: a large canvas for the editor."""
    nodes, edges = [], []
    for row in range(count // columns):
        for column in range(columns):
            index = row * columns + column
            if column == 0:
                node = {"id": f"n{index}", "type": "source.datagen", "params": {"count": 100}}
            elif column == columns - 1:
                node = {"id": f"n{index}", "type": "sink.collect", "params": {}}
            else:
                node = {"id": f"n{index}", "type": "transform.map", "params": {"expression": f"x + {column}"}}
            node["ui"] = {"x": 60 + column * 260, "y": 60 + row * 110}
            nodes.append(node)
            if column > 0:
                edges.append({"id": f"e{index}", "from": f"n{index - 1}", "to": f"n{index}",
                              "partitioning": "forward", "exchange": "pipelined"})
    return {"format": 1, "name": name, "mode": "streaming", "parallelism": 1,
            "checkpointing": {"interval_ms": 1000}, "nodes": nodes, "edges": edges}



@contextlib.contextmanager
def connected_networks(capacity: int):
    """Two TCP networks (slot 0 hosts subtask a#0, slot 1 b#0) that know each other; closed on exit."""
    from engine.runtime.io.tcp_channel import TcpNetwork

    slots = [[("a", 0)], [("b", 0)]]
    networks = [TcpNetwork(i, slots, bind_host="127.0.0.1", capacity=capacity) for i in range(2)]
    try:
        peers = [network.peer_info() for network in networks]
        for network in networks:
            network.set_peers(peers)
        yield networks
    finally:
        for network in networks:
            network.close()


def windows_over_half_idle_source(idle_timeout_ms: int) -> dict:
    """Subtask 1 of the source emits only odd numbers, which the filter drops: its watermark
    assigner never sees a record, and the windows downstream wait for it unless it goes idle."""
    return {
        "format": 1, "name": "idle", "parallelism": 2, "max_parallelism": 64,
        "checkpointing": {"interval_ms": 100}, "restart": {"strategy": "none"},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 4000}},
            {"id": "even", "type": "transform.filter", "params": {"predicate": "x % 2 == 0"}},
            {"id": "time", "type": "transform.watermark",
             "params": {"timestamp": "x", "idle_timeout_ms": idle_timeout_ms}},
            {"id": "win", "type": "window.tumbling", "params": {"size_ms": 100, "function": "count"}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100000}, "parallelism": 1},
        ],
        "edges": [
            {"id": "e1", "from": "gen", "to": "even"},
            {"id": "e2", "from": "even", "to": "time"},
            {"id": "e3", "from": "time", "to": "win", "partitioning": "hash", "key": "x % 3"},
            {"id": "e4", "from": "win", "to": "out", "partitioning": "rebalance"},
        ],
    }


def a_window_fired(events: list) -> bool:
    """A metrics event shows the window vertex of ``windows_over_half_idle_source`` emitting."""
    return any(event["type"] == "metrics" and event["vertices"].get("win", {}).get("records_out", 0) > 0
               for event in list(events))


def inexact_windows(fired: list) -> list:
    """The fired ``[key, end, count]`` windows of that job that miss records or hold extra ones."""
    return [[key, end, count] for key, end, count in fired
            if count != sum(1 for x in range(end - 100, end) if x % 2 == 0 and x % 3 == key)]


class RedisServer:
    """A redis-server on a fixed loopback port that can be stopped and started again."""

    def __init__(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.directory = tempfile.mkdtemp(prefix="redis-restart-")
        self.process = None

    def start(self):
        from studio.embedded_redis import redis_server_binary

        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--dir", self.directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self._listening, 10, "redis-server to listen")

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        wait_until(lambda: not self._listening(), 10, "redis-server to stop listening")

    def _listening(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False


class ThreadedAsgiServer:
    """The studio's ASGI application served by uvicorn as ``make up`` configures it (httptools, the
    ``websockets`` implementation, uvloop), on a free loopback port, in a thread of this process, so a
    test can look inside its event loop (``tasks``). A context manager."""

    def __init__(self, application):
        import uvicorn

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=self.port, http="httptools",
                                                    ws="websockets", lifespan="off", log_level="warning"))
        self.loop = None

    def __enter__(self) -> "ThreadedAsgiServer":
        import threading

        import uvloop

        self.loop = uvloop.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self.server.serve(),),
                                       name="asgi-server", daemon=True)
        self.thread.start()
        wait_until(lambda: self.server.started, 30, "the ASGI server to start")
        return self

    def __exit__(self, *exc_info) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def connections(self) -> int:
        return len(self.server.server_state.connections)

    def tasks(self) -> int:
        """How many tasks are alive in the server's event loop, once what is ready to run has run."""
        import asyncio

        async def count() -> int:
            for _ in range(3):  # cancelled tasks finish within a few turns of the loop
                await asyncio.sleep(0)
            return len([task for task in asyncio.all_tasks() if not task.done()]) - 1  # not this one

        return asyncio.run_coroutine_threadsafe(count(), self.loop).result(30)

    def tasks_settled_at(self, expected: int, timeout: float = 30) -> int:
        """The tasks alive once they are down to ``expected`` (sockets take a moment to end), or after
        ``timeout``: what stays then leaked."""
        import time

        deadline = time.monotonic() + timeout
        while (alive := self.tasks()) > expected and time.monotonic() < deadline:
            time.sleep(0.1)
        return alive
