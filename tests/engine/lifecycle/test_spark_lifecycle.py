"""Batch mode on local Spark: the same runtime in barrier stages, region after region."""
from __future__ import annotations

import threading
from collections import Counter

import pytest

from engine.api import Spark, job_master_for
from engine.cluster.local import LocalCluster
from engine.spec import normalise_definition
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import committed, final_per_key

pytestmark = pytest.mark.spark


def start(spark_session, definition, tmp_path, on_event, restore=None):
    job_master = job_master_for(normalise_definition(definition), Spark(session=spark_session),
                                checkpoint_dir=str(tmp_path / "chk"), on_event=on_event,
                                restore=restore)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", job_master.run()))
    thread.start()
    return job_master, thread, outcome


def batch_job(mode: str) -> dict:
    """datagen -> watermark -> keyed tumbling max, and a keyed running count of the results."""
    return pipeline([node("gen", "source.datagen", count=4000),
                     node("time", "transform.watermark", timestamp="x * 3"),
                     node("window", "window.tumbling", size_ms=200, function="max", parallelism=2),
                     node("count", "aggregate.reduce", function="count", parallelism=2),
                     node("out", "sink.collect", max_records=100000, parallelism=2)],
                    [edge("gen", "time"), edge("time", "window", "hash", "x % 4"),
                     edge("window", "count", "hash", "x[0]"), edge("count", "out")], mode=mode)


def test_batch_mode_on_spark_runs_stage_by_stage_with_the_streaming_result(spark_session, tmp_path):
    events = []
    job_master, thread, outcome = start(spark_session, batch_job("batch"), tmp_path, events.append)
    thread.join(180)
    assert outcome["value"].status == "FINISHED", outcome["value"].failure_cause
    streaming = LocalCluster().run(batch_job("streaming"), timeout=60)
    # the windows are the same; the running count over them is not rolling in batch mode: each key's final count
    assert Counter(map(tuple, outcome["value"].collected["out"])) == \
        Counter(map(tuple, final_per_key(streaming.collected["out"])))
    assert not [e for e in events if e["type"] == "checkpoint"]
    order = [(e["event"], e["region"]) for e in events if e["type"] == "region"]
    scheduled = [region for event, region in order if event == "scheduled"]
    assert len(scheduled) == len(set(scheduled)) >= 5, "one stage per region, each once"
    first_finish = next(i for i, (event, _) in enumerate(order) if event == "finished")
    assert all(event == "scheduled" for event, _ in order[:first_finish])


def test_bounded_job_with_a_two_phase_commit_sink_commits_everything_on_spark(spark_session, tmp_path):
    """The sources may finish before the JobMaster reports RUNNING: their sinks still get a final checkpoint."""
    definition = pipeline([node("gen", "source.datagen", count=600),
                           node("count", "aggregate.reduce", function="count"),
                           node("sink", "sink.file", path=str(tmp_path / "out"))],
                          [edge("gen", "count", "hash", "x % 7"), edge("count", "sink")], parallelism=2)
    job_master, thread, outcome = start(spark_session, definition, tmp_path, lambda event: None)
    thread.join(90)
    if thread.is_alive():
        job_master.cancel()
        thread.join(30)
        pytest.fail("the job did not finish: its sinks never got their final checkpoint")
    assert outcome["value"].status == "FINISHED", outcome["value"].failure_cause
    counts = Counter(key for key, _ in committed(tmp_path / "out"))
    assert counts == Counter(x % 7 for x in range(600))


def test_batch_mode_on_spark_folds_integer_arrays_to_streamings_final_result(spark_session, tmp_path):
    """The partition files a slot reads hand their int64 frames to the hash aggregate as arrays on Spark too."""
    from tests.engine.lifecycle.test_batch_mode import integer_sums

    events = []
    job_master, thread, outcome = start(spark_session, integer_sums("batch", "sum", count=60_000), tmp_path,
                                        events.append)
    thread.join(180)
    assert outcome["value"].status == "FINISHED", outcome["value"].failure_cause
    streaming = LocalCluster(config={"batch_size": 1024}).run(integer_sums("streaming", "sum", count=60_000),
                                                               timeout=60)
    assert Counter(map(tuple, outcome["value"].collected["out"])) == \
        Counter(map(tuple, final_per_key(streaming.collected["out"])))
    folded = {}
    for event in events:
        if event["type"] == "metrics":
            for task, figures in (event.get("tasks") or {}).items():
                if task.startswith("agg#") and "columnar_folded_records" in figures:
                    folded[task] = figures["columnar_folded_records"]
    assert sum(folded.values()) == 60_000, folded
