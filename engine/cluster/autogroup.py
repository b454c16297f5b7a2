"""Linux autogroups: the kernel shares the CPU between sessions first, then between a session's processes.

With autogroup scheduling on (``/proc/sys/kernel/sched_autogroup_enabled``, the default of most distributions'
kernels) every session (``setsid``) is one scheduling group, of the weight of the group's own niceness
(``/proc/<pid>/autogroup``: nice 0, weight 1,024, unless set; 10: weight 110), and a process's own niceness weighs
only against the other processes of its group. Two uses:

- the studio's session driver can lower its whole session (``studio.processes.priority``);
- the executors' Python daemon (``engine.cluster.spark_daemon``) can start a session of its own before it forks
  the slots, and lower only that (:func:`lead_own_autogroup`): the slots' data-path CPU then waits behind the
  web server *and* the driver's control plane (JobMasters, heartbeats, the start of new runs), which keep the
  weight of any other session.

Raising a group's niceness needs no privilege; the kernel refuses an unprivileged change to any group more often
than ten times a second machine-wide (EAGAIN), so a refusal of that kind is asked again. Nothing here raises:
where autogroups are unavailable (no ``/proc``, autogroup off, permission denied) the caller runs as before and is
told why in words, for its one log line.
"""
from __future__ import annotations

import errno
import os
import time
from pathlib import Path

AUTOGROUP_SWITCH = Path("/proc/sys/kernel/sched_autogroup_enabled")
RETRIES = 20
RETRY_S = 0.11


def autogroup_on(switch: Path | None = None) -> bool:
    """Whether the kernel groups the CPU by session (autogroup on)."""
    try:
        return (switch or AUTOGROUP_SWITCH).read_text().strip() == "1"
    except OSError:
        return False


def autogroup_of(pid: int | str = "self") -> tuple[str, int] | None:
    """``pid``'s autogroup and its niceness (``/proc/<pid>/autogroup``: ``/autogroup-42 nice 10``), None without."""
    try:
        words = Path(f"/proc/{pid}/autogroup").read_text().split()
        return words[0], int(words[-1])
    except (OSError, ValueError, IndexError):
        return None


def autogroup_nice(pid: int | str = "self") -> int | None:
    """The niceness of ``pid``'s autogroup, None without."""
    group = autogroup_of(pid)
    return None if group is None else group[1]


def set_autogroup_nice(nice: int) -> str | None:
    """Give this process's autogroup the niceness ``nice``; None once done, else why not (in words)."""
    for _ in range(RETRIES):
        try:
            Path("/proc/self/autogroup").write_text(str(nice))
            return None
        except OSError as error:
            if error.errno != errno.EAGAIN:
                return str(error)
            time.sleep(RETRY_S)
    return "the kernel kept refusing (EAGAIN)"


def lead_own_autogroup(nice: int, switch: Path | None = None) -> tuple[bool, str]:
    """Start a session of its own for this process (a new autogroup, which every process it forks later shares)
    and give it the niceness ``nice``; (whether this process now leads a session of its own, what was done in
    words). Nothing is done for ``nice`` <= 0 or where the kernel does not group by session. A process that
    already leads a process group cannot start a session (EPERM): it stays where it is."""
    if nice <= 0:
        return False, "autogroup niceness not set (0)"
    if not autogroup_on(switch):
        return False, "autogroup niceness not set: autogroup scheduling is off (or no /proc)"
    try:
        os.setsid()
    except OSError as error:
        return False, f"autogroup niceness not set: no session of its own ({error})"
    refused = set_autogroup_nice(nice)
    if refused is not None:
        return True, f"own session, autogroup niceness not set: {refused}"
    group = autogroup_of()
    return True, f"own autogroup {group[0] if group else '?'} at niceness {group[1] if group else '?'}"
