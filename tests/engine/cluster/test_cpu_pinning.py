"""Slots pinned to CPUs of their own: held across processes, released on exit and on death; the
in-process cluster's task threads too."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from engine.cluster.cpu_pinning import pinned_to_a_free_cpu
from engine.cluster.local import LocalCluster

HOLDER = textwrap.dedent("""
    import json, os, sys, threading
    from engine.cluster.cpu_pinning import pinned_to_a_free_cpu

    with pinned_to_a_free_cpu(sys.argv[1]) as cpu:
        seen = {}
        thread = threading.Thread(target=lambda: seen.update(thread=sorted(os.sched_getaffinity(0))))
        thread.start()
        thread.join()
        print(json.dumps({"cpu": cpu, "main": sorted(os.sched_getaffinity(0)), **seen}), flush=True)
        sys.stdin.readline()
""")


@pytest.fixture
def start_holder():
    """Start a process holding a CPU in a lock directory; return it and what it reports. Killed after the test."""
    processes = []

    def start(lock_dir):
        process = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock_dir)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": "."})
        processes.append(process)
        return process, json.loads(process.stdout.readline())

    yield start
    for process in processes:
        process.kill()
        process.wait()


def test_each_slot_process_gets_a_cpu_no_other_holds_until_it_ends_or_dies(tmp_path, start_holder):
    allowed = sorted(os.sched_getaffinity(0))
    holders = [start_holder(tmp_path) for _ in allowed]
    cpus = [report["cpu"] for _, report in holders]
    if len(allowed) < 2:
        assert cpus == [None], "one CPU: nothing to choose, nothing pinned"
        return
    assert sorted(cpus) == allowed, "every CPU once"
    for _, report in holders:
        assert report["main"] == report["thread"] == [report["cpu"]], "threads started inside inherit it"
    _, report = start_holder(tmp_path)
    assert report["cpu"] is None and report["main"] == allowed, "all held: the OS shares the CPUs out"
    first, first_report = holders[0]
    first.send_signal(signal.SIGKILL)
    first.wait()
    _, report = start_holder(tmp_path)
    assert report["cpu"] == first_report["cpu"], "a killed slot's CPU is free again"


def test_the_thread_gets_its_cpus_back_after_the_slot(tmp_path):
    before = os.sched_getaffinity(0)
    with pinned_to_a_free_cpu(tmp_path) as cpu:
        assert os.sched_getaffinity(0) == ({cpu} if cpu is not None else before)
    assert os.sched_getaffinity(0) == before
    with pinned_to_a_free_cpu(tmp_path) as again:
        assert again == cpu, "released at the end of the body"


def test_the_lock_directory_comes_from_the_environment(tmp_path, monkeypatch, start_holder):
    """Containers on one host share it through ENGINE_CPU_LOCK_DIR: a CPU held there is not taken again."""
    monkeypatch.setenv("ENGINE_CPU_LOCK_DIR", str(tmp_path / "shared"))
    for _ in os.sched_getaffinity(0):
        start_holder(tmp_path / "shared")
    with pinned_to_a_free_cpu() as cpu:
        assert cpu is None, "every CPU is held in the shared directory"
    assert sorted((tmp_path / "shared").iterdir()), "the holders used the directory from the environment"


TIMER_IN_A_SLOT = textwrap.dedent("""
    import json, os, sys, threading
    from engine.cluster.cpu_pinning import pinned_to_a_free_cpu
    from engine.runtime.timer_service import _SCHEDULER

    ran = threading.Event()
    seen = {}
    with pinned_to_a_free_cpu(sys.argv[1]) as cpu:  # the first timer of the process starts its thread here
        _SCHEDULER.schedule(0, lambda: seen.update(first=sorted(os.sched_getaffinity(0))) or ran.set())
        ran.wait(10)
    ran.clear()
    _SCHEDULER.schedule(0, lambda: seen.update(later=sorted(os.sched_getaffinity(0))) or ran.set())
    ran.wait(10)
    print(json.dumps({"cpu": cpu, "process": sorted(os.sched_getaffinity(0)), **seen}), flush=True)
""")


def test_the_timer_thread_started_inside_a_slot_keeps_no_pin_of_it(tmp_path):
    """One timer thread serves every subtask of a process (a Spark worker is reused by later slots):
    it runs on all the process's CPUs, whichever slot started it."""
    report = json.loads(subprocess.run([sys.executable, "-c", TIMER_IN_A_SLOT, str(tmp_path)], capture_output=True,
                                       text=True, check=True, env={**os.environ, "PYTHONPATH": "."}).stdout)
    assert report["first"] == report["later"] == report["process"]
    assert report["cpu"] is None or len(report["process"]) > 1


def _task_thread_cpus() -> dict[str, list[int]]:
    return {thread.name: sorted(os.sched_getaffinity(thread.native_id))
            for thread in threading.enumerate() if thread.name.startswith("task ")}


def _running_job(lock_dir, pin: bool = True):
    """A running in-process job (an endless paced source into a keyed sum), the job's two task threads up."""
    definition = {
        "format": 1, "name": "pinned", "parallelism": 1,
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 1000}},
                  {"id": "sum", "type": "aggregate.reduce", "params": {}},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 1}}],
        "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x % 10"},
                  {"id": "e2", "from": "sum", "to": "out"}]}
    running = threading.Event()
    handle = LocalCluster(config={"cpu_lock_dir": str(lock_dir), "pin_cpu": pin}).submit(
        definition, on_event=lambda event: event.get("status") == "RUNNING" and running.set())
    assert running.wait(30), "the job did not start"
    return handle


def test_an_in_process_job_keeps_its_task_threads_to_one_cpu_no_slot_holds(tmp_path, start_holder):
    """The threads share one GIL: on one CPU a hand-over is a thread switch, not a wake-up of another CPU."""
    allowed = sorted(os.sched_getaffinity(0))
    _, holder = start_holder(tmp_path)
    handle = _running_job(tmp_path)
    try:
        if len(allowed) < 2:  # nothing to choose: nothing pinned
            assert set(map(tuple, _task_thread_cpus().values())) == {tuple(allowed)}
            return
        free = [cpu for cpu in allowed if cpu != holder["cpu"]][0]
        assert set(map(tuple, _task_thread_cpus().values())) == {(free,)}, "every task thread on the free CPU"
        assert sorted(os.sched_getaffinity(0)) == allowed, "the calling program's thread is left alone"
    finally:
        handle.cancel()
        handle.wait()
    with pinned_to_a_free_cpu(tmp_path) as cpu:
        assert cpu == free, "the job's CPU is released when it ends"


def test_an_in_process_job_can_be_left_to_the_os(tmp_path):
    handle = _running_job(tmp_path, pin=False)
    try:
        assert all(cpus == sorted(os.sched_getaffinity(0)) for cpus in _task_thread_cpus().values())
    finally:
        handle.cancel()
        handle.wait()
