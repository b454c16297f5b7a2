"""The group-based planner against a naive planner that spells out every subtask pair.

The naive planner below is the definition the planner must meet: it lists every
(producer subtask, consumer subtask) pair of every job edge, unions vertices over
pipelined pairs, merges regions on dependency cycles by plain reachability, schedules by
scanning all pairs, and walks failovers pair by pair. On random small pipelines the
group-based regions, dependencies, schedule and failover sets must equal its answers.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.plan import (
    DistributionPattern,
    ExecutionState,
    ExecutionVertexID,
    JobGraph,
    ResultPartitionID,
    build_job_graph,
    compile_job_graph,
    expand_region_ids,
    expand_subtasks,
    schedule_order,
    summarize_plan,
)

# Pointwise edges weigh more: they are the ones split per subtask, where cycles and
# cross-region groups hide.
PARTITIONINGS_ANY_PARALLELISM = ["rescale", "rescale", "rescale", "hash", "rebalance", "broadcast"]


# ---------------------------------------------------------------------------------------------
# The naive planner: explicit pairs everywhere.


@dataclass(frozen=True)
class Pair:
    edge_id: str
    producer: ExecutionVertexID
    consumer: ExecutionVertexID
    blocking: bool


def pointwise_consumers(producers: int, consumers: int, partition: int) -> list[int]:
    """Consumers of one partition by the definition, read off by scanning every consumer."""
    if producers >= consumers:
        return [consumer for consumer in range(consumers) if partition * consumers // producers == consumer]
    return [consumer for consumer in range(consumers) if consumer * producers // consumers == partition]


def naive_pairs(job_graph: JobGraph) -> list[Pair]:
    pairs = []
    for edge in job_graph.edges:
        producers = job_graph.vertex(edge.source).parallelism
        consumers = job_graph.vertex(edge.target).parallelism
        for partition in range(producers):
            if edge.distribution is DistributionPattern.ALL_TO_ALL:
                targets = list(range(consumers))
            else:
                targets = pointwise_consumers(producers, consumers, partition)
            for consumer in targets:
                pairs.append(
                    Pair(
                        edge.id,
                        ExecutionVertexID(edge.source, partition),
                        ExecutionVertexID(edge.target, consumer),
                        edge.is_blocking,
                    )
                )
    return pairs


@dataclass
class NaivePlan:
    job_graph: JobGraph
    pairs: list[Pair]
    vertices: list[ExecutionVertexID]
    regions: list[frozenset[ExecutionVertexID]] = field(default_factory=list)
    region_of: dict[ExecutionVertexID, int] = field(default_factory=dict)

    def key(self, vertex: ExecutionVertexID) -> tuple[int, int]:
        return self.job_graph.topological_position(vertex.job_vertex_id), vertex.subtask_index

    def external_producers(self, region: int) -> set[ExecutionVertexID]:
        return {
            pair.producer
            for pair in self.pairs
            if pair.blocking and self.region_of[pair.consumer] == region and self.region_of[pair.producer] != region
        }

    def dependencies(self, region: int) -> set[int]:
        return {self.region_of[producer] for producer in self.external_producers(region)}


def naive_plan(job_graph: JobGraph) -> NaivePlan:
    vertices = [ExecutionVertexID(v.id, s) for v in job_graph.vertices for s in range(v.parallelism)]
    plan = NaivePlan(job_graph, naive_pairs(job_graph), vertices)
    parent = {vertex: vertex for vertex in vertices}

    def find(vertex):
        while parent[vertex] != vertex:
            vertex = parent[vertex]
        return vertex

    for pair in plan.pairs:
        if not pair.blocking:
            parent[find(pair.producer)] = find(pair.consumer)
    raw: dict[ExecutionVertexID, set] = {}
    for vertex in vertices:
        raw.setdefault(find(vertex), set()).add(vertex)
    raw_regions = list(raw.values())
    raw_of = {vertex: number for number, members in enumerate(raw_regions) for vertex in members}
    successors = {number: set() for number in range(len(raw_regions))}
    for pair in plan.pairs:
        if pair.blocking and raw_of[pair.producer] != raw_of[pair.consumer]:
            successors[raw_of[pair.producer]].add(raw_of[pair.consumer])
    reachable = {number: reach(number, successors) for number in successors}
    merged: list[frozenset] = []
    assigned: set[int] = set()
    for number in range(len(raw_regions)):
        if number in assigned:
            continue
        cycle = {other for other in reachable[number] if number in reachable[other]} | {number}
        assigned |= cycle
        merged.append(frozenset().union(*(raw_regions[member] for member in cycle)))
    plan.regions = sorted(merged, key=lambda members: min(plan.key(vertex) for vertex in members))
    plan.region_of = {vertex: number for number, members in enumerate(plan.regions) for vertex in members}
    return plan


def reach(start: int, successors: dict[int, set[int]]) -> set[int]:
    seen, queue = set(), deque([start])
    while queue:
        for successor in successors[queue.popleft()]:
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return seen


def naive_schedule(plan: NaivePlan) -> list[int]:
    """Schedule by rescanning every pair after every finished subtask."""
    needs = {region: plan.external_producers(region) for region in range(len(plan.regions))}
    finished: set[ExecutionVertexID] = set()
    scheduled: list[int] = []
    queue: deque[int] = deque()

    def schedule_ready():
        for region in range(len(plan.regions)):
            if region not in scheduled and needs[region] <= finished:
                scheduled.append(region)
                queue.append(region)

    schedule_ready()
    while queue:
        for vertex in sorted(plan.regions[queue.popleft()], key=plan.key):
            finished.add(vertex)
            schedule_ready()
    return scheduled


def naive_failover(plan: NaivePlan, failed: ExecutionVertexID, unavailable: set[ResultPartitionID]) -> set[int]:
    restart = {plan.region_of[failed]}
    queue = deque(restart)
    while queue:
        region = queue.popleft()
        involved = {plan.region_of[pair.consumer] for pair in plan.pairs if plan.region_of[pair.producer] == region}
        involved |= {
            plan.region_of[pair.producer]
            for pair in plan.pairs
            if pair.blocking
            and plan.region_of[pair.consumer] == region
            and plan.region_of[pair.producer] != region
            and ResultPartitionID(pair.edge_id, pair.producer.subtask_index) in unavailable
        }
        for other in involved - restart:
            restart.add(other)
            queue.append(other)
    return restart


# ---------------------------------------------------------------------------------------------
# Random pipelines.


@st.composite
def pipelines(draw, pointwise_only: bool = False) -> dict:
    count = draw(st.integers(1, 6))
    parallelism: list[int] = []
    for index in range(count):
        copy_earlier = index > 0 and draw(st.booleans())
        parallelism.append(parallelism[draw(st.integers(0, index - 1))] if copy_earlier else draw(st.integers(1, 6)))
    edges = []
    for target in range(1, count):
        for source in range(target):
            if draw(st.integers(0, 2)) != 0:
                continue
            choices = ["rescale"] if pointwise_only else PARTITIONINGS_ANY_PARALLELISM
            if parallelism[source] == parallelism[target]:
                choices = choices + ["forward", "forward"]
            edges.append(
                {
                    "id": f"e{source}_{target}",
                    "from": f"n{source}",
                    "to": f"n{target}",
                    "partitioning": draw(st.sampled_from(choices)),
                    "exchange": draw(st.sampled_from(["pipelined", "blocking"])),
                }
            )
    has_input = {edge["to"] for edge in edges}
    nodes = [
        {
            "id": f"n{index}",
            "type": "transform.map" if f"n{index}" in has_input else "source.datagen",
            "parallelism": parallelism[index],
        }
        for index in range(count)
    ]
    mode = draw(st.sampled_from(["streaming", "streaming", "streaming", "batch"]))
    return {"format": 1, "mode": mode, "nodes": nodes, "edges": edges}


def any_pipelines():
    """Mixed pipelines, and pointwise-only ones, which split into many small regions."""
    return st.one_of(pipelines(), pipelines(pointwise_only=True))


REFERENCE_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def region_sets(compiled) -> list[frozenset[ExecutionVertexID]]:
    return [frozenset(region.execution_vertex_ids()) for region in compiled.regions]


# ---------------------------------------------------------------------------------------------
# The properties.


@REFERENCE_SETTINGS
@given(any_pipelines())
def test_regions_equal_naive_regions(definition):
    job_graph = build_job_graph(definition)
    compiled = compile_job_graph(job_graph)
    naive = naive_plan(job_graph)
    assert region_sets(compiled) == naive.regions
    for index, region in enumerate(compiled.regions):
        assert region.index == index
        assert all(compiled.regions.region_of(vertex) is region for vertex in region.execution_vertex_ids())


@REFERENCE_SETTINGS
@given(any_pipelines())
def test_region_dependencies_equal_naive_dependencies(definition):
    job_graph = build_job_graph(definition)
    compiled = compile_job_graph(job_graph)
    naive = naive_plan(job_graph)
    for region in compiled.regions:
        dependencies = {dependency.index for dependency in compiled.regions.dependencies_of(region)}
        assert dependencies == naive.dependencies(region.index)


@REFERENCE_SETTINGS
@given(any_pipelines())
def test_schedule_equals_naive_schedule(definition):
    job_graph = build_job_graph(definition)
    compiled = compile_job_graph(job_graph)
    order = schedule_order(compiled.execution_graph, compiled.regions)
    assert [region.index for region in order] == naive_schedule(naive_plan(job_graph))


@REFERENCE_SETTINGS
@given(any_pipelines(), st.data())
def test_failover_sets_equal_naive_failover_sets(definition, data):
    job_graph = build_job_graph(definition)
    compiled = compile_job_graph(job_graph)
    naive = naive_plan(job_graph)
    partitions = sorted({ResultPartitionID(pair.edge_id, pair.producer.subtask_index) for pair in naive.pairs})
    unavailable = set(data.draw(st.lists(st.sampled_from(partitions), max_size=4))) if partitions else set()
    failover = compiled.failover_strategy()
    for failed in naive.vertices:
        assert {r.index for r in failover.regions_to_restart(failed)} == naive_failover(naive, failed, set())
        lost = failover.regions_to_restart(failed, lambda partition: partition not in unavailable)
        assert {r.index for r in lost} == naive_failover(naive, failed, unavailable)


@REFERENCE_SETTINGS
@given(any_pipelines(), st.data())
def test_restart_reschedules_exactly_the_failover_set(definition, data):
    job_graph = build_job_graph(definition)
    compiled = compile_job_graph(job_graph)
    naive = naive_plan(job_graph)
    scheduled: list[int] = []
    strategy = compiled.scheduling_strategy(lambda region: scheduled.append(region.index))
    strategy.start_scheduling()
    finish_all(compiled, strategy, scheduled)
    failed = data.draw(st.sampled_from(naive.vertices))
    restart = naive_failover(naive, failed, set())
    del scheduled[:]
    strategy.restart_tasks(compiled.failover_strategy().tasks_to_restart(failed))
    # Regions whose producers all stay finished start at once; the others wait for them.
    assert set(scheduled) == {r for r in restart if not naive.dependencies(r) & restart}
    finish_all(compiled, strategy, scheduled)
    assert sorted(scheduled) == sorted(restart)


@REFERENCE_SETTINGS
@given(any_pipelines())
def test_summary_matches_naive_plan(definition):
    job_graph = build_job_graph(definition)
    compiled = compile_job_graph(job_graph)
    naive = naive_plan(job_graph)
    summary = summarize_plan(compiled)
    number_of = {region: position for position, region in enumerate(naive_schedule(naive))}
    assert summary["schedule"] == [f"r{number}" for number in range(len(naive.regions))]
    for region_summary in summary["regions"]:
        region = next(r for r, number in number_of.items() if f"r{number}" == region_summary["id"])
        members = {
            ExecutionVertexID(vertex_id, subtask)
            for vertex_id, subtasks in region_summary["vertices"].items()
            for subtask in expand_subtasks(subtasks)
        }
        assert members == naive.regions[region]
        assert region_summary["size"] == len(members)
        assert set(expand_region_ids(region_summary["depends_on"])) == {
            f"r{number_of[dependency]}" for dependency in naive.dependencies(region)
        }
    for node in definition["nodes"]:
        vertex_id = job_graph.vertex_of_node(node["id"]).id
        expected = {f"r{number_of[naive.region_of[v]]}" for v in naive.vertices if v.job_vertex_id == vertex_id}
        assert set(expand_region_ids(summary["node_regions"][node["id"]])) == expected


def finish_all(compiled, strategy, scheduled: list[int]) -> None:
    """Finish every scheduled region in turn, the way ``schedule_order`` does."""
    position = 0
    while position < len(scheduled):
        region = compiled.regions.regions[scheduled[position]]
        for vertex in region.execution_vertex_ids():
            strategy.on_execution_state_change(vertex, ExecutionState.FINISHED)
        position += 1
