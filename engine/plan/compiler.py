"""Compile a pipeline definition into everything the JobMaster schedules from.

definition → JobGraph (chaining) → ExecutionGraph (groups) → pipelined regions. The
result bundles the three and hands out the strategies that work on them.

Used by the JobMaster::

    plan = compile_plan(definition)
    strategy = plan.scheduling_strategy(schedule_region=submit_barrier_stage)
    failover = plan.failover_strategy()
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.plan.execution_graph import ExecutionGraph, build_execution_graph
from engine.plan.failover import RestartPipelinedRegionFailoverStrategy
from engine.plan.job_graph import JobGraph, build_job_graph
from engine.plan.pipelined_regions import PipelinedRegions, compute_pipelined_regions
from engine.plan.scheduling_strategy import PipelinedRegionSchedulingStrategy, ScheduleRegion


@dataclass
class CompiledPlan:
    """The three planning stages of one pipeline, built once and shared."""

    job_graph: JobGraph
    execution_graph: ExecutionGraph
    regions: PipelinedRegions

    def scheduling_strategy(self, schedule_region: ScheduleRegion) -> PipelinedRegionSchedulingStrategy:
        """Return a new strategy over this plan (one at a time: it updates partition state)."""
        return PipelinedRegionSchedulingStrategy(self.execution_graph, self.regions, schedule_region)

    def failover_strategy(self) -> RestartPipelinedRegionFailoverStrategy:
        return RestartPipelinedRegionFailoverStrategy(self.execution_graph, self.regions)


def compile_job_graph(job_graph: JobGraph) -> CompiledPlan:
    """Build the ExecutionGraph and the regions of a JobGraph."""
    execution_graph = build_execution_graph(job_graph)
    return CompiledPlan(job_graph, execution_graph, compute_pipelined_regions(execution_graph))


def compile_plan(definition: dict) -> CompiledPlan:
    """Compile a (validated) pipeline definition."""
    return compile_job_graph(build_job_graph(definition))
