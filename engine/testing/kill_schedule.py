"""Kill schedules drawn from a seed: which subtask of a proof's job dies where, attempt by attempt.

The same seed and the same jobs draw the same schedule, so a proof's failure replays. Every
kill of a phase is one attempt of its job (``engine.runtime.kill_hooks``): the first may
strike any subtask; each later one strikes the region the previous kill restarted (a
streaming job's failover redeploys the failed region only, and a kill can only fire in a
slot that attempt deployed). Points are drawn among those the subtask will reach: a
source polls, a subtask with inputs aligns barriers, a subtask that received records in
the failure-free run processes batches, a two-phase-commit sink writes half a batch; every
subtask snapshots, uploads, acknowledges and commits at each checkpoint. An occurrence of
one or two checkpoints (up to four batches) lets each attempt move on before it dies.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from engine.plan.plan_summary import plan_pipeline
from engine.runtime.kill_hooks import PlannedKill

CHECKPOINT_POINTS = ("snapshot", "async_upload", "before_ack", "before_commit", "after_commit")
TWO_PHASE_COMMIT_SINKS = frozenset({"sink.file", "sink.parquet", "sink.postgres", "sink.redis_stream"})
"""Sinks that write through the two-phase-commit template's batches (where ``mid_batch`` is)."""


@dataclass(frozen=True)
class TaskInfo:
    """What a kill schedule needs to know of one subtask."""

    task: tuple[str, int]
    region: str
    is_source: bool
    busy: bool
    """It received records in the failure-free run (for a rescaled job: every subtask of its vertex did)."""
    two_phase_sink: bool

    def points(self, mid_batch: bool) -> list[str]:
        points = ["source_poll"] if self.is_source else ["barrier"]
        points += CHECKPOINT_POINTS
        if self.busy and not self.is_source:
            points.append("process")
            if self.two_phase_sink and mid_batch:
                points.append("mid_batch")
        return points


def phase_tasks(job: dict, busy: set[tuple[str, int]]) -> list[TaskInfo]:
    """The subtasks of a (normalised) job, with what the failure-free run ``busy`` says of them."""
    summary = plan_pipeline(job)
    types = {node["id"]: node["type"] for node in job["nodes"]}
    vertices = {vertex["id"]: vertex for vertex in summary["job_vertices"]}
    busy_vertices = {vertex for vertex, _ in busy}
    fully_busy = {vertex for vertex in busy_vertices
                  if all((vertex, index) in busy for index in range(_reference_parallelism(busy, vertex)))}
    tasks = []
    for region in summary["regions"]:
        for vertex_id, indices in region["vertices"].items():
            vertex = vertices[vertex_id]
            sink = any(types.get(node) in TWO_PHASE_COMMIT_SINKS for node in vertex["operators"])
            for index in indices:
                seen = (vertex_id, index) in busy if index < _reference_parallelism(busy, vertex_id) else False
                tasks.append(TaskInfo((vertex_id, index), region["id"], vertex["is_source"],
                                      seen if vertex_id not in fully_busy else True, sink))
    return tasks


def _reference_parallelism(busy: set[tuple[str, int]], vertex: str) -> int:
    indices = [index for name, index in busy if name == vertex]
    return max(indices) + 1 if indices else 0


def draw_kills(seed: int, kills: int, phases: list[list[TaskInfo]], *, mid_batch: bool = True
               ) -> list[list[PlannedKill]]:
    """``kills`` kills over the phases (the second phase, a rescaled restore, gets a third of them),
    each phase's numbered by the attempts of its job."""
    chance = random.Random(seed)
    if len(phases) == 1:
        shares = [kills]
    else:
        later = kills // 3
        shares = [kills - later, later]
    schedule = []
    for tasks, share in zip(phases, shares):
        planned, region = [], None
        for attempt in range(share):
            candidates = [task for task in tasks if region is None or task.region == region]
            victim = chance.choice(candidates)
            point = chance.choice(victim.points(mid_batch))
            occurrence = chance.randint(1, 4) if point in ("source_poll", "process", "mid_batch") else \
                chance.randint(1, 2)
            planned.append(PlannedKill(attempt, victim.task, point, occurrence))
            region = victim.region
        schedule.append(planned)
    return schedule
