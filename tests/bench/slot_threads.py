"""Each slot thread's CPU per event for one ``bench-events`` job at p=1 and p=2 on Spark ``local[2]``.

Why: a p=2 / p=1 ratio below 2 says that the second slot costs something, not where. The slots'
threads are named at the OS level (``engine.runtime.thread_names``: ``task <vertex>#<index>``, the
TCP readers ``net-...``, ``control-reader``, ``timer-scheduler``, ``snapshot_<n>``), so their CPU can
be read from ``/proc/<pid>/task/<tid>/schedstat`` (time on a CPU, in ns) without a profiler attached.
Every thread of every process below the session's JVM is sampled every 20 ms from RUNNING to FINISHED
(a thread that ends keeps its last reading); threads are grouped by name without the subtask index,
so ``task events`` at p=2 is both slots' source threads together. The profile that led to
``docs/performance.md``'s "Frames into the join per quarter batch" was taken this way.

Each round runs p=1, then p=2, of the job (``tumbling``, ``session`` or ``join``) with the given
deployment settings in one Spark session; the figures are the least of the rounds per thread group
(the least disturbed), in µs of CPU per event of the whole input, with the slots' totals. Printed,
never asserted; the last line is one JSON object.

Run: ``.venv/bin/python tests/bench/slot_threads.py [events] [rounds] [job] ['{"setting": value}']``, e.g.
``... 1000000 3 join`` or ``... 1000000 3 join '{"join_buffer_min_records": 0}'``; under
``flock /tmp/bench.lock`` on a shared machine.
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.api import Spark  # noqa: E402
from tests.bench import bench_events  # noqa: E402
from tests.bench.slot_cpu import SlotCpuMeter, _descendants, jvm_pid  # noqa: E402

SAMPLE_S = 0.02


def thread_times(pid: int) -> dict[int, tuple[str, int]]:
    """``{tid: (OS name, ns on a CPU)}`` of every thread of ``pid`` (empty when it is gone)."""
    found = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as comm, open(f"/proc/{pid}/task/{tid}/schedstat") as stat:
                found[int(tid)] = (comm.read().strip(), int(stat.read().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
    return found


def group_of(name: str) -> str:
    """A thread's group: its name without the subtask index (``task events#1``), the snapshot pool's number
    or the slot and peer numbers of a TCP reader."""
    if name.startswith("net-"):
        return "net-from-peer" if name.endswith("-from-peer") else "net-to-peer"
    return re.sub(r"(#|_)\d+$", "", name)


class ThreadMeter(SlotCpuMeter):
    """``SlotCpuMeter`` that also samples every slot thread's CPU while the run lasts (``threads``)."""

    def __init__(self, root: int):
        super().__init__(root)
        self.threads: dict[str, float] = {}
        self._stop = threading.Event()
        self._sampler: threading.Thread | None = None

    def start(self) -> None:
        super().start()
        self._stop.clear()
        pids = list(_descendants(self.root))
        first: dict[tuple[int, int], tuple[str, int]] = {}
        last: dict[tuple[int, int], tuple[str, int]] = {}

        def sample() -> None:
            while True:
                for pid in pids:
                    for tid, (name, ns) in thread_times(pid).items():
                        first.setdefault((pid, tid), (name, ns))
                        last[(pid, tid)] = (name, ns)
                if self._stop.wait(SAMPLE_S):
                    break
            for pid in pids:  # a final reading of the threads still there
                for tid, (name, ns) in thread_times(pid).items():
                    if (pid, tid) in first:
                        last[(pid, tid)] = (name, ns)
            threads: dict[str, float] = {}
            for key, (name, ns) in last.items():
                used = (ns - first[key][1]) / 1e9
                if used > 0:
                    threads[group_of(name)] = threads.get(group_of(name), 0.0) + used
            self.threads = threads

        self._sampler = threading.Thread(target=sample, name="slot-thread-sampler", daemon=True)
        self._sampler.start()

    def stop(self):
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join()
        return super().stop()


def main() -> None:
    arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
    events = int(arguments[0]) if arguments else 1_000_000
    rounds = int(arguments[1]) if len(arguments) > 1 else 3
    job = arguments[2] if len(arguments) > 2 else "join"
    config = json.loads(arguments[3]) if len(arguments) > 3 else {}
    least: dict[int, dict[str, float]] = {1: {}, 2: {}}
    slots: dict[int, float] = {}
    with bench_events.one_job_on_spark("bench-slot-threads", events, job) as (session, input_dir, expected):
        bench_events.timed_run(Spark(session=session, config=config), input_dir, 2, expected, events, job)  # warm
        for round_number in range(rounds):
            for parallelism in (1, 2):
                meter = ThreadMeter(jvm_pid(session))
                figures: dict = {}
                rps, _ = bench_events.timed_run(Spark(session=session, config=config), input_dir, parallelism,
                                                expected, events, job, figures, meter)
                per_event = {group: seconds / events * 1e6 for group, seconds in meter.threads.items()}
                total = figures["slot_cpu"].total_s / events * 1e6
                slots[parallelism] = min(slots.get(parallelism, total), total)
                for group, value in per_event.items():
                    least[parallelism][group] = min(least[parallelism].get(group, value), value)
                shown = ", ".join(f"{group} {value:.3f}" for group, value in
                                  sorted(per_event.items(), key=lambda item: -item[1]) if value >= 0.002)
                print(f"round {round_number} p={parallelism}: {rps:,.0f} events/s, slots {total:.2f} µs/event: "
                      f"{shown}; load {os.getloadavg()[0]:.1f}", file=sys.stderr)
                time.sleep(0.1)
    groups = sorted(set(least[1]) | set(least[2]), key=lambda group: -(least[2].get(group, 0) + least[1].get(group, 0)))
    print(f"{'thread group':<24} {'p=1':>8} {'p=2':>8}  µs of CPU per event, least of {rounds}")
    for group in groups:
        one, two = least[1].get(group), least[2].get(group)
        if max(one or 0, two or 0) >= 0.002:
            print(f"{group:<24} {'-' if one is None else f'{one:.3f}':>8} {'-' if two is None else f'{two:.3f}':>8}")
    print(f"{'slots':<24} {slots.get(1, 0):>8.3f} {slots.get(2, 0):>8.3f}")
    print(json.dumps({"job": job, "events": events, "rounds": rounds, "config": config,
                      "p1": {group: round(value, 4) for group, value in least[1].items()},
                      "p2": {group: round(value, 4) for group, value in least[2].items()},
                      "slots_p1": round(slots.get(1, 0), 4), "slots_p2": round(slots.get(2, 0), 4),
                      "load_average_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
