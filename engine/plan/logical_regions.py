"""Logical pipelined regions: pipelined regions decided on the JobGraph.

A logical region is a set of job vertices connected by pipelined job edges, with regions
that depend on each other in a cycle (through blocking edges) merged into one. It is the
first half of the O(n) region computation of seed 002: on the JobGraph it is cheap to see
whether a region holds an all-to-all edge between two of its own vertices, and such a
region is always one scheduling region (a pipelined all-to-all edge connects every subtask
on both sides; a blocking one makes the regions on both sides depend on each other in a
cycle that would have to be merged anyway). Only regions without such an edge are split
further, on the ExecutionGraph, over their pointwise connections.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.plan.disjoint_sets import DisjointSets
from engine.plan.job_graph import DistributionPattern, JobEdge, JobGraph
from engine.plan.strongly_connected import strongly_connected_components


@dataclass(frozen=True)
class LogicalPipelinedRegion:
    """Job vertices that are scheduled together as far as the JobGraph can tell."""

    job_vertex_ids: tuple[str, ...]
    """In the JobGraph's topological order."""
    intra_region_edges: tuple[JobEdge, ...]
    """Job edges with both ends in this region, pipelined or blocking."""

    @property
    def has_intra_region_all_to_all_edge(self) -> bool:
        return any(edge.distribution is DistributionPattern.ALL_TO_ALL for edge in self.intra_region_edges)


def compute_logical_regions(job_graph: JobGraph) -> list[LogicalPipelinedRegion]:
    """Return the logical regions, ordered by their first vertex in topological order."""
    position = {vertex.id: index for index, vertex in enumerate(job_graph.vertices)}
    raw_region_of, raw_count = _raw_regions(job_graph, position)
    region_of = _merge_regions_on_cycles(job_graph, position, raw_region_of, raw_count)
    members: dict[int, list[str]] = {}
    for vertex in job_graph.vertices:
        members.setdefault(region_of[position[vertex.id]], []).append(vertex.id)
    edges: dict[int, list[JobEdge]] = {number: [] for number in members}
    for edge in job_graph.edges:
        source_region = region_of[position[edge.source]]
        if source_region == region_of[position[edge.target]]:
            edges[source_region].append(edge)
    ordered = sorted(members, key=lambda number: position[members[number][0]])
    return [LogicalPipelinedRegion(tuple(members[number]), tuple(edges[number])) for number in ordered]


def _raw_regions(job_graph: JobGraph, position: dict[str, int]) -> tuple[list[int], int]:
    """Union the vertices over pipelined edges."""
    sets = DisjointSets(len(job_graph.vertices))
    for edge in job_graph.edges:
        if not edge.is_blocking:
            sets.union(position[edge.source], position[edge.target])
    return sets.set_numbers()


def _merge_regions_on_cycles(
    job_graph: JobGraph, position: dict[str, int], raw_region_of: list[int], raw_count: int
) -> list[int]:
    """Map every vertex to its region after merging the regions on dependency cycles."""
    successors: list[list[int]] = [[] for _ in range(raw_count)]
    for edge in job_graph.edges:
        producer = raw_region_of[position[edge.source]]
        consumer = raw_region_of[position[edge.target]]
        if edge.is_blocking and producer != consumer:
            successors[producer].append(consumer)
    merged_of = [0] * raw_count
    for number, component in enumerate(strongly_connected_components(successors)):
        for raw in component:
            merged_of[raw] = number
    return [merged_of[raw] for raw in raw_region_of]
