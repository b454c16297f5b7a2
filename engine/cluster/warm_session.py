"""A Spark session started before its job is known: what a warm driver keeps ready.

Starting a driver costs seconds before a job can run: the interpreter imports, the JVM of
the Spark session starts, and the executors' Python daemon forks its first workers. A warm
driver (``studio.driver_pool``) pays all of that while nobody waits, then takes a run. The
session is ``local[N]`` (or the configured master) with room for ``slots`` slots; a job
needing more gets a session of its own size instead (``session_for``).
"""
from __future__ import annotations

from engine.cluster.spark_session import create_spark_session, spark_master_for, start_python_workers

WARM_APP_NAME = "pipeline-studio-driver"


def start_warm_session(master: str | None, slots: int):
    """A Spark session whose executors already run their Python workers (one per slot)."""
    session = create_spark_session(WARM_APP_NAME, spark_master_for(slots, master))
    start_python_workers(session, slots)
    return session


def session_for(warm_session, slots_needed: int, master: str | None):
    """The warm session when it offers ``slots_needed`` slots at once, else None (the job then
    starts a session of its own size; the warm one is stopped first, as a process has one)."""
    if warm_session.sparkContext.defaultParallelism >= slots_needed:
        return warm_session
    warm_session.stop()
    return None
