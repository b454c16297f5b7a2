"""The completion guard: a job whose driver may have been fenced completes no checkpoint.

A driver that stalled wakes up fenced: another driver took the job over and chose the checkpoint it
goes on from. Until the old driver learns it, its JobMaster must not write a newer ``_metadata`` nor
let its sinks commit: the records between would be committed by both. The JobMaster asks
``may_complete_checkpoint`` right before (and after) it writes a checkpoint's ``_metadata``; here the
guard says no from the moment the take-over chose, and the job resumed from that choice commits every
record once.

The job that took over goes on in the same checkpoint directory while the fenced one may still run:
the guard gates triggers too, a checkpoint's directory is made as it is triggered, and a job numbers
its checkpoints after every one present, so the fenced job never deletes or writes into a checkpoint
of the job that took over.
"""
from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import pytest

from engine.api import InProcess, job_master_for, latest_checkpoint, run
from engine.checkpoint.coordinator import GUARD_REFUSED, CheckpointCoordinator, CheckpointException
from engine.checkpoint.storage import TRIGGERED_FILE, CheckpointStorage, load_metadata, read_state_file
from tests.builders import edge, node, pipeline
from tests.support import assert_exactly_once, wait_until

COUNT = 3000


def generator_to_file(output: Path, rate: int) -> dict:
    return pipeline([node("gen", "source.datagen", count=COUNT, rate=rate), node("out", "sink.file", path=str(output))],
                    [edge("gen", "out")], interval_ms=30)


def committed(output: Path) -> Counter:
    return Counter(int(line) for part in output.glob("part-*.jsonl") for line in part.read_text().splitlines() if line)


class Guard:
    """A completion guard saying what ``holds`` says, counting the questions for a test to wait on."""

    def __init__(self, holds: bool = True):
        self.holds = holds
        self.asked = 0
        self._asked = threading.Condition()

    def __call__(self) -> bool:
        with self._asked:
            self.asked += 1
            self._asked.notify_all()
            return self.holds

    def wait_asked(self, count: int, what: str, timeout: float = 30) -> None:
        with self._asked:
            assert self._asked.wait_for(lambda: self.asked >= count, timeout), f"timed out waiting for {what}"


class Checkpoints:
    """The checkpoint events of a job, for a test to wait on."""

    def __init__(self):
        self.events: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, event: dict) -> None:
        if event.get("type") == "checkpoint" and event["event"] in ("triggered", "completed", "failed"):
            with self._lock:
                self.events.append(event)

    def ended(self, event: str, after: int = 0) -> list[dict]:
        with self._lock:
            return [e for e in self.events if e["event"] == event and e["id"] > after]


def test_a_job_whose_guard_says_no_completes_no_checkpoint_and_the_taken_over_job_commits_every_record_once(
        tmp_path):
    output, checkpoints = tmp_path / "out", tmp_path / "checkpoints"
    guard = Guard()
    seen = Checkpoints()
    old = job_master_for(generator_to_file(output, rate=1000), InProcess(), checkpoint_dir=str(checkpoints),
                         on_event=seen, may_complete_checkpoint=guard).start()
    wait_until(lambda: seen.ended("completed"), 30, "a completed checkpoint")

    guard.holds = False  # fenced: from here on another driver holds the job
    flipped = guard.asked
    last = max(e["id"] for e in seen.ended("completed"))
    # asked after the flip: a checkpoint completing as the flip came is not in doubt any more
    guard.wait_asked(flipped + 1, "the guard to be asked after the flip")
    chosen = latest_checkpoint(str(checkpoints))  # the take-over chooses the checkpoint it goes on from
    guard.wait_asked(guard.asked + 3, "the job to try checkpointing after the take-over chose")
    old.cancel()  # what its driver does once its heartbeat finds it fenced
    assert old.wait(60).status == "CANCELED"

    assert not seen.ended("completed", after=last), "no checkpoint completed once the guard said no"
    refused = seen.ended("failed", after=last)
    cancelled = "the job ended before the checkpoint completed"
    assert {e["failure_message"] for e in refused} <= {GUARD_REFUSED, cancelled}, refused
    assert latest_checkpoint(str(checkpoints))["checkpoint_id"] == chosen["checkpoint_id"] == last
    assert max(int(p.name.removeprefix("chk-")) for p in checkpoints.iterdir() if (p / "_metadata").exists()) == last, \
        "no _metadata of a checkpoint after the flip"

    result = run(generator_to_file(output, rate=0), InProcess(), checkpoint_dir=str(tmp_path / "taken-over"),
                 restore=chosen["location"], timeout=120)
    assert result.status == "FINISHED", result.failure_cause
    assert_exactly_once(committed(output), Counter(range(COUNT)), "the fenced job and the one that took over")


