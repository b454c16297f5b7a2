"""Known shapes from seed 002, the scheduling strategy's reactions, and failover sets."""
from __future__ import annotations

import pytest

from engine.plan import (
    ExecutionState,
    ExecutionVertexID,
    ResultPartitionID,
    compile_plan,
    plan_pipeline,
    schedule_order,
)

FINISHED = ExecutionState.FINISHED


def pipeline(nodes, edges, **extra):
    """nodes: {id: parallelism}; edges: (source, target, partitioning, exchange)."""
    return {
        "format": 1,
        "max_parallelism": 1 << 16,
        "nodes": [
            {"id": node_id, "type": "source.datagen" if index == 0 else "transform.map", "parallelism": parallelism}
            for index, (node_id, parallelism) in enumerate(nodes.items())
        ],
        "edges": [
            {"id": f"{source}-{target}", "from": source, "to": target, "partitioning": partitioning,
             "exchange": exchange}
            for source, target, partitioning, exchange in edges
        ],
        **extra,
    }


def members(region):
    return {vertex_id: list(subtasks) for vertex_id, subtasks in region.vertices.items()}


def recorder(plan):
    scheduled = []
    strategy = plan.scheduling_strategy(lambda region: scheduled.append(region.index))
    return strategy, scheduled


def finish(strategy, *vertices):
    for vertex_id, subtask in vertices:
        strategy.on_execution_state_change(ExecutionVertexID(vertex_id, subtask), FINISHED)


# --- Known shapes (seed 002) -------------------------------------------------------------------


def seed_cycle_pipeline(shuffle):
    """src→join and b→join pipelined; src→b blocking. One logical region holding a blocking edge."""
    return pipeline(
        {"src": 2, "b": 2, "join": 2},
        [("src", "b", shuffle, "blocking"), ("src", "join", "forward", "pipelined"),
         ("b", "join", "forward", "pipelined")],
    )


def test_blocking_all_to_all_edge_inside_a_logical_region_gives_one_region():
    # Cut at the blocking edge, {src0, b0, join0} and {src1, b1, join1} would each wait for
    # the other's src: a dependency cycle that deadlocks. Decided on the JobGraph: one region.
    plan = compile_plan(seed_cycle_pipeline("hash"))
    (region,) = plan.regions
    assert members(region) == {"src": [0, 1], "b": [0, 1], "join": [0, 1]}
    assert region.blocking_input_groups == () and region.cross_region_inputs == ()
    assert [r.index for r in schedule_order(plan.execution_graph, plan.regions)] == [0]


def test_the_same_shape_with_a_pointwise_blocking_edge_splits_per_subtask():
    plan = compile_plan(seed_cycle_pipeline("rescale"))
    assert [members(region) for region in plan.regions] == [
        {"src": [0], "b": [0], "join": [0]},
        {"src": [1], "b": [1], "join": [1]},
    ]
    strategy, scheduled = recorder(plan)
    strategy.start_scheduling()
    assert scheduled == [0, 1]


def test_pipelined_all_to_all_edge_makes_the_whole_logical_region_one_region():
    plan = compile_plan(
        pipeline(
            {"src": 3, "map": 3, "agg": 2, "out": 2},
            [("src", "map", "rescale", "pipelined"), ("map", "agg", "hash", "pipelined"),
             ("agg", "out", "rescale", "pipelined")],
        )
    )
    (region,) = plan.regions
    assert region.size == 10


def test_a_pure_blocking_chain_gives_one_region_per_vertex_and_a_linear_schedule():
    summary = plan_pipeline(
        pipeline(
            {"a": 1, "b": 1, "c": 1, "d": 1},
            [(source, target, "rescale", "pipelined") for source, target in ("ab", "bc", "cd")],
            mode="batch",
        )
    )
    assert [region["vertices"] for region in summary["regions"]] == [{"a": [0]}, {"b": [0]}, {"c": [0]}, {"d": [0]}]
    assert [region["depends_on"] for region in summary["regions"]] == [[], ["r0"], ["r1"], ["r2"]]
    assert summary["schedule"] == ["r0", "r1", "r2", "r3"]


def test_a_parallel_blocking_chain_gives_one_region_per_subtask_each_waiting_for_its_own_producer():
    plan = compile_plan(
        pipeline({"a": 3, "b": 3, "c": 3}, [("a", "b", "forward", "blocking"), ("b", "c", "forward", "blocking")])
    )
    order = [members(region) for region in schedule_order(plan.execution_graph, plan.regions)]
    assert order == [{vertex: [subtask]} for vertex in "abc" for subtask in range(3)]
    b1 = plan.regions.region_of(ExecutionVertexID("b", 1))
    assert [members(r) for r in plan.regions.dependencies_of(b1)] == [{"a": [1]}]


def cross_region_pipeline():
    """out1 reads src2 and src3 through one blocking group; src2 is in out1's own region, src3 is not."""
    return pipeline(
        {"src": 5, "mid": 2, "out": 3},
        [("src", "mid", "rescale", "pipelined"), ("mid", "out", "rescale", "pipelined"),
         ("src", "out", "rescale", "blocking")],
    )


def test_a_region_waits_only_for_the_part_of_a_group_produced_elsewhere():
    plan = compile_plan(cross_region_pipeline())
    first, second = plan.regions
    assert members(first) == {"src": [0, 1, 2], "mid": [0], "out": [0, 1]}
    assert members(second) == {"src": [3, 4], "mid": [1], "out": [2]}
    (cross,) = first.cross_region_inputs
    assert cross.external_partitions == frozenset({3})
    assert list(cross.partition_ids()) == [ResultPartitionID("src-out", 3)]
    assert plan.regions.dependencies_of(first) == [second]
    strategy, scheduled = recorder(plan)
    strategy.start_scheduling()
    assert scheduled == [1]
    finish(strategy, ("src", 4))
    assert scheduled == [1]
    finish(strategy, ("src", 3))
    assert scheduled == [1, 0]


