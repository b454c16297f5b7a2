"""Work on untrusted definitions runs in worker processes, within a budget of time, CPU and memory.

Validating, planning and previewing a definition evaluates a user's expressions and
plans whatever parallelism they wrote, so one request could hold the server's CPU (and,
inside one long C operation, Python's GIL) for as long as it likes. Here that work runs
in a small pool of worker processes (``studio.processes.budgeted_worker``): the request's thread
only waits on a socket, so other requests go on, and a job that overruns its budget is
killed (SIGKILL). A validation's or plan's budget is its CPU time in its worker, not the wall clock: on a
busy machine (load 26 on two cores) a plain validation took more than 2 s of wall clock, was
killed as if hostile, and the editor then waited half a minute for a new worker to import the
engine. One that uses no CPU but does not end either is killed at ``WALL_FACTOR`` times its
budget of wall clock. A preview's budget stays the wall clock: its run is timed by the clock. RLIMIT_CPU and RLIMIT_DATA in the worker are the backstop. The server
starts the workers when it starts (``warm_pools``) and a new one replaces a killed one in the
background; a request that finds no idle worker waits for one being started rather than
starting one more (each start is a second of CPU importing the engine, and a start is never
killed for being slow: killing it at a deadline on a busy machine only began it again). Workers run at the
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
WORKER_START_TIMEOUT_S = 60.0  # how long a request waits for a worker to start; the start itself goes on
WALL_FACTOR = 10.0  # a job is killed at this many times its budget of wall clock, whatever CPU it used
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


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
        self._changed = threading.Condition(self._lock)  # notified when a worker becomes idle or a start ends
        self._idle: list[_Worker] = []  # guarded by: self._lock
        self._starting = 0  # guarded by: self._lock; workers being started
        self._waiting = 0  # guarded by: self._lock; requests waiting for an idle worker
        self.kills = 0  # guarded by: self._lock; how many workers were killed at their budget

    def run(self, job: str, args: dict, seconds: float, *, wait: bool = True, cpu: bool = False) -> Any:
        """Run ``job`` on a worker within ``seconds``; raise BudgetExceeded, PoolBusy or WorkerFailed. ``cpu``:
        the budget is the job's CPU time (killed at ``WALL_FACTOR`` times it of wall clock all the same), as
        for validation and planning; else the wall clock, as for a preview, whose run is timed by the clock.

        A job given secrets (``args["secrets"]``: their values, ``studio.run_values.fill_values``) has them masked
        by its worker in its answer and its output, and the worker ends with it: no later job (another user's)
        runs where they were."""
        if not self._slots.acquire(blocking=wait, timeout=seconds if wait else None):
            raise PoolBusy(f"the {self.name} workers are all busy; try again in a moment")
        try:
            worker = self._take()
            try:
                result = self._run_on(worker, job, args, seconds, cpu)
            except BaseException:
                self._discard(worker)
                raise
            if args.get("secrets"):
                self._discard(worker, killed=False)
            else:
                self._give_back(worker)
            return result
        finally:
            self._slots.release()

    def warm(self) -> None:
        """Start the pool's workers now, in the background, so that no request waits for a worker to start."""
        with self._changed:
            missing = self._size - len(self._idle) - self._starting
            if missing > 0:
                self._start_in_background(missing)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def _run_on(self, worker: _Worker, job: str, args: dict, seconds: float, cpu: bool) -> Any:
        worker.jobs += 1
        used = (lambda: _cpu_seconds(worker.process.pid)) if cpu else time.monotonic
        before = used()
        worker.connection.send_bytes(json.dumps({"job": job, "args": args, "cpu_seconds": seconds}).encode())
        wall_deadline = time.monotonic() + seconds * (WALL_FACTOR if cpu else 1.0)
        where: dict[str, Any] = {}
        while True:
            # the CPU the job has left is at least as much wall clock (more threads than one only end it sooner:
            # the worker's RLIMIT_CPU counts them all)
            remaining = min(seconds - (used() - before), wall_deadline - time.monotonic())
            try:
                if remaining <= 0:
                    raise BudgetExceeded(job, seconds, where)
                if not worker.connection.poll(remaining):
                    continue  # measured again: on a busy machine the job had less CPU than wall clock
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
        """An idle worker; when there is none, one being started (a new start only if every start under way is
        already some other request's)."""
        with self._changed:
            self._waiting += 1
            try:
                deadline = time.monotonic() + WORKER_START_TIMEOUT_S
                while not self._idle:
                    if self._starting < self._waiting:
                        self._start_in_background(1)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise RuntimeError(f"no {self.name} worker started within {WORKER_START_TIMEOUT_S:g} s")
                    self._changed.wait(remaining)
                return self._idle.pop()
            finally:
                self._waiting -= 1

    def _give_back(self, worker: _Worker) -> None:
        with self._changed:
            self._idle.append(worker)
            self._changed.notify()

    def _discard(self, worker: _Worker, killed: bool = True) -> None:
        worker.kill()
        with self._changed:
            if killed:
                self.kills += 1
            if len(self._idle) + self._starting < self._size:
                self._start_in_background(1)

    def _start_in_background(self, count: int) -> None:
        """Start ``count`` workers in a thread, one after the other; the caller holds the lock."""
        self._starting += count
        threading.Thread(target=self._start_idle, args=(count,), name=f"{self.name}-workers", daemon=True).start()

    def _start_idle(self, count: int) -> None:
        """Start ``count`` workers (counted in ``_starting`` by the caller) and keep them idle."""
        for _ in range(count):
            try:
                worker = self._start()
            except BaseException:
                with self._changed:
                    self._starting -= 1
                    self._changed.notify_all()
                raise
            with self._changed:
                self._starting -= 1
                self._idle.append(worker)
                self._changed.notify()

    def _start(self) -> _Worker:
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "studio.processes.budgeted_worker", str(theirs.fileno()), str(self.memory_bytes)]
        with theirs:
            process = subprocess.Popen(command, pass_fds=[theirs.fileno()], cwd=ROOT, env=env,
                                       stdin=subprocess.DEVNULL)
        worker = _Worker(process, Connection(ours.detach()))
        try:  # a job's budget starts once the worker is ready, not while it imports; however long that takes
            if "ready" not in json.loads(worker.connection.recv_bytes()):
                raise RuntimeError(f"a {self.name} worker did not say it was ready")
        except BaseException:
            worker.kill()
            raise
        return worker


