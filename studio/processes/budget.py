"""Work on untrusted definitions runs in worker processes, within a budget of time, CPU and memory.

Validating, planning and previewing a definition evaluates a user's expressions and
plans whatever parallelism they wrote, so one request could hold the server's CPU (and,
inside one long C operation, Python's GIL) for as long as it likes. Here that work runs
in a small pool of worker processes (``studio.processes.budgeted_worker``): the request's thread
only waits on a socket, so other requests go on, and a job that overruns its budget is
killed (SIGKILL) at its wall-clock deadline; RLIMIT_CPU and RLIMIT_DATA in the worker are
the backstop. The server starts the workers when it starts (``warm_pools``) and a new one
replaces a killed one in the background, so a request does not wait for a worker to import
the engine (seconds on a busy machine). Workers run at the
server's own CPU priority: a lower one (nice 10 was tried) let any busy neighbour starve
live validation in the editor for seconds.

Budgets (settings, from the environment): ``STUDIO_VALIDATION_BUDGET_S`` (2 s: validate,
plan, and checking a definition that is saved or run), ``STUDIO_PREVIEW_BUDGET_S`` (10 s,
validation included; the in-process run itself stops a second earlier and keeps what it
collected), ``STUDIO_BUDGET_MEMORY_MB`` (1024 per worker), two workers per pool.

Threading model: any request thread may call ``run``; a worker is used by one job at a
time. The pool's idle list is guarded by its lock; the semaphore bounds the workers.
"""
from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from django.conf import settings

from studio.location_policy import Policy

ROOT = Path(__file__).resolve().parents[2]
WORKER_START_TIMEOUT_S = 60.0


class BudgetExceeded(Exception):
    """A job was stopped at its budget; ``where`` says how far it got (node, edge, field)."""

    def __init__(self, job: str, seconds: float, where: dict[str, Any]):
        self.job, self.seconds, self.where = job, seconds, where
        super().__init__(self.problem()["message"])

    def problem(self) -> dict[str, Any]:
        """The overrun as a located problem of the definition, as ``engine.spec`` reports problems."""
        budget = f"{self.seconds:g} s"
        if self.where.get("field") == "preview":
            message = f"the preview exceeded its {budget} budget and was stopped"
        elif self.where.get("field") == "plan":
            message = f"planning exceeded its {budget} budget and was stopped"
        elif self.where.get("node") or self.where.get("edge"):
            message = f"validation exceeded its {budget} budget here and was stopped: this expression costs too much"
        else:
            message = f"validation exceeded its {budget} budget and was stopped"
        field_ = self.where.get("field") if self.where.get("field") not in ("plan", "preview") else None
        return {"node": self.where.get("node"), "edge": self.where.get("edge"), "field": field_, "message": message}


class PoolBusy(Exception):
    """Every worker of a pool is busy and the caller did not want to wait."""


class WorkerFailed(Exception):
    """A job raised in its worker; the message names the exception."""


@dataclass
class _Worker:
    process: subprocess.Popen
    connection: Connection
    jobs: int = field(default=0)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.connection.close()


class WorkerPool:
    """Up to ``size`` worker processes, started when first needed and reused while they behave."""

    def __init__(self, name: str, size: int, memory_bytes: int):
        self.name, self.memory_bytes = name, memory_bytes
        self._size = size
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []  # guarded by: self._lock
        self.kills = 0  # guarded by: self._lock; how many workers were killed at their budget

    def run(self, job: str, args: dict, seconds: float, *, wait: bool = True) -> Any:
        """Run ``job`` on a worker within ``seconds``; raise BudgetExceeded, PoolBusy or WorkerFailed."""
        if not self._slots.acquire(blocking=wait, timeout=seconds if wait else None):
            raise PoolBusy(f"the {self.name} workers are all busy; try again in a moment")
        try:
            worker = self._take()
            try:
                result = self._run_on(worker, job, args, seconds)
            except BaseException:
                self._discard(worker)
                raise
            self._give_back(worker)
            return result
        finally:
            self._slots.release()

    def warm(self) -> None:
        """Start the pool's workers now, in the background, so that no request waits for a worker to start."""
        threading.Thread(target=self._start_idle, args=(self._size,), name=f"{self.name}-workers",
                         daemon=True).start()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def _run_on(self, worker: _Worker, job: str, args: dict, seconds: float) -> Any:
        worker.jobs += 1
        worker.connection.send_bytes(json.dumps({"job": job, "args": args, "cpu_seconds": seconds}).encode())
        deadline = time.monotonic() + seconds
        where: dict[str, Any] = {}
        while True:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0 or not worker.connection.poll(remaining):
                    raise BudgetExceeded(job, seconds, where)
                message = json.loads(worker.connection.recv_bytes())
            except (EOFError, OSError):  # killed by its CPU or memory limit
                raise BudgetExceeded(job, seconds, where) from None
            if "progress" in message:
                where = json.loads(message["progress"])
            elif "error" in message:
                raise WorkerFailed(message["error"])
            else:
                return message["result"]

    def _take(self) -> _Worker:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return self._start()

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self.kills += 1
        threading.Thread(target=self._start_idle, args=(1,), name=f"{self.name}-respawn", daemon=True).start()

    def _start_idle(self, count: int) -> None:
        """Start ``count`` workers (but no more than the pool holds) and keep them idle."""
        for _ in range(count):
            with self._lock:
                if len(self._idle) >= self._size:
                    return
            self._give_back(self._start())

    def _start(self) -> _Worker:
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "studio.processes.budgeted_worker", str(theirs.fileno()), str(self.memory_bytes)]
        with theirs:
            process = subprocess.Popen(command, pass_fds=[theirs.fileno()], cwd=ROOT, env=env,
                                       stdin=subprocess.DEVNULL)
        worker = _Worker(process, Connection(ours.detach()))
        try:  # a job's budget starts once the worker is ready, not while it imports
            if not worker.connection.poll(WORKER_START_TIMEOUT_S) or "ready" not in json.loads(
                    worker.connection.recv_bytes()):
                raise RuntimeError(f"a {self.name} worker did not start within {WORKER_START_TIMEOUT_S:g} s")
        except BaseException:
            worker.kill()
            raise
        return worker


