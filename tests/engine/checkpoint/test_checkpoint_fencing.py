"""The completion guard: a job whose driver may have been fenced completes no checkpoint.

A driver that stalled wakes up fenced: another driver took the job over and chose the checkpoint it
goes on from. Until the old driver learns it, its JobMaster must not write a newer ``_metadata`` nor
let its sinks commit: the records between would be committed by both. The JobMaster asks
``may_complete_checkpoint`` right before (and after) it writes a checkpoint's ``_metadata``; here the
guard says no from the moment the take-over chose, and the job resumed from that choice commits every
record once.
"""
from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

from engine.api import InProcess, job_master_for, latest_checkpoint, run
from engine.checkpoint.coordinator import GUARD_REFUSED
from tests.builders import edge, node, pipeline
from tests.support import assert_exactly_once, wait_until

COUNT = 3000


def generator_to_file(output: Path, rate: int) -> dict:
    return pipeline([node("gen", "source.datagen", count=COUNT, rate=rate), node("out", "sink.file", path=str(output))],
                    [edge("gen", "out")], interval_ms=30)


def committed(output: Path) -> Counter:
    return Counter(int(line) for part in output.glob("part-*.jsonl") for line in part.read_text().splitlines() if line)


class Checkpoints:
    """The checkpoint events of a job, for a test to wait on."""

    def __init__(self):
        self.events: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, event: dict) -> None:
        if event.get("type") == "checkpoint" and event["event"] in ("completed", "failed"):
            with self._lock:
                self.events.append(event)

    def ended(self, event: str, after: int = 0) -> list[dict]:
        with self._lock:
            return [e for e in self.events if e["event"] == event and e["id"] > after]


def test_a_job_whose_guard_says_no_completes_no_checkpoint_and_the_taken_over_job_commits_every_record_once(
        tmp_path):
    output, checkpoints = tmp_path / "out", tmp_path / "checkpoints"
    holds = threading.Event()
    holds.set()
    seen = Checkpoints()
    old = job_master_for(generator_to_file(output, rate=1000), InProcess(), checkpoint_dir=str(checkpoints),
                         on_event=seen, may_complete_checkpoint=holds.is_set).start()
    wait_until(lambda: seen.ended("completed"), 30, "a completed checkpoint")

    holds.clear()  # fenced: from here on another driver holds the job
    last = max(e["id"] for e in seen.ended("completed"))
    # a checkpoint after the flip has ended: none completing as the flip came is in doubt any more
    wait_until(lambda: seen.ended("failed", after=last) or seen.ended("completed", after=last), 30,
               "a checkpoint to end after the flip")
    chosen = latest_checkpoint(str(checkpoints))  # the take-over chooses the checkpoint it goes on from
    wait_until(lambda: len(seen.ended("failed", after=chosen["checkpoint_id"])) >= 3
               or seen.ended("completed", after=chosen["checkpoint_id"]), 30,
               "the job to try completing checkpoints after the take-over chose")
    old.cancel()  # what its driver does once its heartbeat finds it fenced
    assert old.wait(60).status == "CANCELED"

    assert not seen.ended("completed", after=last), "no checkpoint completed once the guard said no"
    refused = seen.ended("failed", after=last)
    cancelled = "the job ended before the checkpoint completed"
    assert refused and {e["failure_message"] for e in refused} <= {GUARD_REFUSED, cancelled}, refused
    assert latest_checkpoint(str(checkpoints))["checkpoint_id"] == chosen["checkpoint_id"] == last
    assert max(int(p.name.removeprefix("chk-")) for p in checkpoints.iterdir() if (p / "_metadata").exists()) == last, \
        "no _metadata of a checkpoint after the flip"

    result = run(generator_to_file(output, rate=0), InProcess(), checkpoint_dir=str(tmp_path / "taken-over"),
                 restore=chosen["location"], timeout=120)
    assert result.status == "FINISHED", result.failure_cause
    assert_exactly_once(committed(output), Counter(range(COUNT)), "the fenced job and the one that took over")


def test_a_guard_refusal_is_not_a_checkpoint_failure_the_job_goes_on_and_completes_once_confirmed(tmp_path):
    """The guard cannot tell "fenced" from "not confirmed yet" (a slow heartbeat): its no fails the checkpoint
    without counting towards ``tolerable_failures`` (0 here), and the job completes the next one it may."""
    output = tmp_path / "out"
    holds = threading.Event()
    seen = Checkpoints()
    job = job_master_for(generator_to_file(output, rate=2000), InProcess(), checkpoint_dir=str(tmp_path / "c"),
                         on_event=seen, may_complete_checkpoint=holds.is_set).start()
    wait_until(lambda: len(seen.ended("failed")) >= 2, 30, "checkpoints refused")
    assert job.status == "RUNNING" and not committed(output), "nothing committed while the guard says no"
    holds.set()
    assert job.wait(120).status == "FINISHED"
    assert_exactly_once(committed(output), Counter(range(COUNT)))
