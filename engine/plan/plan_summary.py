"""The plan as data: a JSON-serialisable summary for the studio and the CLI.

``GET /api/pipelines/<id>/plan`` serves :func:`plan_pipeline`'s result, and the editor
colours its nodes by region from ``node_regions`` before anything runs. Shape::

    {"job_vertices": [{"id", "name", "operators": [node ids], "chain_inputs": [positions],
                       "parallelism", "max_parallelism", "is_source"}],  # topological order
     "job_edges":    [{"id", "source", "target", "source_node", "target_node",
                       "distribution", "result_type", "partitioning", "key"}],
     "regions":      [{"id": "r0", "vertices": {job_vertex_id: SUBTASKS},
                       "job_vertices": [ids], "depends_on": REGION_IDS, "size": n}],
     "node_regions": {node_id: REGION_IDS},
     "schedule":     ["r0", "r1", ...],
     "counts":       {"job_vertices", "job_edges", "execution_vertices", "regions"}}

A vertex's ``operators`` are its chain, head first and each operator after the one that feeds it;
``chain_inputs`` says, per operator, the position in ``operators`` of the one that feeds it (-1 for
the head): ``[-1, 0, 1]`` for a line, ``[-1, 0, 1, 1]`` for a chain whose second operator fans out
to the last two (a tree, see ``engine.plan.job_graph``'s fan-out chaining). The run graph draws a
chain from it.

Regions are numbered ``r0, r1, ...`` in the order the scheduling strategy starts them
when every region runs to its end in turn, so ``schedule`` is that order and every
region's ``depends_on`` names only earlier regions.

Compact lists
    SUBTASKS and REGION_IDS are plain JSON lists (``[0, 1, 2]``, ``["r0", "r3"]``) when
    they have at most :data:`LIST_LIMIT` entries. Longer ones, which only huge
    parallelisms produce, are ``{"count": n, "ranges": [[start, stop], ...]}`` with
    half-open integer ranges: subtask indices, or region numbers (``k`` for ``"rk"``).
    :func:`expand_subtasks` and :func:`expand_region_ids` turn either form into a list.
    So a 10,000 × 10,000 plan stays a few kilobytes per region instead of megabytes.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from engine.plan.compiler import CompiledPlan, compile_plan
from engine.plan.partition_groups import ConsumedPartitionGroup
from engine.plan.pipelined_regions import SchedulingPipelinedRegion
from engine.plan.scheduling_strategy import schedule_order

LIST_LIMIT = 64
"""Longest subtask or region list written out in full; longer ones become ranges."""

Intervals = list[tuple[int, int]]


def plan_pipeline(definition: dict) -> dict:
    """Compile a (validated) pipeline definition and summarise its plan as JSON-ready data."""
    return summarize_plan(compile_plan(definition))


def summarize_plan(plan: CompiledPlan) -> dict:
    """Summarise an already compiled plan (see the module docstring for the shape)."""
    order = schedule_order(plan.execution_graph, plan.regions)
    number_of = [0] * len(order)
    for number, region in enumerate(order):
        number_of[region.index] = number
    dependencies = _RegionDependencies(plan, number_of)
    return {
        "job_vertices": [_job_vertex_summary(vertex) for vertex in plan.job_graph.vertices],
        "job_edges": [_job_edge_summary(edge) for edge in plan.job_graph.edges],
        "regions": [
            _region_summary(region, number, dependencies.of(region)) for number, region in enumerate(order)
        ],
        "node_regions": _node_regions(plan, number_of),
        "schedule": [f"r{number}" for number in range(len(order))],
        "counts": {
            "job_vertices": len(plan.job_graph.vertices),
            "job_edges": len(plan.job_graph.edges),
            "execution_vertices": plan.execution_graph.number_of_execution_vertices,
            "regions": len(order),
        },
    }


def expand_subtasks(value: list[int] | dict) -> list[int]:
    """Return the subtask indices of a SUBTASKS value, in either form."""
    if isinstance(value, dict):
        return [index for start, stop in value["ranges"] for index in range(start, stop)]
    return list(value)


def expand_region_ids(value: list[str] | dict) -> list[str]:
    """Return the region ids of a REGION_IDS value, in either form."""
    if isinstance(value, dict):
        return [f"r{number}" for start, stop in value["ranges"] for number in range(start, stop)]
    return list(value)


def _job_vertex_summary(vertex) -> dict[str, Any]:
    return {
        "id": vertex.id,
        "name": vertex.name,
        "operators": list(vertex.operator_ids),
        "chain_inputs": [-1 if feeder is None else feeder
                         for feeder in map(vertex.chained_input, range(len(vertex.operators)))],
        "parallelism": vertex.parallelism,
        "max_parallelism": vertex.max_parallelism,
        "is_source": vertex.is_source,
    }


def _job_edge_summary(edge) -> dict[str, Any]:
    return {
        "id": edge.id,
        "source": edge.source,
        "target": edge.target,
        "source_node": edge.source_node,
        "target_node": edge.target_node,
        "distribution": edge.distribution.value,
        "result_type": edge.result_type.value,
        "partitioning": edge.partitioning,
        "key": edge.key,
    }


def _region_summary(region: SchedulingPipelinedRegion, number: int, depends_on: Intervals) -> dict[str, Any]:
    return {
        "id": f"r{number}",
        "vertices": {
            vertex_id: _encode_subtasks(_intervals_of(subtasks)) for vertex_id, subtasks in region.vertices.items()
        },
        "job_vertices": list(region.vertices),
        "depends_on": _encode_region_ids(depends_on),
        "size": region.size,
    }


def _node_regions(plan: CompiledPlan, number_of: list[int]) -> dict[str, Any]:
    node_regions = {}
    for vertex in plan.job_graph.vertices:
        regions = plan.regions.regions_of(vertex.id, range(vertex.parallelism))
        intervals = _intervals_of(sorted(number_of[region.index] for region in regions))
        for node_id in vertex.operator_ids:
            node_regions[node_id] = _encode_region_ids(intervals)
    return node_regions


class _RegionDependencies:
    """Region numbers each region waits for, as intervals computed once per input group.

    An all-to-all group read by many regions is resolved once and shared, so the summary
    does not redo O(producers) work for each of its consumer regions.
    """

    def __init__(self, plan: CompiledPlan, number_of: list[int]) -> None:
        self._plan = plan
        self._number_of = number_of
        self._by_group: dict[ConsumedPartitionGroup, Intervals] = {}

    def of(self, region: SchedulingPipelinedRegion) -> Intervals:
        parts = [self._of_group(group) for group in region.blocking_input_groups]
        for cross in region.cross_region_inputs:
            producer = self._plan.execution_graph.result(cross.group.result_id).producer_vertex_id
            parts.append(self._numbers(self._plan.regions.regions_of(producer, sorted(cross.external_partitions))))
        if len(parts) == 1:
            return parts[0]
        return _merge_intervals(interval for part in parts for interval in part)

    def _of_group(self, group: ConsumedPartitionGroup) -> Intervals:
        intervals = self._by_group.get(group)
        if intervals is None:
            intervals = self._by_group[group] = self._numbers(self._plan.regions.producer_regions(group))
        return intervals

    def _numbers(self, regions: Iterable[SchedulingPipelinedRegion]) -> Intervals:
        return _intervals_of(sorted(self._number_of[region.index] for region in regions))


def _intervals_of(indices: Sequence[int]) -> Intervals:
    """Return ascending indices as half-open intervals of consecutive values."""
    if isinstance(indices, range) and indices.step == 1:
        return [(indices.start, indices.stop)] if indices else []
    intervals: Intervals = []
    for index in indices:
        if intervals and intervals[-1][1] == index:
            intervals[-1] = (intervals[-1][0], index + 1)
        else:
            intervals.append((index, index + 1))
    return intervals


def _merge_intervals(intervals: Iterable[tuple[int, int]]) -> Intervals:
    merged: Intervals = []
    for start, stop in sorted(intervals):
        if merged and start <= merged[-1][1]:
            if stop > merged[-1][1]:
                merged[-1] = (merged[-1][0], stop)
        else:
            merged.append((start, stop))
    return merged


def _encode_subtasks(intervals: Intervals) -> list[int] | dict:
    count = sum(stop - start for start, stop in intervals)
    if count <= LIST_LIMIT:
        return [index for start, stop in intervals for index in range(start, stop)]
    return {"count": count, "ranges": [[start, stop] for start, stop in intervals]}


def _encode_region_ids(intervals: Intervals) -> list[str] | dict:
    count = sum(stop - start for start, stop in intervals)
    if count <= LIST_LIMIT:
        return [f"r{number}" for start, stop in intervals for number in range(start, stop)]
    return {"count": count, "ranges": [[start, stop] for start, stop in intervals]}
