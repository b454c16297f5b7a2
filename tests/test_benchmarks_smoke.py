"""Every benchmark of the Makefile runs in smoke mode (``--smoke``: tiny sizes, one round, no targets), so a
change that breaks a benchmark fails ``make test`` instead of being found months later. Each must exit 0 and
end with one JSON object holding the keys its issue names; its figures are not looked at."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parent.parent
TARGETS = dict(re.findall(r"^(bench-[\w-]+):.*\n\t\$\(PY\) (tests/bench/bench_\w+\.py)", (ROOT / "Makefile").read_text(),
                          re.MULTILINE))
PHASES = {"tests/bench/bench_run_start.py": "bench-studio"}
"""Benchmark scripts without a target of their own, and the target that runs them."""
KEYS = {
    "bench-engine": {"rps_checkpointing", "rps_no_checkpointing", "rps_plain_loop", "checkpoints",
                     "checkpoint_overhead_percent", "load_average_1m"},
    "bench-events": {"rps_inprocess_p1", "rps_spark_p1", "rps_spark_p2", "spark_p2_over_p1", "spark_p2_over_p1_session",
                     "spark_p2_over_p1_join", "spark_p2_over_p1_cpu_normalised", "checkpoints_tumbling",
                     "cpu_us_per_event_inprocess_p1", "cpu_us_per_event_inprocess_p1_record_path",
                     "fields_over_record_path_cpu", "load_average_1m"},
    "bench-batch": {"rps_batch", "rps_streaming", "batch_to_streaming", "streaming_checkpoints"},
    "bench-spark": {"rps_spark_p2", "rps_spark_p1", "spark_p2_over_p1", "spark_p2_over_p1_cpu_normalised", "rps_inprocess_p1", "load_average_1m"},
    "bench-frontend": {"tti_ms_200_nodes", "drag_ms_200_nodes", "tti_ms_1000_nodes", "drag_ms_1000_nodes",
                       "run_page_tti_ms_200_nodes"},
    "bench-test-cases": {"test_case_s", "proof_s"},
    "bench-latency": {"latency_p99_ms_at_least_once_10k", "latency_p99_ms_exactly_once_10k", "checkpoint_interval_ms",
                      "marker_overhead_percent", "marker_latency_p50_ms_at_least_once_10k",
                      "marker_latency_p99_ms_at_least_once_10k", "marker_latency_p99_ms_exactly_once_10k",
                      "marker_visible_latency_p50_ms_exactly_once_10k", "marker_visible_latency_p99_ms_exactly_once_10k",
                      "marker_interval_ms", "written_latency_p99_ms_at_least_once_10k",
                      "written_latency_p99_ms_exactly_once_10k"},
    "bench-runs": {"runs_running", "mem_mb_per_run", "start_s_p50", "start_s_p99", "rest_p99_ms_under_runs",
                   "cpu_ms_per_s_per_run", "cpu_ms_per_s_by_process", "own_driver_cpu_ms_per_s_per_run",
                   "own_driver_runs_running", "own_driver_mem_mb_per_run", "own_driver_start_s_p50",
                   "own_driver_start_s_p99", "own_driver_rest_p99_ms_under_runs", "load_average_1m"},
    "bench-wire": {"cpu_ns_per_record_pickle_events", "cpu_ns_per_record_msgpack_events", "msgpack_over_pickle_events",
                   "msgpack_over_pickle_projected", "load_average_1m"},
    "bench-markers": {"marker_overhead_percent", "wall_clock_overhead_percent", "rps_markers_off", "rps_markers_on",
                      "markers_emitted_on", "markers_at_sink_on",
                      "interval_ms", "rounds", "load_average_1m"},
}
"""Keys a benchmark's last line must hold (the issues that asked for them named them)."""
SMOKE_BOUND_S = 420
"""A bound, not a figure: bench-latency's smoke took 252 s at load 32 on 2 CPUs; one that hangs still fails."""
NEEDS = {"bench-test-cases": "spark", "bench-spark": "spark", "bench-events": "spark", "bench-studio": "spark",
         "bench-latency": "spark", "bench-soak": "spark", "bench-runs": "spark", "bench-frontend": "e2e"}