def _cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used, from /proc; without /proc, the wall clock."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return time.monotonic()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime and stime, fields 14 and 15 of stat(5)


_pools: dict[str, WorkerPool] = {}
_pools_lock = threading.Lock()


def pool(name: str) -> WorkerPool:
    """The pool ``"definitions"`` (validate, plan), ``"previews"``, ``"snapshots"`` (the state browser's reads)
    or ``"tests"`` (test cases), created when first used."""
    with _pools_lock:
        if name not in _pools:
            megabytes = settings.STUDIO_SNAPSHOT_MEMORY_MB if name == "snapshots" else settings.STUDIO_BUDGET_MEMORY_MB
            _pools[name] = WorkerPool(name, size=2, memory_bytes=megabytes * 2 ** 20)
        return _pools[name]


@atexit.register
def _close_pools() -> None:
    for each in list(_pools.values()):
        each.close()


def warm_pools() -> None:
    """Start every pool's workers in the background (the ASGI application does, when it starts)."""
    for name in ("definitions", "previews"):  # test cases start their workers when first run
        pool(name).warm()


def validate_definition(definition: Any, policy: Policy | None = None) -> list[dict]:
    """Every problem of ``definition``, as ``engine.spec.validate_definition`` lists them, and with a
    ``policy`` every location parameter that escapes it; a validation that overruns its budget is one
    problem, located where it was stopped. A field holding a ``${param:…}`` or ``${secret:…}`` is checked
    when a run gives it its value (``studio.run_values``); the rest now."""
    from studio.run_values import problems_with_references

    return problems_with_references(definition, lambda stood_in: _validate(stood_in, policy))


def _validate(definition: Any, policy: Policy | None) -> list[dict]:
    seconds = settings.STUDIO_VALIDATION_BUDGET_S
    try:
        return pool("definitions").run("validate", {"definition": definition, **_policy_arg(policy)}, seconds,
                                       cpu=True)
    except BudgetExceeded as exceeded:
        return [exceeded.problem()]


def validate_with_warnings(definition: Any, policy: Policy) -> tuple[list[dict], list[dict]]:
    """The problems of ``definition`` (as ``validate_definition``) and, when there are none, the warnings
    of its file sources (``studio.source_files``): both within one validation budget. A file check
    stopped at the budget is a warning naming its node and field: the definition itself was valid. References
    are left to a run, as ``validate_definition`` leaves them."""
    from studio.run_values import problems_with_references

    found: dict = {}

    def validate(stood_in: Any) -> list[dict]:
        found["errors"], found["warnings"] = _validate_with_warnings(stood_in, policy)
        return found["errors"] + found["warnings"]

    kept = problems_with_references(definition, validate)
    return ([problem for problem in found["errors"] if problem in kept],
            [warning for warning in found["warnings"] if warning in kept])


