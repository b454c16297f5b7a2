"""Engine threads carry their names at the OS level (``engine.runtime.thread_names``), so ``/proc``,
``top -H`` and ``tests/bench/slot_threads.py`` tell a slot's source task from its join, a TCP reader
from a control reader, without a profiler attached."""
from __future__ import annotations

import sys
import threading

import pytest

from engine.runtime.slot import _run_on_cpu
from engine.runtime.thread_names import OS_NAME_BYTES, name_os_thread

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread names in /proc are Linux's")


def os_name() -> str:
    with open(f"/proc/self/task/{threading.get_native_id()}/comm") as comm:
        return comm.read().strip()


def in_thread(body, name: str) -> str:
    seen = []
    thread = threading.Thread(target=lambda: seen.append(body()), name=name)
    thread.start()
    thread.join()
    return seen[0]


def test_a_thread_names_itself_at_the_os_level_by_its_python_name_or_another():
    assert in_thread(lambda: (name_os_thread(), os_name())[1], "task pairs#1") == "task pairs#1"
    assert in_thread(lambda: (name_os_thread("net-0-from-peer"), os_name())[1], "x") == "net-0-from-peer"


def test_a_long_name_keeps_what_the_kernel_keeps():
    named = in_thread(lambda: (name_os_thread(), os_name())[1], "task a-very-long-vertex-name#12")
    assert named == "task a-very-long-vertex-name#12"[:OS_NAME_BYTES]


def test_a_slot_task_thread_carries_its_task_name():
    assert in_thread(lambda: _run_on_cpu(None, os_name) or os_name(), "task events#0") == "task events#0"