def test_every_benchmark_script_is_run_by_a_target():
    scripts = {str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "bench").glob("bench_*.py")}
    assert scripts == set(TARGETS.values()) | set(PHASES)
    assert set(PHASES.values()) <= set(TARGETS)


@pytest.mark.timeout(SMOKE_BOUND_S + 30)  # above pytest.ini's 300 s, so the subprocess's own bound speaks first
@pytest.mark.parametrize("target", [pytest.param(target, marks=[getattr(pytest.mark, NEEDS[target])]
                                                 if target in NEEDS else []) for target in sorted(TARGETS)])
def test_benchmark_runs_in_smoke_mode(target):
    completed = subprocess.run([sys.executable, TARGETS[target], "--smoke"], check=False, cwd=ROOT, capture_output=True,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=SMOKE_BOUND_S)
    first_traceback = completed.stderr.find("Traceback")
    output = (f"stdout:\n{completed.stdout[-3000:]}\nstderr, first traceback:\n"
              f"{completed.stderr[first_traceback:first_traceback + 3000] if first_traceback >= 0 else ''}\n"
              f"stderr, end:\n{completed.stderr[-3000:]}")
    assert completed.returncode == 0, f"make {target} --smoke exited {completed.returncode}\n{output}"
    lines = completed.stdout.strip().splitlines()
    assert lines, output
    figures = json.loads(lines[-1])
    assert isinstance(figures, dict) and figures, lines[-1]
    missing = KEYS.get(target, set()) - set(figures)
    assert not missing, f"make {target}: the last line lacks {sorted(missing)}: {lines[-1]}"


STAND_IN = """
import subprocess, sys, time
sys.path.insert(0, {root!r})
from tests.bench.children import start_dying_with_us, stop_group, stop_on_signals
stop_on_signals()
studio = start_dying_with_us([sys.executable, "-c", "import time; time.sleep(300)"])
print(studio.pid, flush=True)
try:
    time.sleep(300)
finally:
    stop_group(studio, grace_s=30)
"""
"""A benchmark as ``bench_runs`` is built: the studio (a stand-in) started in a group of its own, stopped in
``finally``."""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_a_benchmark_ended_by_timeout_or_killed_takes_its_studio_with_it(signum):
    """``timeout`` sends SIGTERM, a closed terminal SIGHUP, and SIGKILL runs no ``finally``: the studio dies anyway."""
    bench = subprocess.Popen([sys.executable, "-c", STAND_IN.format(root=str(ROOT))], stdout=subprocess.PIPE, text=True)
    studio = psutil.Process(int(bench.stdout.readline()))
    assert studio.is_running()
    bench.send_signal(signum)
    bench.wait(60)
    _, alive = psutil.wait_procs([studio], timeout=60)  # a bound on a hang, not a figure
    assert not alive, f"the studio outlived its benchmark ({signal.Signals(signum).name})"


@pytest.mark.spark
@pytest.mark.timeout(SMOKE_BOUND_S + 30)
def test_the_slot_threads_helper_tells_the_slots_threads_apart_on_spark():
    """``tests/bench/slot_threads.py`` (not a target of its own) reads each slot thread's CPU by its OS name: the
    join job's source and join task threads at both parallelisms, and at p=2 the TCP readers between the slots."""
    completed = subprocess.run([sys.executable, "tests/bench/slot_threads.py", "60000", "1", "join"], check=False,
                               cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                               timeout=SMOKE_BOUND_S)
    assert completed.returncode == 0, completed.stderr[-3000:]
    figures = json.loads(completed.stdout.strip().splitlines()[-1])
    assert {"task events", "task pairs"} <= set(figures["p1"]), figures
    assert {"task events", "task pairs", "net-from-peer"} <= set(figures["p2"]), figures
    assert figures["slots_p2"] > 0 and figures["slots_p1"] > 0