def test_a_guard_refusal_is_not_a_checkpoint_failure_the_job_goes_on_and_completes_once_confirmed(tmp_path):
    """The guard cannot tell "fenced" from "not confirmed yet" (a slow heartbeat): its no skips the triggers
    without a failure (``tolerable_failures`` is 0 here), and the job completes the next one it may."""
    output = tmp_path / "out"
    guard = Guard(holds=False)
    seen = Checkpoints()
    job = job_master_for(generator_to_file(output, rate=2000), InProcess(), checkpoint_dir=str(tmp_path / "c"),
                         on_event=seen, may_complete_checkpoint=guard).start()
    guard.wait_asked(3, "triggers the guard refused")
    assert job.status == "RUNNING" and not committed(output), "nothing committed while the guard says no"
    assert not seen.events and not list((tmp_path / "c").glob("chk-*")), "no checkpoint taken while it says no"
    guard.holds = True
    assert job.wait(120).status == "FINISHED"
    assert_exactly_once(committed(output), Counter(range(COUNT)))


def test_a_fenced_job_failing_its_pending_checkpoint_leaves_the_checkpoints_of_the_job_that_took_over_intact(
        tmp_path):
    """The fenced job has a checkpoint pending (its state uploads held) when its guard starts saying no; the
    job that took over restores from the latest completed one in the same directory and completes its own.
    Then the fenced job's uploads go on (late) and its pending checkpoint fails, which deletes its location:
    the taken-over job's checkpoints have ids above it, and keep their ``_metadata`` and state files."""
    checkpoints = tmp_path / "checkpoints"
    definition = pipeline([node("gen", "source.datagen", count=10 ** 7, rate=500), node("out", "sink.collect")],
                          [edge("gen", "out")], interval_ms=30, checkpointing={"retained": 100})
    stall, release, held = threading.Event(), threading.Event(), []

    def hold_uploads(point, task, info):
        if point == "async_upload" and stall.is_set():
            held.append(info["checkpoint_id"])
            release.wait(60)
        return False

    guard, seen_old, seen_new = Guard(), Checkpoints(), Checkpoints()
    old = job_master_for(definition, InProcess(), checkpoint_dir=str(checkpoints), on_event=seen_old,
                         kill_hook=hold_uploads, may_complete_checkpoint=guard).start()
    new = None
    try:
        wait_until(lambda: seen_old.ended("completed"), 30, "a completed checkpoint of the old job")
        stall.set()
        pending = wait_until(lambda: held and held[0], 30, "a checkpoint of the old job pending")
        guard.holds = False  # the window ran out: the take-over chooses now
        chosen = latest_checkpoint(str(checkpoints))
        assert chosen["checkpoint_id"] < pending

        new = job_master_for(definition, InProcess(), checkpoint_dir=str(checkpoints), restore=chosen["location"],
                             on_event=seen_new).start()
        wait_until(lambda: len(seen_new.ended("completed")) >= 2, 60, "checkpoints of the job that took over")
        ids = {e["id"] for e in seen_new.ended("triggered")}

        release.set()  # the fenced job's uploads go on: late state writes, then its pending checkpoint fails
        failed = wait_until(lambda: [e for e in seen_old.ended("failed") if e["id"] == pending], 30,
                            "the fenced job's pending checkpoint to fail")
        assert failed[0]["failure_message"] == GUARD_REFUSED
        assert not (checkpoints / f"chk-{pending}" / "_metadata").exists()
        old.cancel()
        assert old.wait(60).status == "CANCELED"

        kept = new.job_master.coordinator.completed_checkpoints()
        assert len(kept) >= 2
        for metadata in kept:  # _metadata and every state file as the job that took over wrote them
            location = load_metadata(metadata["location"])["location"]
            handles = [h for h in metadata["tasks"].values() if isinstance(h, dict) and h.get("path")]
            assert handles, metadata
            for handle in handles:
                read_state_file(location, handle)  # checks the digest its _metadata holds
        assert latest_checkpoint(str(checkpoints))["checkpoint_id"] >= kept[-1]["checkpoint_id"]
        assert min(ids) > pending, "the ids of the job that took over are above the fenced job's"
    finally:
        release.set()
        old.cancel()
        if new is not None:
            new.cancel()
            new.wait(60)


