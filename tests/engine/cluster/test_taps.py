"""Live taps on an edge of a running job, on both deployments: samples arrive within their limits, a slow or
stuck consumer of samples never holds the job back, and a closed tap sends nothing more."""
from __future__ import annotations

import json
import threading

import pytest

from engine.cluster.taps import TapError
from engine.runtime.tap import TapLimits, TapSampler
from tests.support import simple_pipeline, wait_until


def endless(parallelism: int = 2) -> dict:
    definition = simple_pipeline(count=None, rate=2000, parallelism=parallelism, interval_ms=500, name="tapped")
    definition["edges"][1]["partitioning"] = "rebalance"  # double -> out crosses subtasks
    return definition


def records_out(handle) -> float:
    return sum(values.get("records_out", 0) for values in handle.metrics().values())


def test_a_tap_samples_its_edge_within_limits_and_stops_when_closed(deployment, tmp_path):
    handle = deployment.submit(endless(), checkpoint_dir=str(tmp_path))
    try:
        samples: list[dict] = []
        wait_until(lambda: handle.status == "RUNNING", 120, "the job to run")
        tap_id = handle.open_tap("e2", samples.append, {"records_per_second": 10, "max_record_bytes": 64})
        wait_until(lambda: len(samples) >= 4, 60, "four samples of e2")
        assert {sample["tap"] for sample in samples} == {tap_id} and {s["edge"] for s in samples} == {"e2"}
        # e2 leaves double, chained with gen: its samples are double's, named so, not after the chain's head
        assert {sample["task"] for sample in samples} <= {"double#0", "double#1"}
        assert handle.job_master.taps.close(tap_id).subtask_limits["records_per_second"] == 5  # half of 10 each
        handle.job_master.taps.open("e2", samples.append, {"records_per_second": 10}, tap_id=tap_id)
        for sample in list(samples):
            assert sample["records"]  # samples that piled up while one was sent arrive merged, never empty
            assert all(not cut and json.loads(text) % 2 == 0 for text, cut in sample["records"])  # x * 2
            assert sample["ts"] > 0 and sample["dropped"] >= 0
        # 2,000 a second flow, 10 are sampled: the rest is counted as dropped in the next sample
        wait_until(lambda: any(sample["dropped"] > 0 for sample in list(samples)), 60, "a sample counting drops")

        handle.close_tap(tap_id)
        wait_until(lambda: records_out(handle) > 0, 30, "metrics")
        closed_at = len(samples)
        flowed = records_out(handle)
        wait_until(lambda: records_out(handle) > flowed + 2000, 60, "2,000 more records through the job")
        assert len(samples) <= closed_at + 2  # at most what was already on its way from each subtask
    finally:
        handle.cancel()
        handle.wait(120)


def test_a_stuck_sample_consumer_never_backpressures_the_job(deployment, tmp_path):
    handle = deployment.submit(endless(parallelism=1), checkpoint_dir=str(tmp_path))
    stuck = threading.Event()
    try:
        wait_until(lambda: handle.status == "RUNNING", 120, "the job to run")
        handle.open_tap("e1", lambda sample: stuck.wait(), {"records_per_second": 1000})
        wait_until(lambda: records_out(handle) > 0, 30, "metrics")
        before = records_out(handle)
        assert wait_until(lambda: records_out(handle) > before + 4000, 60, "4,000 more records while the sink is stuck")
    finally:
        stuck.set()
        handle.cancel()
        handle.wait(120)


def test_an_unknown_edge_is_refused_by_name(tmp_path):
    from engine.api import InProcess, job_master_for

    job_master = job_master_for(endless(), InProcess(), checkpoint_dir=str(tmp_path))
    with pytest.raises(TapError, match="edge 'nope' is not an edge of this pipeline"):
        job_master.open_tap("nope", print)


def test_the_sampler_keeps_to_its_budget_and_cuts_long_records():
    sampler = TapSampler("t", TapLimits(records_per_second=3, bytes_per_second=100, max_record_bytes=8))
    first = sampler.sample(list(range(100)), now=1000.0)
    assert [json.loads(text) for text, _ in first] == [0, 33, 66] and sampler.dropped == 97
    assert sampler.sample([1, 2], now=1000.5) is None and sampler.dropped == 99  # budget spent this second
    long = sampler.sample(["x" * 50], now=1001.0)
    assert long == [['"xxxxxxx', True]]
    greedy = TapSampler("t", TapLimits(records_per_second=100, bytes_per_second=20, max_record_bytes=10))
    assert len(greedy.sample(["abcdefgh"] * 10, now=0.0)) == 2  # 10 bytes each, 20 bytes a second
    assert TapSampler("t", TapLimits()).sample([{"a": {1, 2}}], now=0.0)[0][0].startswith('{"a":"{1, 2}"')