def _validate_with_warnings(definition: Any, policy: Policy) -> tuple[list[dict], list[dict]]:
    from studio.source_files import overrun_warning

    seconds = settings.STUDIO_VALIDATION_BUDGET_S
    try:
        result = pool("definitions").run("validate_with_warnings", {"definition": definition,
                                                                    **_policy_arg(policy)}, seconds, cpu=True)
        return result["errors"], result["warnings"]
    except BudgetExceeded as exceeded:
        if exceeded.where.get("check") == "files":
            return [], [overrun_warning(exceeded.where, seconds)]
        return [exceeded.problem()], []


def _policy_arg(policy: Policy | None) -> dict:
    return {} if policy is None else {"policy": policy.to_json()}


def _secrets_arg(secrets: list[str]) -> dict:
    return {"secrets": list(secrets)} if secrets else {}


def plan_definition(definition: Any) -> dict:
    """The planner's summary, or ``{"errors": [...]}`` (an overrun included)."""
    seconds = settings.STUDIO_VALIDATION_BUDGET_S
    try:
        return pool("definitions").run("plan", {"definition": definition}, seconds, cpu=True)
    except BudgetExceeded as exceeded:
        return {"errors": [exceeded.problem()]}


def preview_definition(definition: Any, limit: int, policy: Policy | None = None, secrets: list[str] = ()) -> dict:
    """The preview (``studio.preview.run_preview``), ``{"errors": [...]}`` for an invalid definition (or a
    location outside ``policy``), or status CANCELED with the overrun as its failure; PoolBusy when both
    preview workers are busy. ``secrets``: the values of the secrets filled into ``definition``, masked in the
    answer (``studio.run_values.fill_values``)."""
    seconds = settings.STUDIO_PREVIEW_BUDGET_S
    args = {"definition": definition, "limit": limit, "timeout": max(seconds - 1.0, 0.5), **_policy_arg(policy),
            **_secrets_arg(secrets)}
    try:
        return pool("previews").run("preview", args, seconds, wait=False)
    except BudgetExceeded as exceeded:
        if exceeded.where.get("field") != "preview":
            return {"errors": [exceeded.problem()]}
        return {"status": "CANCELED", "failure": exceeded.problem()["message"], "nodes": {}}


def read_snapshot(metadata: dict, definition: dict | None, question: dict, *, cache_dir: str,
                  earlier: dict | None = None) -> dict:
    """The answer to a state browser's ``question`` about a verified snapshot (``budgeted_worker.read_snapshot``),
    read in a worker within ``STUDIO_SNAPSHOT_BUDGET_S``: BudgetExceeded past it, WorkerFailed when the read
    failed. ``earlier``: ``{"metadata", "definition"}`` of the snapshot a diff compares with."""
    args = {"metadata": metadata, "definition": definition, "question": question, "cache_dir": cache_dir}
    if earlier is not None:
        args["earlier"] = earlier
    return pool("snapshots").run("read_snapshot", args, settings.STUDIO_SNAPSHOT_BUDGET_S)


def run_test_cases(definition: Any, names: list[str] | None, workdir: str, policy: Policy | None = None,
                   secrets: list[str] = ()) -> dict:
    """Run the definition's test cases (those named, or all) in a worker within ``STUDIO_TEST_BUDGET_S``:
    ``{"results": [...]}`` (``engine.api.run_test_case``'s, one per test case), ``{"errors": [...]}`` for an
    invalid definition or an input file outside ``policy``, or ``{"error": message}`` when the budget ran out
    (naming the test case it stopped in). Waits for a free worker within the budget, else PoolBusy.
    ``secrets``: as :func:`preview_definition`'s."""
    seconds = settings.STUDIO_TEST_BUDGET_S
    args = {"definition": definition, "names": names, "workdir": workdir, "budget_s": seconds, **_policy_arg(policy),
            **_secrets_arg(secrets)}
    try:
        return pool("tests").run("test_cases", args, seconds)
    except BudgetExceeded as exceeded:
        where = exceeded.where.get("case")
        return {"error": f"the test cases exceeded their {seconds:g} s budget and were stopped"
                         + (f" in test case '{where}'" if where else " while validating the definition")}
