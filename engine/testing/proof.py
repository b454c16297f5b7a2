"""The exactly-once proof of a pipeline: a test case run while its subtasks are killed, compared
with a failure-free run.

1. The test case's job runs once without failures (the *reference*; ``harness.proof_job``:
   the pipeline's parallelism, its checkpoints every ``interval_ms``, every sink's committed
   output in the proof's directory). Its sources are paced to a number of records per
   checkpoint, so the job takes several checkpoints whatever the size of the input.
2. The same job runs again under a kill schedule drawn from a seed (``kill_schedule``):
   subtasks die at random points -- polling a source, processing a batch, aligning a
   barrier, before and after the synchronous snapshot, during the upload, before the
   acknowledgement, between a completed checkpoint and its commit, after it, halfway into
   a two-phase-commit sink's batch -- and the job restores its latest completed checkpoint
   each time. Its last kill of this first phase ends the job (its restarts are used up);
   the second phase restores that job's latest checkpoint at another parallelism (one
   more subtask for every node past the sources' chain) and goes on being killed to the end.
   On Spark a kill is a SIGKILL of the slot's Python worker.
3. Every sink's committed output must equal the reference's, as multisets: nothing lost,
   nothing doubled. If it does not, a failure-free run at the second parallelism tells an
   exactly-once failure (it equals the reference) from a pipeline whose output depends on
   its parallelism (it does not: the proof is inconclusive).

The result names the seed: the same seed, test case and pipeline draw the same schedule,
so a failure replays. ``kills_fired`` lists the kills that happened (a kill planned for a
point a job did not reach again before its input ended does not happen).
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
from collections import Counter
from pathlib import Path
from typing import Callable

from engine.checkpoint.storage import CheckpointStorage
from engine.cluster.deployments import Deployment, InProcess, run
from engine.runtime.grants import Grants
from engine.runtime.kill_hooks import KillPlan, PlannedKill
from engine.testing.harness import CaseError, proof_job, read_rows, sinks_of, write_inputs, writes_files
from engine.testing.kill_schedule import draw_kills, phase_tasks
from engine.testing.records import describe_difference, multiset, multiset_difference

DEFAULT_KILLS = 10
CHECKPOINT_INTERVAL_MS = 20
BATCH_SIZE = 8


def prove_exactly_once(definition: dict, case: dict, deployment: Deployment, *, workdir: Path,
                       kills: int = DEFAULT_KILLS, seed: int | None = None, rescale: bool = True,
                       timeout: float = 600.0, resolve_file: Callable[[str], Path] | None = None,
                       grants: Grants | None = None, on_progress: Callable[[str], None] | None = None,
                       sink_targets: "SinkTargets | None" = None) -> dict:
    """Prove (or refute) that ``definition`` is exactly once on ``case``'s input, on ``deployment``;
    ``sink_targets`` says where the runs write (default: files in ``workdir``)."""
    started = time.monotonic()
    seed = random.randrange(2 ** 31) if seed is None else int(seed)
    workdir = Path(workdir)
    progress = on_progress or (lambda _: None)
    result: dict = {"test_case": case["name"], "seed": seed, "kills": kills, "rescale": rescale,
                    "deployment": "spark" if not isinstance(deployment, InProcess) else "inprocess",
                    "status": "error", "phases": []}

    def remaining() -> float:
        left = timeout - (time.monotonic() - started)
        if left <= 1:
            raise TimeoutError(f"the proof did not end within its {timeout:g} s")
        return left

    try:
        inputs = write_inputs(definition, case, workdir / "inputs", resolve_file)
        rows = sum(len(read_rows(path)) for path in inputs.values())
        per_checkpoint = max(1, math.ceil(rows / (3 * (kills + 2))))
        config = {"mocks": dict(case.get("mocks") or {}), "batch_size": min(BATCH_SIZE, per_checkpoint),
                  "source_pacing": {"records_per_checkpoint": per_checkpoint}}
        paced = dataclasses.replace(deployment, config={**deployment.config, **config})
        result.update(rows=rows, records_per_checkpoint=per_checkpoint)

        progress("reference run")
        targets = sink_targets or SinkTargets(workdir)
        reference_job = _proof_job(definition, case, inputs, targets, "reference", 0)
        reference = run(reference_job, paced, checkpoint_dir=str(workdir / "reference" / "checkpoints"),
                        timeout=remaining(), grants=grants)
        if reference.status != "FINISHED":
            raise _Failed(f"the failure-free run failed: {(reference.failure or reference.status).splitlines()[0]}")
        expected = read_outputs(reference_job, targets, "reference")
        result["sinks"] = {sink: {"expected": sum(records.values())} for sink, records in expected.items()}

        first_job = _proof_job(definition, case, inputs, targets, "proof", 0)
        second_job = _proof_job(definition, case, inputs, targets, "proof", 1 if rescale else 0)
        busy = _busy_tasks(reference)
        phases = [phase_tasks(first_job, busy)]
        if rescale:
            phases.append(phase_tasks(second_job, busy))
        schedule = draw_kills(seed, kills, phases, mid_batch=config["batch_size"] >= 2 * _parallelism_of(second_job))
        result["planned"] = [[kill.describe() for kill in phase] for phase in schedule]

        restore = None
        for number, (planned, job) in enumerate(zip(schedule, (first_job, second_job))):
            last_phase = number == len(schedule) - 1
            attempts = len(planned) if last_phase else max(0, len(planned) - 1)
            job = {**job, "restart": {"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 0}}
            plan = KillPlan(tuple(planned), crash="exit", record_dir=str(workdir / "proof" / f"kills-{number + 1}"))
            checkpoints = workdir / "proof" / f"checkpoints-{number + 1}"
            progress(f"phase {number + 1}: {len(planned)} kills at parallelism {_parallelism_of(job)}")
            ran = run(job, paced, checkpoint_dir=str(checkpoints), restore=restore, timeout=remaining(),
                      grants=grants, kill_plan=plan)
            fired = plan.recorded()
            result["phases"].append({"parallelism": _parallelism_of(job), "status": ran.status,
                                     "restarts": ran.restarts, "restored_from": (restore or {}).get("checkpoint_id"),
                                     "kills_planned": len(planned), "kills_fired": len(fired),
                                     "checkpoints": ran.checkpoints.get("counts", {}).get("completed", 0),
                                     "fired": [_fired(kill) for kill in fired]})
            if not last_phase:
                restore = CheckpointStorage(str(checkpoints)).latest_completed()
                if ran.status == "FINISHED" or restore is None:
                    result["phases"][-1]["note"] = ("its input ended before its last kill" if ran.status == "FINISHED"
                                                    else "it completed no checkpoint to restore")
                    if restore is None:
                        raise _Failed("the first phase completed no checkpoint: the second has nothing to restore")
            elif ran.status != "FINISHED":
                raise _Failed(f"the killed job did not recover: {(ran.failure or ran.status).splitlines()[0]}")
        result["kills_fired"] = sum(phase["kills_fired"] for phase in result["phases"])

        found = read_outputs(first_job, targets, "proof")
        differences = {sink: multiset_difference(_expand(expected.get(sink)), _expand(found.get(sink)))
                       for sink in sorted(set(expected) | set(found))}
        for sink, difference in differences.items():
            result["sinks"].setdefault(sink, {}).update(
                found=sum((found.get(sink) or Counter()).values()),
                missing=difference["missing_count"] if difference else 0,
                doubled=difference["unexpected_count"] if difference else 0)
        failed = {sink: difference for sink, difference in differences.items() if difference}
        if not failed:
            result["status"] = "passed"
        else:
            sink, difference = next(iter(failed.items()))
            result["difference"] = {"sink": sink, **difference}
            result["status"] = "failed"
            result["message"] = f"sink '{sink}': {describe_difference(difference)}"
            if rescale:
                progress("failure-free run at the second parallelism")
                result.update(_parallelism_check(definition, case, inputs, workdir, targets, paced, expected,
                                                 remaining(), grants))
        result["replay"] = {"seed": seed, "kills": kills, "rescale": rescale, "test_case": case["name"]}
    except (_Failed, CaseError, TimeoutError) as error:
        result.update(status="error", message=str(error))
    result["duration_s"] = round(time.monotonic() - started, 3)
    return result


class _Failed(Exception):
    """The proof could not be carried out (not a verdict on exactly-once)."""


def _proof_job(definition, case, inputs, targets: "SinkTargets", run_name: str, rescale: int) -> dict:
    job = proof_job(definition, case, inputs, lambda node: targets.sink_node(node, run_name), rescale)
    job["checkpointing"] = {**job["checkpointing"], "interval_ms": CHECKPOINT_INTERVAL_MS, "timeout_ms": 60_000,
                            "min_pause_ms": 0, "max_concurrent": 1, "tolerable_failures": 10_000, "retained": 3,
                            "enabled": True}
    job["restart"] = {"strategy": "none", "attempts": 0, "delay_ms": 0}
    return job


def _parallelism_check(definition, case, inputs, workdir, targets, paced, expected, timeout, grants) -> dict:
    """Whether the output depends on the parallelism: a failure-free run at the second one."""
    job = _proof_job(definition, case, inputs, targets, "rescaled-reference", 1)
    checked = run(job, paced, checkpoint_dir=str(workdir / "rescaled-reference" / "checkpoints"), timeout=timeout,
                  grants=grants)
    if checked.status != "FINISHED":
        return {}
    if read_outputs(job, targets, "rescaled-reference") != expected:
        return {"status": "inconclusive",
                "message": "without any failure the output at the second parallelism differs from the first: the "
                           "pipeline's output depends on its parallelism, so differences after kills prove nothing "
                           "(run the proof without rescaling)"}
    return {}


class SinkTargets:
    """Where each run of a proof writes a sink, and how its committed output is read back.

    ``run`` is ``reference`` (the failure-free run), ``proof`` (both killed phases: the second
    recovers what the first left) or ``rescaled-reference``; each must write somewhere of its own.
    This default writes into the proof's directory: a sink writing files (``sink.file``,
    ``sink.parquet``) keeps its type there, any other becomes ``sink.file``, so a proof never
    writes into a pipeline's real targets. A caller proving external sinks themselves gives
    targets of its own (tests: a table, a stream, a topic per run)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def sink_node(self, node: dict, run: str) -> dict:
        """The sink's ``{"type", "params"}`` in run ``run``."""
        path = str(self.directory / run / "outputs" / node["id"])
        if writes_files(node["type"]):
            return {"type": node["type"], "params": {**node["params"], "path": path}}
        return {"type": "sink.file", "params": {"path": path}}

    def read(self, node: dict, run: str) -> list:
        """The sink's committed records after run ``run`` (its visible files)."""
        directory = self.directory / run / "outputs" / node["id"]
        if node["type"] == "sink.parquet":
            import pyarrow.parquet as parquet

            return [row for path in sorted(directory.rglob("part-*.parquet"))
                    for row in parquet.read_table(path).to_pylist()]
        return [row for path in sorted(directory.rglob("part-*")) if path.suffix != ".parquet"
                for row in read_rows(path)]


def read_outputs(definition: dict, targets: SinkTargets, run: str) -> dict[str, Counter]:
    """Each sink's committed records after run ``run``, as a multiset of JSON texts."""
    return {node["id"]: multiset(targets.read(node, run)) for node in sinks_of(definition)}


def _expand(counts: Counter | None) -> list:
    import json

    return [json.loads(text) for text, count in (counts or Counter()).items() for _ in range(count)]


def _busy_tasks(reference) -> set[tuple[str, int]]:
    """The subtasks that received records in the failure-free run (a kill at 'process' reaches them)."""
    metrics = next((event for event in reversed(reference.events) if event["type"] == "metrics"), {})
    busy = set()
    for name, values in (metrics.get("tasks") or {}).items():
        vertex, _, index = name.rpartition("#")
        if values.get("records_in", 0) > 0:
            busy.add((vertex, int(index)))
    return busy


def _parallelism_of(job: dict) -> int:
    return max(node.get("parallelism", 1) for node in job["nodes"])


def _fired(kill: dict) -> dict:
    described = PlannedKill.from_dict(kill).describe()
    info = kill.get("info") or {}
    if info.get("checkpoint_id") is not None:
        described += f" (checkpoint {info['checkpoint_id']})"
    return {"kill": described, **kill}
