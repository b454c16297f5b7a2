"""The runs yield the CPU to the studio: a process that runs jobs lowers the scheduling weight of its session.

Linux with autogroup scheduling on (``/proc/sys/kernel/sched_autogroup_enabled``, the default of most
distributions' kernels) shares the CPU between *sessions* (``setsid``) first, each session's processes as one
group of the weight of the group's own niceness (``/proc/<pid>/autogroup``, nice 0 unless set), and only then
between the processes of a group by their niceness. ``make up``'s supervisor starts the web server, the Celery
worker and the session driver each in a session of its own, so the session driver, its Spark JVM and the JVM's
Python slot processes (which inherit the session) are one group, and the web server's processes another: the
slots' own niceness (``STUDIO_SESSION_SLOT_NICE``) orders them against the session driver only, not against the
web. With 100 session runs the two groups weighed the same, and a web request, runnable a few milliseconds at a
time, ran for about a fifth of the time it waited (REST p50 100-240 ms for 11-15 ms of CPU; docs/performance.md,
issue 40, seventh wave).

:func:`yield_to_studio` gives the calling process's session the weight of ``STUDIO_RUN_AUTOGROUP_NICE`` (10:
weight 110 against the web server's 1,024, so a web request that wants the CPU gets most of it at once, and the
runs everything the studio leaves -- and everything any other busy session of the machine leaves, which is why it
is 0, off, unless set: docs/capacity.md). It does so only where it changes nothing else:

- the process leads its session (the supervisor's ``start_new_session``); one started by hand from a shell shares
  the shell's group, which is not the runs' to lower: nothing is done;
- autogroup is on; where it is off (or there is no ``/proc``) the kernel weighs processes alone, and the slots'
  niceness is what puts the runs behind the web: nothing is done either.

The kernel's interface is ``engine.api``'s (``engine.cluster.autogroup``), shared with the executors' Python daemon: with
``STUDIO_SLOT_AUTOGROUP_NICE`` (the session's ``slot_autogroup_nice``) the daemon starts a session of its own before
it forks the slots and lowers only that group, so that the slots (the data path) wait behind the web server while
the session driver (its JobMasters, heartbeats and the start of new runs) keeps the weight of any other session.
That is the narrower of the two; this one lowers the whole driver.
"""
from __future__ import annotations

import os

from engine.api import (
    AUTOGROUP_SWITCH,
    autogroup_nice,
    autogroup_on,
    set_autogroup_nice,
)

__all__ = ["AUTOGROUP_SWITCH", "autogroup_nice", "autogroup_on", "yield_to_studio"]


def yield_to_studio(nice: int | None = None) -> str:
    """Give this process's session (every process in it, those it starts later too) the autogroup niceness
    ``nice`` (default ``settings.RUN_AUTOGROUP_NICE``) when it leads that session and the kernel groups by
    session; what was done, in words (for the log). Never raises: a process that cannot yield runs as before."""
    if nice is None:
        from django.conf import settings

        nice = settings.RUN_AUTOGROUP_NICE
    if nice <= 0:
        return "autogroup niceness not set (0)"
    if os.getsid(0) != os.getpid():
        return "autogroup niceness not set: this process shares its session (started by hand?)"
    if not autogroup_on(AUTOGROUP_SWITCH):
        return "autogroup niceness not set: autogroup scheduling is off"
    refused = set_autogroup_nice(nice)
    if refused is not None:
        return f"autogroup niceness not set: {refused}"
    return f"autogroup niceness {autogroup_nice()}: the studio's web server comes first"