class FakeSlot:
    def __init__(self):
        self.triggers: list[int] = []

    def trigger_checkpoint(self, checkpoint_id, timestamp_ms, options):
        self.triggers.append(checkpoint_id)

    def notify_checkpoint_complete(self, checkpoint_id):
        pass

    def notify_checkpoint_aborted(self, checkpoint_id):
        pass


def coordinator_of(url: str, guard=None, slot=None, **settings) -> CheckpointCoordinator:
    return CheckpointCoordinator({"interval_ms": 0, **settings}, CheckpointStorage(url), [slot or FakeSlot()],
                                 [("a", 0)], may_complete_checkpoint=guard)


def test_a_guard_that_says_no_takes_no_id_makes_no_directory_and_sends_no_trigger(tmp_path):
    slot, events, failures = FakeSlot(), [], []
    guard = Guard(holds=False)
    coordinator = CheckpointCoordinator({"interval_ms": 10, "tolerable_failures": 0}, CheckpointStorage(str(tmp_path)),
                                        [slot], [("a", 0)], events.append, on_failure=failures.append,
                                        may_complete_checkpoint=guard)
    coordinator.start()
    try:
        guard.wait_asked(3, "periodic triggers the guard refused")
        with pytest.raises(CheckpointException, match="completion guard"):
            coordinator.trigger_checkpoint().result(0)
        with pytest.raises(CheckpointException, match="completion guard"):
            coordinator.trigger_savepoint(str(tmp_path / "sp")).result(0)
        assert not slot.triggers and not events and not failures and not list(tmp_path.iterdir())
        assert coordinator.stats.snapshot()["counts"]["failed"] == 0
        guard.holds = True
        wait_until(lambda: slot.triggers, 30, "a trigger once the guard says yes")
        assert slot.triggers[0] == 1, "the refused triggers took no id"
    finally:
        coordinator.shutdown()


def test_a_guard_that_says_no_once_the_directory_was_made_sends_no_trigger_and_leaves_the_directory(tmp_path):
    """The claim may outlast the guard's yes: by then the directory may be the job's that took over."""
    answers = iter([True, False])
    slot = FakeSlot()
    coordinator = coordinator_of(str(tmp_path), guard=lambda: next(answers), slot=slot)
    with pytest.raises(CheckpointException, match="completion guard"):
        coordinator.trigger_checkpoint().result(0)
    assert not slot.triggers and (tmp_path / "chk-1").is_dir()
    coordinator.shutdown()


