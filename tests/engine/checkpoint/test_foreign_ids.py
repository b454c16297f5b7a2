"""Checkpoint ids of another history (``foreign_ids`` in ``_metadata``).

A job numbers its checkpoints after every ``chk-<id>`` of its directory, so that a fenced job that
drove the run before and may still run a while (its driver stalled) never shares an id with the job
that took over (``engine.checkpoint.coordinator``, "Fencing"). What that fenced job pre-commits under
its ids, even after the new job's recovery ran, must never be committed by a later restore of the new
job's history: each completed checkpoint names the ids below it that are not of its history, and a
two-phase-commit sink's recovery rolls those back.
"""
from __future__ import annotations

import json
from pathlib import Path

from engine.checkpoint.storage import load_metadata
from tests.engine.checkpoint.restored_state_support import sink_job, write_snapshot
from tests.engine.deployers import InProcessDeployment

PREFIX = "f0123456789ab"
TOKEN = "0badcafe"


def snapshot_with(directory: Path, definition: dict, **metadata) -> Path:
    snapshot = write_snapshot(directory, definition, {"files": {"transaction_prefix": [PREFIX], "pending": []}})
    written = json.loads((snapshot / "_metadata").read_text())
    (snapshot / "_metadata").write_text(json.dumps({**written, **metadata}))
    return snapshot


def pre_committed(out: Path, sequence: int, checkpoint_id: int) -> tuple[Path, Path]:
    """A file the sink pre-committed for ``checkpoint_id``: ``(its pending name, its final name)``."""
    out.mkdir(exist_ok=True)
    final = out / f"part-files-{PREFIX}-0-{TOKEN}-{sequence}.jsonl"
    pending = out / f".{final.name}.pending-{checkpoint_id}"
    pending.write_text(json.dumps({"from": checkpoint_id}) + "\n")
    return pending, final


def test_a_restore_rolls_back_what_was_pre_committed_under_an_id_of_another_history(deployment, tmp_path):
    definition = sink_job("sink.file", tmp_path / "out", count=10)
    ours_pending, ours = pre_committed(tmp_path / "out", 1, 3)
    theirs_pending, theirs = pre_committed(tmp_path / "out", 2, 4)  # a fenced job's, after this history's restore
    snapshot = snapshot_with(tmp_path / "sp", definition, foreign_ids=[[4, 4]])
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot), timeout=120)
    assert result.status == "FINISHED", result.failure
    assert ours.exists() and not ours_pending.exists(), "a pre-commit of its own history is committed"
    assert not theirs.exists() and not theirs_pending.exists(), "one of another history is rolled back"


def test_a_job_names_the_ids_it_skipped_and_those_its_restored_checkpoint_skipped(tmp_path):
    definition = sink_job("sink.file", tmp_path / "out", count=2000)
    definition["nodes"][0]["params"]["rate"] = 4000
    snapshot = snapshot_with(tmp_path / "sp", definition, foreign_ids=[[2, 3]])
    (tmp_path / "chk" / "chk-7").mkdir(parents=True)  # a fenced job's, still pending
    result = InProcessDeployment().run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot),
                                       timeout=60)
    assert result.status == "FINISHED", result.failure
    completed = [load_metadata(str(path)) for path in sorted((tmp_path / "chk").glob("chk-*"))
                 if (path / "_metadata").exists()]
    assert completed, "no checkpoint completed"
    for metadata in completed:
        assert metadata["checkpoint_id"] >= 8
        assert metadata["foreign_ids"] == [[2, 3], [6, 7]]


def test_ids_of_another_history_that_are_not_ranges_below_the_checkpoint_refuse_it_naming_it(tmp_path):
    definition = sink_job("sink.file", tmp_path / "out", count=10)
    for index, foreign in enumerate(([[3, 9]], [[0, 1]], [[2, 1]], [["1", 2]], "1-2", [[1, 2, 3]])):
        snapshot = snapshot_with(tmp_path / f"sp-{index}", definition, foreign_ids=foreign)
        result = InProcessDeployment().run(definition, checkpoint_dir=str(tmp_path / f"chk-{index}"),
                                           restore=str(snapshot), timeout=60)
        assert result.status == "FAILED", foreign
        assert str(snapshot) in result.failure and "foreign_ids" in result.failure, result.failure
        assert "Traceback" not in result.failure
