"""Spark's Python daemon with the engine already imported: slots start warm.

An executor forks every Python worker from one daemon process. pyspark's daemon imports
its worker module only after the fork, and the worker then imports the engine while it
unpickles the slot function, so each freshly forked worker spent seconds importing
(pyspark's worker pulls in ``pyspark.sql`` from pyspark.zip, uncompiled; the engine its
planner, state and checkpoint storage) before its slot could register. A region restart
always needs fresh workers: the killed slot's worker is gone, and Spark drops a worker
whose task failed or was killed rather than reuse it. On ``local[2]`` under load those
imports were 5-9 s of the 7-16 s a restart took.

This daemon (``spark.python.daemon.module``, set by ``spark_session``) imports them once
before it starts pyspark's daemon loop, so every forked worker has them in memory, and it
drops the zip finders that made each fresh worker re-read pyspark.zip (see
``forget_zip_finders``): a replacement slot starts in about 0.1 s instead.

Only modules that start no thread on import are preloaded: a fork copies the forking
thread only, and a lock another thread held would stay locked in the child (pyspark
imports its worker after the fork for that reason). Operator modules that need
third-party clients (Redis, PostgreSQL, HTTP, Parquet) stay lazy: the worker that needs
one imports it, as before. A module that fails to import is skipped: the worker that
needs it imports it (and reports the error) itself.

With ``ENGINE_SLOT_AUTOGROUP_NICE`` in its environment (``SessionCluster(slot_autogroup_nice=...)``) the daemon
first starts a session of its own, a Linux autogroup apart from the driver's, at that autogroup niceness
(``engine.cluster.autogroup``): where the kernel shares the CPU between sessions first, the slots it forks (the
data path) then wait behind the driver's control plane and the studio's web server instead of sharing one group
with the driver. pyspark's daemon loop starts with ``os.setpgid(0, 0)``, which a session leader is refused; the
daemon already leads its own group then, so that one call is answered for it (``_SessionLeaderOs``).
"""
from __future__ import annotations

import importlib
import os
import sys
import zipimport

from engine.cluster.autogroup import lead_own_autogroup

PRELOADED_MODULES = (
    "pyspark.worker",
    "engine.cluster.spark_slot",
    "engine.cluster.control",
    "engine.cluster.cpu_pinning",
    "engine.cluster.shuffle",
    "engine.plan.job_graph",
    "engine.runtime.slot",
    "engine.runtime.io.network",
    "engine.runtime.io.tcp_channel",
    "engine.runtime.operators.connectors.datagen",
    "engine.runtime.operators.transform",
    "engine.runtime.operators.watermark",
    "engine.runtime.operators.aggregate",
    "engine.runtime.operators.windows.window",
    "engine.runtime.operators.connectors.collect_sink",
    "engine.runtime.operators.connectors.file_source",
    "engine.runtime.operators.connectors.file_sink",
    "engine.runtime.operators.connectors.hybrid_source",
)
"""What a slot of the common pipelines imports between its fork and its registration."""


def preload(modules=PRELOADED_MODULES) -> list[str]:
    """Import ``modules`` (those that import cleanly); return the names imported."""
    imported = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as error:  # the worker that needs it imports it and reports why not
            print(f"engine daemon: not preloading {name}: {error}", file=sys.stderr)
            continue
        imported.append(name)
    return imported


def forget_zip_finders() -> int:
    """Drop the import system's finders of zip archives (pyspark.zip and its packages);
    return how many were dropped.

    A freshly forked worker adds the job's files to ``sys.path`` and then calls
    ``importlib.invalidate_caches()``, which makes every cached zip finder read its whole
    archive directory again: one finder per package imported from pyspark.zip, each
    re-reading its 1,500 entries, took 2-3 s per worker on a busy host. Without them the
    call is cheap; a later import from an archive creates its finder again from the
    archive directory zipimport keeps in memory.
    """
    dropped = [path for path, finder in sys.path_importer_cache.items() if isinstance(finder, zipimport.zipimporter)]
    for path in dropped:
        del sys.path_importer_cache[path]
    return len(dropped)


def thread_count() -> int:
    """Threads of this process, native ones included (``threading`` sees Python's only)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # no procfs: assume the import started none
        return 1


SLOT_NICE_VARIABLE = "ENGINE_SLOT_NICE"
"""The niceness the daemon takes before it forks the slots (its environment, from ``spark.executorEnv``; a
``SessionCluster``'s ``slot_nice``)."""


def take_niceness(environ=os.environ) -> int:
    """Add ``ENGINE_SLOT_NICE`` (when set) to this process's niceness, which every worker forked from it inherits;
    the niceness now. A session's hundred slots at 100 records a second each kept two cores busy, and the
    studio's web server and the session's driver waited for the CPU behind them: REST answers took a second."""
    wanted = int(environ.get(SLOT_NICE_VARIABLE) or 0)
    return os.nice(wanted) if wanted > 0 else os.nice(0)


SLOT_AUTOGROUP_VARIABLE = "ENGINE_SLOT_AUTOGROUP_NICE"
"""The autogroup niceness of a session of the daemon's own, which every slot it forks shares (its environment,
from ``spark.executorEnv``; a ``SessionCluster``'s ``slot_autogroup_nice``)."""


def take_own_autogroup(environ=os.environ) -> bool:
    """With ``ENGINE_SLOT_AUTOGROUP_NICE`` above 0: lead a session of its own (a Linux autogroup apart from the
    driver's, ``engine.cluster.autogroup``) at that niceness, so that the slots it forks wait behind the driver's
    control plane and the studio's web server, not only behind each other; whether it now leads a session of its
    own. Where autogroups are not to be had it runs as before; either way it says what it did in one line on
    standard error (where Spark logs the daemon's; standard output is the daemon's port for the JVM)."""
    wanted = int(environ.get(SLOT_AUTOGROUP_VARIABLE) or 0)
    if wanted <= 0:
        return False
    leads, said = lead_own_autogroup(wanted)
    print(f"engine daemon: slots: {said}", file=sys.stderr, flush=True)
    return leads


class _SessionLeaderOs:
    """``os`` for pyspark's daemon module once the daemon leads a session of its own: its ``manager()`` starts
    with ``os.setpgid(0, 0)`` (a process group of its own, to signal its workers as one), which a session
    leader is refused (EPERM) and needs not: ``setsid`` already made it the leader of a group of its own. Every
    other name is ``os``'s."""

    def __init__(self, real=os):
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)

    def setpgid(self, pid: int, pgid: int) -> None:
        real = self._real
        if pid in (0, real.getpid()) and pgid in (0, real.getpid()) and real.getpgid(0) == real.getpid():
            return  # already the leader of its own group: what the call asks for
        real.setpgid(pid, pgid)


def main() -> None:
    take_niceness()
    leads_session = take_own_autogroup()
    preload()
    forget_zip_finders()
    if thread_count() > 1:  # a preloaded module broke the rule above: say so where Spark logs it
        print("engine daemon: a preloaded module started a thread; forked workers may inherit a held lock",
              file=sys.stderr)
    from pyspark import daemon

    if leads_session:
        daemon.os = _SessionLeaderOs()
    daemon.manager()


if __name__ == "__main__":
    main()