@pytest.mark.parametrize("url", ["local", "memory://fencing-claims"])
def test_a_checkpoint_directory_is_there_from_its_trigger_and_ids_start_after_every_one_present(tmp_path, url):
    import fsspec

    root = str(tmp_path / "c") if url == "local" else f"{url}/{tmp_path.name}"
    fs, path = fsspec.core.url_to_fs(root)
    for name in ("chk-3", "chk-9", "chk-x", "chk-12.tmp"):  # chk-9: pending (or failed) elsewhere
        fs.makedirs(f"{path}/{name}", exist_ok=True)
        fs.pipe_file(f"{path}/{name}/{TRIGGERED_FILE}", b"")
    CheckpointStorage(root).write_metadata(f"{root}/chk-5", {"checkpoint_id": 5, "tasks": {}})
    slot = FakeSlot()
    coordinator = CheckpointCoordinator({"interval_ms": 0}, CheckpointStorage(root), [slot], [("a", 0)],
                                        restored_from={"checkpoint_id": 5, "location": f"{root}/chk-5"})
    coordinator.trigger_checkpoint()
    assert slot.triggers == [10], "after every chk-<id> present, not only after the restored one"
    assert fs.isdir(f"{path}/chk-10") and not fs.exists(f"{path}/chk-10/_metadata")
    if url != "local":
        assert fs.exists(f"{path}/chk-10/{TRIGGERED_FILE}"), "an object store keeps no empty directory"
    assert CheckpointStorage(root).highest_checkpoint_id() == 10
    coordinator.shutdown()


def test_a_checkpoint_whose_directory_cannot_be_made_fails_counted_without_a_trigger(tmp_path):
    class Broken(CheckpointStorage):
        def claim(self, location):
            raise OSError("no space left")

    slot, failures = FakeSlot(), []
    coordinator = CheckpointCoordinator({"interval_ms": 0, "tolerable_failures": 0}, Broken(str(tmp_path)), [slot],
                                        [("a", 0)], on_failure=failures.append)
    with pytest.raises(CheckpointException, match="could not make the checkpoint directory: no space left"):
        coordinator.trigger_checkpoint().result(0)
    assert not slot.triggers and failures and coordinator.stats.snapshot()["counts"]["failed"] == 1
    coordinator.shutdown()


@pytest.mark.spark
@pytest.mark.timeout(600)
def test_on_spark_the_job_taking_over_numbers_after_every_checkpoint_present_and_commits_every_record_once(
        spark_session, tmp_path):
    """The same take-over on Spark, in the same directory: the fenced job's checkpoint still pending there
    (its directory made at its trigger) keeps its id; the job that took over numbers above it, its slots'
    state files restore from their new names, and the output is exact."""
    from engine.api import Spark

    output, checkpoints = tmp_path / "out", tmp_path / "checkpoints"
    guard, seen = Guard(), Checkpoints()
    old = job_master_for(generator_to_file(output, rate=1000), Spark(session=spark_session),
                         checkpoint_dir=str(checkpoints), on_event=seen, may_complete_checkpoint=guard).start()
    wait_until(lambda: seen.ended("completed"), 240, "a completed checkpoint on Spark")
    guard.holds = False
    guard.wait_asked(guard.asked + 1, "the guard to be asked after the flip")
    chosen = latest_checkpoint(str(checkpoints))
    old.cancel()
    assert old.wait(120).status == "CANCELED"
    still_pending = checkpoints / f"chk-{chosen['checkpoint_id'] + 2}"
    still_pending.mkdir()  # the fenced job's, which it may still fail and delete

    seen_new = Checkpoints()
    result = run(generator_to_file(output, rate=0), Spark(session=spark_session), checkpoint_dir=str(checkpoints),
                 restore=chosen["location"], on_event=seen_new, timeout=300)
    assert result.status == "FINISHED", result.failure_cause
    ids = [e["id"] for e in seen_new.ended("completed")]
    assert ids and min(ids) > chosen["checkpoint_id"] + 2, ids
    assert_exactly_once(committed(output), Counter(range(COUNT)), "the fenced job and the one that took over")
