"""A driver crash leaves retained checkpoints from which a new run continues exactly once."""
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.conftest import stop_process_tree
from tests.engine.cluster.test_spark_job_master import committed_records, exactly_once_pipeline
from tests.support import wait_until

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]
COUNT = 3000


def start_driver(definition_file: Path, checkpoint_dir: Path, events: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "engine", "run", str(definition_file), "--checkpoint-dir", str(checkpoint_dir),
         *extra], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=open(events, "wb"), stderr=open(events.with_suffix(".log"), "wb"))


def completed_checkpoints(events: Path) -> list[dict]:
    lines = events.read_text().splitlines() if events.exists() else []
    parsed = [json.loads(line) for line in lines if line.startswith("{")]
    return [e for e in parsed if e["type"] == "checkpoint" and e["event"] == "completed"]


def test_new_run_restores_from_the_checkpoints_a_killed_driver_left(tmp_path):
    definition_file = tmp_path / "pipeline.json"
    definition_file.write_text(json.dumps(exactly_once_pipeline(tmp_path / "out", COUNT, rate=500)))
    checkpoints = tmp_path / "checkpoints"
    first_events = tmp_path / "first.jsonl"
    driver = start_driver(definition_file, checkpoints, first_events)
    try:
        wait_until(lambda: len(completed_checkpoints(first_events)) >= 3, 120, "three completed checkpoints")
        family = [driver.pid, *(child.pid for child in psutil.Process(driver.pid).children(recursive=True))]
        os.kill(driver.pid, signal.SIGKILL)  # the driver dies without cleaning anything up
        driver.wait(10)
        wait_until(lambda: not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
                                   for pid in family), 60, "the crashed driver's JVM and workers to exit")
    finally:
        stop_process_tree(driver.pid)
    partial = committed_records(tmp_path / "out")
    assert len(partial) < COUNT

    second_events = tmp_path / "second.jsonl"
    restarted = start_driver(definition_file, checkpoints, second_events, "--restore", "latest")
    assert restarted.wait(240) == 0, second_events.with_suffix(".log").read_text()[-2000:]
    output = committed_records(tmp_path / "out")
    assert len(output) == COUNT, "the new run continued from the checkpoint: nothing lost, nothing doubled"
    assert max(total for key, total in output if key == 0) == sum(range(0, COUNT, 7))
