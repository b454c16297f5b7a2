"""Planning: from a pipeline definition to regions the JobMaster schedules (seed 002).

Stages, one module each:

- ``job_graph``: operators chained into job vertices; job edges with a distribution
  pattern and a result type.
- ``execution_graph`` (with ``connection_patterns``, ``partition_groups``): one execution
  vertex per subtask, one partition per producer subtask and job edge, connections kept as
  ConsumedPartitionGroup / ConsumerVertexGroup only, never as per-pair edges.
- ``logical_regions``, ``pipelined_regions``: pipelined regions, all-to-all cases decided
  on the JobGraph, cycles merged, in O(n).
- ``scheduling_strategy``: regions scheduled as their blocking inputs complete.
- ``failover``: the regions to restart for a failed subtask.
- ``compiler``: the three stages in one call; ``plan_summary``: the plan as JSON data
  (``python -m engine plan pipeline.json`` prints it, see ``engine.cli.plan``).
"""
from engine.plan.compiler import CompiledPlan, compile_job_graph, compile_plan
from engine.plan.execution_graph import (
    ExecutionGraph,
    ExecutionJobVertex,
    ExecutionVertex,
    IntermediateResult,
    build_execution_graph,
)
from engine.plan.execution_ids import ExecutionState, ExecutionVertexID, ResultPartitionID
from engine.plan.failover import RestartPipelinedRegionFailoverStrategy
from engine.plan.job_graph import (
    DistributionPattern,
    JobEdge,
    JobGraph,
    JobVertex,
    PlanError,
    ResultPartitionType,
    build_job_graph,
)
from engine.plan.partition_groups import ConsumedPartitionGroup, ConsumerVertexGroup
from engine.plan.pipelined_regions import (
    CrossRegionInput,
    PipelinedRegions,
    SchedulingPipelinedRegion,
    compute_pipelined_regions,
)
from engine.plan.plan_summary import expand_region_ids, expand_subtasks, plan_pipeline, summarize_plan
from engine.plan.scheduling_strategy import PipelinedRegionSchedulingStrategy, schedule_order

__all__ = [
    "CompiledPlan", "compile_job_graph", "compile_plan",
    "ExecutionGraph", "ExecutionJobVertex", "ExecutionVertex", "IntermediateResult", "build_execution_graph",
    "ExecutionState", "ExecutionVertexID", "ResultPartitionID",
    "RestartPipelinedRegionFailoverStrategy",
    "DistributionPattern", "JobEdge", "JobGraph", "JobVertex", "PlanError", "ResultPartitionType",
    "build_job_graph",
    "ConsumedPartitionGroup", "ConsumerVertexGroup",
    "CrossRegionInput", "PipelinedRegions", "SchedulingPipelinedRegion", "compute_pipelined_regions",
    "expand_region_ids", "expand_subtasks", "plan_pipeline", "summarize_plan",
    "PipelinedRegionSchedulingStrategy", "schedule_order",
]
