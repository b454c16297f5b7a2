"""Run an engine test on both deployments: threads in this process and Spark barrier stages.

The ``deployment`` fixture (``tests/engine/conftest.py``) is parametrized with ids
``inprocess`` and ``spark`` (the latter marked ``spark``), so one test proves a behaviour
on both::

    def test_something(deployment, tmp_path):
        result = deployment.run(definition, checkpoint_dir=str(tmp_path / "c"))
        assert result.status == "FINISHED", result.failure

        handle = deployment.submit(definition, checkpoint_dir=..., on_event=events.append)
        deployment.kill(handle, ("gen", 1))     # the slot running gen#1 dies
        result = handle.wait(120)

``kill`` is a real crash on Spark (SIGKILL of the slot's Python worker) and the same
failure path in process (the slot's subtasks raise at their next kill point, see
``engine.runtime.kill_hooks``). Both go through the public entry point ``engine.api``.
"""
from __future__ import annotations

import os
import signal
import threading

from engine.api import InProcess, JobHandle, JobResult, Spark, job_master_for

DEFAULT_TIMEOUT_S = 120


class SlotKiller:
    """A kill hook that fails the subtasks of one slot at their next kill point, once armed."""

    def __init__(self):
        self._lock = threading.Lock()
        self._tasks: frozenset = frozenset()  # guarded by: self._lock

    def arm(self, tasks) -> None:
        with self._lock:
            self._tasks = frozenset(tuple(task) for task in tasks)

    def __call__(self, point: str, task: tuple, info: dict) -> bool:
        with self._lock:
            if tuple(task) not in self._tasks:
                return False
            self._tasks = frozenset()
            return True


class InProcessDeployment:
    """The ``inprocess`` deployment: slots on threads of the test process."""

    id = "inprocess"

    def __init__(self, config: dict | None = None):
        self.config = dict(config or {})

    def configured(self, config: dict) -> "InProcessDeployment":
        """This deployment with ``config`` merged into every slot's configuration."""
        return InProcessDeployment({**self.config, **config})

    def submit(self, definition: dict, *, checkpoint_dir: str, restore=None, on_event=None,
               timeout: float | None = None, kill_hook=None, **options) -> JobHandle:
        killer = SlotKiller()
        hooks = [hook for hook in (killer, kill_hook) if hook is not None]
        job_master = job_master_for(definition, InProcess(self.config), checkpoint_dir=checkpoint_dir, restore=restore,
                                    on_event=on_event, kill_hook=lambda *args: any(hook(*args) for hook in hooks),
                                    **options)
        job_master.slot_killer = killer
        return job_master.start(timeout)

    def run(self, definition: dict, *, checkpoint_dir: str, restore=None, on_event=None,
            timeout: float = DEFAULT_TIMEOUT_S, **options) -> JobResult:
        return self.submit(definition, checkpoint_dir=checkpoint_dir, restore=restore, on_event=on_event,
                           timeout=timeout, **options).wait()

    def kill(self, handle: JobHandle, task: tuple) -> None:
        """Fail the slot that runs ``task`` (every subtask of it, at its next kill point)."""
        slot = handle.job_master.running_slots()[tuple(task)]
        handle.job_master.slot_killer.arm(slot.tasks)


class SparkDeployment:
    """The ``spark`` deployment: barrier stages on the test process's local Spark session."""

    id = "spark"

    def __init__(self, session, config: dict | None = None):
        self.session = session
        self.config = dict(config or {})

    def configured(self, config: dict) -> "SparkDeployment":
        """This deployment with ``config`` merged into every slot's configuration."""
        return SparkDeployment(self.session, {**self.config, **config})

    def submit(self, definition: dict, *, checkpoint_dir: str, restore=None, on_event=None,
               timeout: float | None = None, **options) -> JobHandle:
        job_master = job_master_for(definition, Spark(session=self.session, config=self.config),
                                    checkpoint_dir=checkpoint_dir,
                                    restore=restore, on_event=on_event, **options)
        return job_master.start(timeout)

    def run(self, definition: dict, *, checkpoint_dir: str, restore=None, on_event=None,
            timeout: float = DEFAULT_TIMEOUT_S, **options) -> JobResult:
        return self.submit(definition, checkpoint_dir=checkpoint_dir, restore=restore, on_event=on_event,
                           timeout=timeout, **options).wait()

    def kill(self, handle: JobHandle, task: tuple) -> None:
        """SIGKILL the Spark Python worker that runs ``task``'s slot."""
        os.kill(handle.job_master.running_slots()[tuple(task)].pid, signal.SIGKILL)


