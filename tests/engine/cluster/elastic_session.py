"""An elastic session on a standalone master, for ``test_elastic_standalone.py`` (a process of its own: one
Spark application per process, and the test process has its own ``local`` one).

``python -m tests.engine.cluster.elastic_session MASTER_URL WORK_DIR`` prints one JSON line per phase:

- ``started``: the session's use once its application runs (the master gave it an executor per free
  core, up to its maximum: Spark standalone has no initial limit without dynamic allocation);
- ``idle``: its use once the executors above its minimum were released after the grace period;
- ``ran``: a run of 2 slots at once: its events, the most executors seen while it ran, its result,
  its committed records, and how long it waited for its executor (``grew_in_s``, a figure, not asserted);
- ``released``: its use once the run's executors were released again;
- ``beside_a_live_run``: a run of one slot runs on; a second run of one slot grows the session to two
  executors and ends; its executor is released while the first still runs (and commits), which is then
  cancelled: it never failed or restarted, its committed records exact;
- ``dynamic_allocation``: what Spark says when a barrier stage runs with dynamic allocation on.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

GRACE_S = 2.0
COUNT = 800
WAIT_S = 90.0


def say(phase: str, **figures) -> None:
    print(json.dumps({"phase": phase, **figures}), flush=True)


def wait_for(probe, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not probe():
        if time.monotonic() > deadline:
            raise SystemExit(f"not within {WAIT_S} s: {what}")
        time.sleep(0.1)


def keyed_sums(output: Path, count: int, parallelism: int = 2, rate: float = 400) -> dict:
    """datagen -> hash(x % 7) -> running sum -> two-phase-commit files: one region of ``parallelism`` slots."""
    return {"format": 1, "name": "elastic", "parallelism": parallelism, "checkpointing": {"interval_ms": 150},
            "restart": {"strategy": "fixed_delay", "attempts": 3, "delay_ms": 0},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": rate}},
                      {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
                      {"id": "out", "type": "sink.file", "params": {"path": str(output)}}],
            "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x % 7"},
                      {"id": "e2", "from": "sum", "to": "out"}]}


def committed(output: Path) -> list:
    return [json.loads(line) for part in sorted(output.glob("part-*.jsonl"))
            for line in part.read_text().splitlines() if line]


def main(master: str, work: Path) -> None:
    from engine.api import ElasticSettings, InSession, SessionCluster, job_master_for

    cluster = SessionCluster(2, master, elastic=ElasticSettings(minimum=1, maximum=2, grace_s=GRACE_S,
                                                                 interval_s=0.25))
    say("started", usage=cluster.usage(), max_slots=cluster.max_slots)
    wait_for(lambda: cluster.usage()["executors"] == 1 and cluster.pool.total == 1, "release to the minimum")
    say("idle", usage=cluster.usage())

    events, most, moments = [], [0], {}
    watching = threading.Event()

    def on_event(event):
        events.append(event)
        moments.setdefault(event.get("event") or event.get("status"), time.monotonic())

    def watch():
        while not watching.is_set():
            most[0] = max(most[0], cluster.usage()["executors"])
            watching.wait(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    result = job_master_for(keyed_sums(work / "out", COUNT), InSession(cluster, "run-a"),
                            checkpoint_dir=str(work / "chk"), on_event=on_event).run(WAIT_S * 2)
    watching.set()
    watcher.join()
    say("ran", status=result.status, failure=result.failure, restarts=result.restarts, most_executors=most[0],
        events=[event for event in events if event["type"] in ("region", "status", "task_failed")],
        records=committed(work / "out"), usage=cluster.usage(),
        grew_in_s=round(moments["scheduled"] - moments["waiting"], 2) if "waiting" in moments else None)
    ended = time.monotonic()
    wait_for(lambda: cluster.usage()["executors"] == 1 and cluster.usage()["executors_target"] == 1,
             "release after the run")
    say("released", usage=cluster.usage(), after_s=round(time.monotonic() - ended, 2))

    # a live run keeps its executor while the one a shorter run used is released beside it
    live_events, fewest = [], [None]
    live = job_master_for(keyed_sums(work / "live-out", 10**9, parallelism=1, rate=100), InSession(cluster, "live"),
                          checkpoint_dir=str(work / "live-chk"), on_event=live_events.append).start(WAIT_S * 2)
    wait_for(lambda: any(event.get("status") == "RUNNING" for event in live_events), "the live run to run")
    short = job_master_for(keyed_sums(work / "short-out", 200, parallelism=1), InSession(cluster, "short"),
                           checkpoint_dir=str(work / "short-chk")).run(WAIT_S * 2)
    most_beside = cluster.usage()["executors"]
    wait_for(lambda: cluster.usage()["executors"] == 1, "the short run's executor to be released")
    fewest[0] = cluster.usage()["executors"]
    wait_for(lambda: len(committed(work / "live-out")) >= 50, "the live run to commit records on its executor")
    live.cancel()
    live_result = live.wait(WAIT_S)
    say("beside_a_live_run", short_status=short.status, short_records=len(committed(work / "short-out")),
        executors_beside=most_beside, executors_after=fewest[0], live_status=live_result.status,
        live_restarts=live_result.restarts, live_failed=[e for e in live_events if e["type"] == "task_failed"],
        live_records=committed(work / "live-out"))
    cluster.stop()

    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master(master).appName("barrier-with-dynamic-allocation")
               .config("spark.ui.enabled", "false").config("spark.executor.cores", "1")
               .config("spark.dynamicAllocation.enabled", "true")
               .config("spark.dynamicAllocation.shuffleTracking.enabled", "true").getOrCreate())
    try:
        session.sparkContext.parallelize(range(2), 2).barrier().mapPartitions(lambda part: part).collect()
        say("dynamic_allocation", error=None)
    except Exception as error:  # noqa: BLE001 - what Spark says is the finding
        say("dynamic_allocation", error=str(error)[:2000])
    finally:
        session.stop()


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