_pools: dict[str, WorkerPool] = {}
_pools_lock = threading.Lock()


def pool(name: str) -> WorkerPool:
    """The pool ``"definitions"`` (validate, plan) or ``"previews"``, created when first used."""
    with _pools_lock:
        if name not in _pools:
            _pools[name] = WorkerPool(name, size=2, memory_bytes=settings.STUDIO_BUDGET_MEMORY_MB * 2 ** 20)
        return _pools[name]


@atexit.register
def _close_pools() -> None:
    for each in list(_pools.values()):
        each.close()


def warm_pools() -> None:
    """Start every pool's workers in the background (the ASGI application does, when it starts)."""
    for name in ("definitions", "previews"):
        pool(name).warm()


def validate_definition(definition: Any, policy: Policy | None = None) -> list[dict]:
    """Every problem of ``definition``, as ``engine.spec.validate_definition`` lists them, and with a
    ``policy`` every location parameter that escapes it; a validation that overruns its budget is one
    problem, located where it was stopped."""
    seconds = settings.STUDIO_VALIDATION_BUDGET_S
    try:
        return pool("definitions").run("validate", {"definition": definition, **_policy_arg(policy)}, seconds)
    except BudgetExceeded as exceeded:
        return [exceeded.problem()]


def validate_with_warnings(definition: Any, policy: Policy) -> tuple[list[dict], list[dict]]:
    """The problems of ``definition`` (as ``validate_definition``) and, when there are none, the warnings
    of its file sources (``studio.source_files``): both within one validation budget. A file check
    stopped at the budget is a warning naming its node and field: the definition itself was valid."""
    from studio.source_files import overrun_warning

    seconds = settings.STUDIO_VALIDATION_BUDGET_S
    try:
        result = pool("definitions").run("validate_with_warnings", {"definition": definition,
                                                                    **_policy_arg(policy)}, seconds)
        return result["errors"], result["warnings"]
    except BudgetExceeded as exceeded:
        if exceeded.where.get("check") == "files":
            return [], [overrun_warning(exceeded.where, seconds)]
        return [exceeded.problem()], []


def _policy_arg(policy: Policy | None) -> dict:
    return {} if policy is None else {"policy": policy.to_json()}


def plan_definition(definition: Any) -> dict:
    """The planner's summary, or ``{"errors": [...]}`` (an overrun included)."""
    seconds = settings.STUDIO_VALIDATION_BUDGET_S
    try:
        return pool("definitions").run("plan", {"definition": definition}, seconds)
    except BudgetExceeded as exceeded:
        return {"errors": [exceeded.problem()]}


def preview_definition(definition: Any, limit: int, policy: Policy | None = None) -> dict:
    """The preview (``studio.preview.run_preview``), ``{"errors": [...]}`` for an invalid definition (or a
    location outside ``policy``), or status CANCELED with the overrun as its failure; PoolBusy when both
    preview workers are busy."""
    seconds = settings.STUDIO_PREVIEW_BUDGET_S
    args = {"definition": definition, "limit": limit, "timeout": max(seconds - 1.0, 0.5), **_policy_arg(policy)}
    try:
        return pool("previews").run("preview", args, seconds, wait=False)
    except BudgetExceeded as exceeded:
        if exceeded.where.get("field") != "preview":
            return {"errors": [exceeded.problem()]}
        return {"status": "CANCELED", "failure": exceeded.problem()["message"], "nodes": {}}
