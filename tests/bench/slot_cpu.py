"""CPU time of the Spark slots' Python worker processes, for scaling figures a loaded machine cannot spoil.

Why: ``p=2 / p=1`` in events per wall second says how the job scales only when two CPUs are
free for the two slots. On a machine whose other work keeps the load at 10-40 on 2 CPUs
the slots get whatever share the scheduler leaves them, and that ratio moved 0.4-6.9
between runs. What a slot *costs* stays put: the CPU seconds its process used per event.
So a run's slot processes are found under the session's JVM (the Python daemon and the
workers it forks; ``/proc``, Linux only) and their user + system time is read before and
after the run; a worker that ended during the run left its time in its parent's
``cutime``/``cstime``, which is read too.

From these, ``cpu_normalised_scaling(p1, p2)``: the events per second two slots would
reach against one if each had a CPU of its own, ``p1 CPU / busiest p2 slot's CPU`` -- the
busiest slot is the one the run waits for, so an uneven split of the work counts against
it, and so does every CPU second the exchange between the slots adds. 2.0 is the limit.
What it leaves out is time a slot spends neither computing nor on a busy CPU (waiting for
the other slot with nothing to do), which only wall-clock runs on free CPUs show.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class SlotCpu:
    """CPU seconds that each process below the JVM used over one run (by pid), the JVM's own apart."""

    per_process: dict[int, float]
    jvm_s: float

    @property
    def total_s(self) -> float:
        return sum(self.per_process.values())

    @property
    def busiest_s(self) -> float:
        return max(self.per_process.values(), default=0.0)

    def busy_processes(self, share: float = 0.05) -> dict[int, float]:
        """The processes that did a ``share`` of the work or more: the slots of the run."""
        total = self.total_s
        return {pid: seconds for pid, seconds in self.per_process.items() if total and seconds >= share * total}


def jvm_pid(session) -> int | None:
    """The pid of the session's JVM (local mode: driver and executors), None when not to be found."""
    gateway = getattr(session.sparkContext, "_gateway", None)
    process = getattr(gateway, "proc", None)
    return getattr(process, "pid", None)


def _stat(pid: int) -> tuple[int, float, float] | None:
    """(parent pid, own CPU seconds, reaped children's CPU seconds) of ``pid``, None when gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()  # after "pid (comm) "
    parent = int(fields[1])
    own = (int(fields[11]) + int(fields[12])) / _TICKS
    children = (int(fields[13]) + int(fields[14])) / _TICKS
    return parent, own, children


def _descendants(root: int) -> dict[int, tuple[float, float]]:
    """``{pid: (own, reaped children's) CPU seconds}`` of every process below ``root``."""
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat is not None:
                stats[int(name)] = stat
    below: dict[int, tuple[float, float]] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, own, children) in stats.items():
            if ppid == parent and pid not in below:
                below[pid] = (own, children)
                frontier.append(pid)
    return below


class SlotCpuMeter:
    """Reads the CPU of the processes below a JVM around one run: ``start()``, the run, ``stop()``."""

    def __init__(self, root: int):
        self.root = root
        self._before: dict[int, tuple[float, float]] = {}
        self._jvm_before = 0.0

    def start(self) -> None:
        self._before = _descendants(self.root)
        stat = _stat(self.root)
        self._jvm_before = stat[1] if stat else 0.0

    def stop(self) -> SlotCpu:
        after = _descendants(self.root)
        per_process = {}
        for pid, (own, children) in after.items():
            own_before, children_before = self._before.get(pid, (0.0, 0.0))
            used = (own - own_before) + (children - children_before)
            if used > 0:
                per_process[pid] = used
        stat = _stat(self.root)
        return SlotCpu(per_process, (stat[1] if stat else 0.0) - self._jvm_before)


def cpu_normalised_scaling(p1: SlotCpu, p2: SlotCpu) -> float | None:
    """Events/s of two slots over one if each had a CPU: p=1's slot CPU over p=2's busiest slot's
    (both runs over the same events). None when a run shows no slot CPU."""
    if not p1.total_s or not p2.busiest_s:
        return None
    return p1.total_s / p2.busiest_s
