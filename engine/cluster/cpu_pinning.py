"""Pinning a slot process, or an in-process job's task threads, to a CPU of its own.

A slot runs its subtasks as threads of one Python process, and those threads take turns on
one GIL: the process never runs more than one CPU's worth of Python. Left to the OS, its
threads still run on different CPUs, and then every GIL hand-over moves the lock, and the
records it guards, from one CPU's cache to another's and waits for the other CPU to wake a
thread. Kept on one CPU, a hand-over is a plain switch between threads. Measured on the
Spark benchmark job (two slots on two CPUs): ~15% less CPU per record and ~30% more
records per second.

The in-process cluster is one such slot: its task threads share the GIL of the program it
runs in, so its deployer holds a CPU for the job and each task thread pins itself to it
(``hold_a_free_cpu``, ``Slot(cpu=...)``); the program's own threads are left alone. Its
benchmark job at parallelism 1 (a source task handing batches to a keyed-sum task, ``make
bench-engine``) ran at 1.9-2.2M records/s with its two threads left to the OS and 2.7-3.7M
pinned, in one interleaved run: numpy releases the GIL inside each operation on a columnar
batch, so the waiting task thread takes it every time, and on two CPUs each of those
hand-overs wakes the other CPU (about 5,000 voluntary context switches per 2M records
against 700 pinned, and 0.9 s of CPU for 0.7 s of run).

Which CPU: the first of the process's allowed CPUs that no other slot on this host holds.
A slot holds a CPU with an exclusive ``flock`` on that CPU's file in a directory shared by
the host, so the CPU is free again when the slot ends, and also when its process is
killed. When every CPU is held (more busy slots than CPUs) the slot is not pinned and the
OS shares the CPUs out, as it would without pinning. The directory is
``$ENGINE_CPU_LOCK_DIR``, by default ``engine-slot-cpus`` in the temporary directory;
containers sharing a host must share it (docker-compose mounts one volume in all), or
their slots would each take the first CPU.
"""
from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Iterator

logger = logging.getLogger(__name__)

LOCK_DIR_VARIABLE = "ENGINE_CPU_LOCK_DIR"


def default_lock_dir() -> Path:
    return Path(os.environ.get(LOCK_DIR_VARIABLE) or Path(tempfile.gettempdir()) / "engine-slot-cpus")


class HeldCpu:
    """A CPU this process holds for a slot until ``release`` (or until the process ends)."""

    def __init__(self, cpu: int, lock_file):
        self.cpu = cpu
        self._lock_file = lock_file

    def release(self) -> None:
        self._lock_file.close()  # closing the file drops its flock


def hold_a_free_cpu(lock_dir: Path | str | None = None) -> HeldCpu | None:
    """Hold the first allowed CPU no other slot on this host holds; None when there is no
    choice to make (one CPU allowed, no affinity here) or every CPU is held."""
    allowed = _allowed_cpus()
    if len(allowed) < 2:
        return None
    held = _hold_a_free_cpu(Path(lock_dir) if lock_dir is not None else default_lock_dir(), allowed)
    return HeldCpu(*held) if held is not None else None


@contextlib.contextmanager
def pinned_to_a_free_cpu(lock_dir: Path | str | None = None) -> Iterator[int | None]:
    """Run the body on one CPU no other slot holds; yield that CPU, or None when not pinned.

    Pins the calling thread, so threads it starts inside the body inherit the CPU. On exit
    the thread gets its former CPUs back (Spark reuses the Python worker for later tasks)
    and the CPU is released.
    """
    allowed = _allowed_cpus()
    held = hold_a_free_cpu(lock_dir)
    if held is None:
        yield None
        return
    try:
        os.sched_setaffinity(0, {held.cpu})
        yield held.cpu
    finally:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, allowed)
        held.release()


def _allowed_cpus() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set()


def _hold_a_free_cpu(lock_dir: Path, allowed: set[int]):
    """Return ``(cpu, open lock file)`` for the first CPU nobody holds, or None."""
    import fcntl

    try:
        lock_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        logger.info("slot not pinned to a CPU: %s", error)
        return None
    for cpu in sorted(allowed):
        try:
            lock_file = open(lock_dir / f"cpu-{cpu}.lock", "a")  # noqa: SIM115 - held until release
        except OSError as error:
            logger.info("slot not pinned to a CPU: %s", error)
            return None
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another slot
            lock_file.close()
            continue
        return cpu, lock_file
    return None