def run_with_kills(deployment, job: dict, kills: int, seed: int, *, checkpoint_dir: str, tasks=None,
                   max_delay_s: float = 0.3, timeout: float = 240, on_event=None,
                   **options) -> tuple[JobResult, list[tuple]]:
    """Run ``job`` while ``kills`` random slots die, each after a checkpoint of the current
    attempt completed (``KillAfterCheckpoints``: ``seed``, ``tasks``, ``max_delay_s``). The job
    must finish, every kill done before it ended; one still running after ``timeout`` seconds
    is canceled. ``on_event`` is told every event too. The result, and the subtasks killed."""
    killer = KillAfterCheckpoints(kills, seed, tasks=tasks, max_delay_s=max_delay_s)

    def told(event: dict) -> None:
        killer.on_event(event)
        if on_event is not None:
            on_event(event)

    handle = deployment.submit(job, checkpoint_dir=checkpoint_dir, on_event=told, timeout=timeout, **options)
    killer.start(deployment, handle)
    try:
        result = handle.wait(timeout + 60)
    finally:
        killer.join()
    assert result.status == "FINISHED", result.failure
    assert len(killer.killed) == kills, f"only {killer.killed} were killed before the job ended"
    return result, killer.killed


def running_tasks(handle: JobHandle) -> list[tuple]:
    """The subtasks whose slots run now (a kill needs one)."""
    return sorted(handle.job_master.running_slots())


class KillAfterCheckpoints:
    """Kills a random running slot after a checkpoint of the current attempt completed, ``kills`` times.

    Pass ``on_event`` as the job's event sink, then ``start(deployment, handle)``. After a
    kill, checkpoints that still complete before the JobMaster noticed it belong to the
    killed attempt: only a checkpoint after the next RUNNING arms the next kill. ``tasks``
    limits the victims (default: any running subtask).
    """

    def __init__(self, kills: int, seed: int, tasks=None, max_delay_s: float = 0.3):
        import random

        self.random = random.Random(seed)
        self.kills_wanted = kills
        self.tasks = None if tasks is None else {tuple(task) for task in tasks}
        self.max_delay_s = max_delay_s
        self.events: list[dict] = []
        self.killed: list[tuple] = []
        self._armed = threading.Event()
        self._awaiting_restart = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def on_event(self, event: dict) -> None:
        self.events.append(event)
        if event["type"] == "status" and event["status"] == "RUNNING":
            self._awaiting_restart = False
        if event["type"] == "status" and event["status"] in ("FINISHED", "FAILED", "CANCELED"):
            self._done.set()
        if event["type"] == "checkpoint" and event["event"] == "completed" and not self._awaiting_restart:
            self._armed.set()

    def start(self, deployment, handle: JobHandle) -> "KillAfterCheckpoints":
        self._thread = threading.Thread(target=self._kill_repeatedly, args=(deployment, handle), daemon=True)
        self._thread.start()
        return self

    def join(self) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join(30)

    def _kill_repeatedly(self, deployment, handle: JobHandle) -> None:
        while len(self.killed) < self.kills_wanted and not self._done.is_set():
            if not self._armed.wait(0.5):
                continue
            self._done.wait(self.random.uniform(0, self.max_delay_s))  # a random point of the running job
            candidates = [task for task in running_tasks(handle) if self.tasks is None or task in self.tasks]
            if not candidates or self._done.is_set() or self._awaiting_restart:
                continue
            victim = self.random.choice(candidates)
            self._awaiting_restart = True
            self._armed.clear()
            try:
                deployment.kill(handle, victim)
            except (KeyError, ProcessLookupError):  # its slot ended meanwhile: try again later
                self._awaiting_restart = False
                continue
            self.killed.append(victim)