# --- The scheduling strategy -------------------------------------------------------------------


def all_to_all_blocking(producers=3, consumers=3):
    return compile_plan(pipeline({"a": producers, "b": consumers}, [("a", "b", "hash", "blocking")]))


def test_consumers_of_an_all_to_all_group_start_when_its_last_partition_finishes():
    plan = all_to_all_blocking()
    strategy, scheduled = recorder(plan)
    strategy.start_scheduling()
    assert scheduled == [0, 1, 2]
    finish(strategy, ("a", 2), ("a", 0))
    assert scheduled == [0, 1, 2]
    assert plan.execution_graph.result("a-b").consumed_groups[0].number_of_unfinished_partitions == 1
    finish(strategy, ("a", 1))
    assert scheduled == [0, 1, 2, 3, 4, 5]


def test_states_other_than_finished_and_repeated_reports_change_nothing():
    plan = all_to_all_blocking(2, 2)
    strategy, scheduled = recorder(plan)
    strategy.start_scheduling()
    for state in (ExecutionState.RUNNING, ExecutionState.FAILED, ExecutionState.CANCELED):
        strategy.on_execution_state_change(ExecutionVertexID("a", 0), state)
    finish(strategy, ("a", 0), ("a", 0))
    assert scheduled == [0, 1]
    assert plan.execution_graph.result("a-b").consumed_groups[0].number_of_unfinished_partitions == 1


def test_a_partition_reported_complete_directly_counts_like_a_finished_producer():
    plan = all_to_all_blocking(2, 1)
    strategy, scheduled = recorder(plan)
    strategy.start_scheduling()
    strategy.on_partition_finished(ResultPartitionID("a-b", 0))
    strategy.on_partition_finished(ResultPartitionID("a-b", 1))
    assert scheduled == [0, 1, 2]
    finish(strategy, ("a", 0), ("a", 1))
    assert scheduled == [0, 1, 2]


def test_restart_makes_consumers_wait_for_the_restarted_producer_again():
    plan = all_to_all_blocking(2, 2)
    strategy, scheduled = recorder(plan)
    strategy.start_scheduling()
    finish(strategy, ("a", 0), ("a", 1))
    assert scheduled == [0, 1, 2, 3]
    restart = list(plan.failover_strategy().tasks_to_restart(ExecutionVertexID("a", 1)))
    assert restart == [ExecutionVertexID("a", 1), ExecutionVertexID("b", 0), ExecutionVertexID("b", 1)]
    strategy.restart_tasks(restart)
    assert scheduled[4:] == [1]
    assert not strategy.are_region_inputs_consumable(plan.regions.regions[2])
    finish(strategy, ("a", 1))
    assert scheduled[4:] == [1, 2, 3]


def test_the_schedule_callback_may_report_progress_synchronously():
    plan = compile_plan(
        pipeline({"a": 2, "b": 2, "c": 1}, [("a", "b", "rescale", "blocking"), ("b", "c", "hash", "blocking")])
    )
    scheduled = []

    def run_to_end(region):
        scheduled.append(region.index)
        for vertex in region.execution_vertex_ids():
            strategy.on_execution_state_change(vertex, FINISHED)

    strategy = plan.scheduling_strategy(run_to_end)
    strategy.start_scheduling()
    assert sorted(scheduled) == [0, 1, 2, 3, 4]
    assert all(strategy.is_scheduled(region) for region in plan.regions)


def test_a_large_all_to_all_edge_is_scheduled_through_one_group():
    plan = all_to_all_blocking(3000, 3000)
    result = plan.execution_graph.result("a-b")
    assert (len(result.consumed_groups), len(result.consumer_groups)) == (1, 1)
    assert len(plan.regions) == 6000
    consumer = plan.regions.regions[3000]
    assert consumer.blocking_input_groups == result.consumed_groups
    assert len(plan.regions.dependencies_of(consumer)) == 3000
    order = schedule_order(plan.execution_graph, plan.regions)
    assert [region.index for region in order] == list(range(6000))
    assert result.consumed_groups[0].number_of_unfinished_partitions == 3000  # reset after the simulation


# --- Failover ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failed, expected",
    [
        (("a", 0), [{"a": [0]}, {"b": [0]}, {"b": [1]}, {"b": [2]}]),
        (("b", 1), [{"b": [1]}]),
    ],
)
def test_failover_restarts_the_failed_region_and_the_consumers_of_its_results(failed, expected):
    plan = all_to_all_blocking()
    regions = plan.failover_strategy().regions_to_restart(ExecutionVertexID(*failed))
    assert [members(region) for region in regions] == expected


def test_failover_also_restarts_producers_of_lost_partitions():
    plan = all_to_all_blocking()
    lost = {ResultPartitionID("a-b", 2)}
    regions = plan.failover_strategy().regions_to_restart(ExecutionVertexID("b", 0), lambda p: p not in lost)
    assert [members(region) for region in regions] == [{"a": [2]}, {"b": [0]}, {"b": [1]}, {"b": [2]}]


def test_failover_inside_a_pipelined_region_restarts_the_whole_region_once():
    plan = compile_plan(seed_cycle_pipeline("hash"))
    (region,) = plan.failover_strategy().regions_to_restart(ExecutionVertexID("join", 1))
    assert region.size == 6


def test_unknown_subtasks_are_refused():
    plan = all_to_all_blocking(2, 2)
    with pytest.raises(IndexError):
        plan.regions.region_of(ExecutionVertexID("a", 5))
    with pytest.raises(KeyError):
        plan.regions.region_of(ExecutionVertexID("ghost", 0))
