"""The runs yield the CPU to the studio (``studio.processes.priority``): a process that leads its session gives that
session's scheduling group (Linux autogroup) the niceness ``STUDIO_RUN_AUTOGROUP_NICE``; one that shares its
session (started by hand from a shell), or a kernel that does not group by session, is left as it was.

Each case runs in a process of its own (never this test's session, which is the shell's): its autogroup's niceness
is read back from ``/proc/<pid>/autogroup``. No timing: what the weight does to latency is the benchmark's."""
import os
import subprocess
import sys

import pytest

from studio.processes.priority import autogroup_nice, autogroup_on
from tests.conftest import ROOT

needs_autogroup = pytest.mark.skipif(not autogroup_on(), reason="this kernel does not group the CPU by session")


def yielding(nice: int, switch: str | None = None, **popen) -> tuple[str, int | None, int | None]:
    """What ``yield_to_studio(nice)`` says in a new process (``popen``: how it is started), its autogroup's niceness
    after, and this test's."""
    code = ("import sys; from pathlib import Path; from studio.processes import priority as p\n"
            f"if {switch!r}: p.AUTOGROUP_SWITCH = Path({switch!r})\n"
            f"print(p.yield_to_studio({nice})); print(p.autogroup_nice())")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, **popen)
    assert done.returncode == 0, done.stderr
    said, group_nice = done.stdout.strip().splitlines()
    return said, None if group_nice == "None" else int(group_nice), autogroup_nice()


@needs_autogroup
def test_a_process_that_leads_its_session_lowers_its_groups_weight():
    said, group_nice, ours = yielding(10, start_new_session=True)
    assert group_nice == 10, said
    assert autogroup_nice() == ours, "the test's own group is untouched"


@needs_autogroup
def test_a_process_that_shares_its_session_leaves_the_group_alone():
    before = autogroup_nice()
    said, group_nice, ours = yielding(10)
    assert "shares its session" in said
    assert group_nice == before == ours, "the shell's group (here: the test's) keeps its weight"


def test_nothing_is_done_where_the_kernel_does_not_group_by_session(tmp_path):
    switch = tmp_path / "sched_autogroup_enabled"
    switch.write_text("0\n")
    said, group_nice, _ = yielding(10, str(switch), start_new_session=True)
    assert "autogroup scheduling is off" in said
    assert group_nice in (0, None), "left at the kernel's default"


@needs_autogroup
def test_zero_leaves_the_group_at_the_default_weight():
    said, group_nice, _ = yielding(0, start_new_session=True)
    assert group_nice == 0, said
