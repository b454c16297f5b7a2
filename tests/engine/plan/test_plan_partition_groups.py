"""Connection patterns and partition groups: pairs described by groups, counted by groups."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.plan import (
    ConsumedPartitionGroup,
    ConsumerVertexGroup,
    DistributionPattern,
    ExecutionVertexID,
    ResultPartitionID,
    ResultPartitionType,
    build_execution_graph,
    build_job_graph,
)
from engine.plan.connection_patterns import connection_pattern

parallelisms = st.integers(1, 40)


def expected_pairs(distribution, producers, consumers):
    """Pairs by the contract: the larger side is cut into contiguous blocks, one per subtask of the smaller."""
    if distribution is DistributionPattern.ALL_TO_ALL:
        return {(p, c) for p in range(producers) for c in range(consumers)}
    if producers >= consumers:
        return {(p, p * consumers // producers) for p in range(producers)}
    return {(c * producers // consumers, c) for c in range(consumers)}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(list(DistributionPattern)), parallelisms, parallelisms)
def test_groups_describe_exactly_the_connected_pairs(distribution, producers, consumers):
    pattern = connection_pattern(distribution, producers, consumers)
    pairs = set()
    for group in range(pattern.group_count):
        partitions, readers = pattern.partitions_of_group(group), pattern.consumers_of_group(group)
        assert partitions and readers
        assert len(partitions) == 1 or len(readers) == 1 or distribution is DistributionPattern.ALL_TO_ALL
        assert all(pattern.group_of_partition(p) == group for p in partitions)
        assert all(pattern.group_of_consumer(c) == group for c in readers)
        pairs |= {(p, c) for p in partitions for c in readers}
    assert pairs == expected_pairs(distribution, producers, consumers)
    assert {p for p, _ in pairs} == set(range(producers))
    assert {c for _, c in pairs} == set(range(consumers))


@settings(max_examples=100, deadline=None)
@given(parallelisms, parallelisms, st.data())
def test_groups_of_a_partition_range_are_the_groups_of_its_members(producers, consumers, data):
    pattern = connection_pattern(DistributionPattern.POINTWISE, producers, consumers)
    start = data.draw(st.integers(0, producers - 1))
    stop = data.draw(st.integers(start, producers))
    expected = sorted({pattern.group_of_partition(p) for p in range(start, stop)})
    assert list(pattern.groups_of_partitions(range(start, stop))) == expected


def test_groups_match_the_channels_the_runtime_wires():
    from engine.plan.channels import output_channel_ids
    edge = SimpleNamespace(id="e", source="a", target="b", distribution=DistributionPattern.POINTWISE)
    for producers in range(1, 13):
        for consumers in range(1, 13):
            pattern = connection_pattern(DistributionPattern.POINTWISE, producers, consumers)
            for partition in range(producers):
                readers = pattern.consumers_of_group(pattern.group_of_partition(partition))
                wired = output_channel_ids(edge, partition, producers, consumers)
                assert list(readers) == [channel.consumer[1] for channel in wired]


def two_vertex_graph(producers, consumers, partitioning, exchange="pipelined"):
    return build_execution_graph(
        build_job_graph(
            {
                "format": 1,
                "max_parallelism": 1 << 16,
                "nodes": [
                    {"id": "a", "type": "source.datagen", "parallelism": producers},
                    {"id": "b", "type": "sink.collect", "parallelism": consumers},
                ],
                "edges": [{"id": "e", "from": "a", "to": "b", "partitioning": partitioning, "exchange": exchange}],
            }
        )
    )


def test_an_all_to_all_edge_has_one_shared_group_on_each_side():
    graph = two_vertex_graph(2000, 3000, "hash")
    result = graph.result("e")
    assert len(result.consumed_groups) == len(result.consumer_groups) == 1
    consumed = {id(group) for c in range(3000) for group in graph.consumed_partition_groups(ExecutionVertexID("b", c))}
    consumers = {id(group) for p in range(2000) for group in graph.consumer_vertex_groups(ExecutionVertexID("a", p))}
    assert consumed == {id(result.consumed_groups[0])}
    assert consumers == {id(result.consumer_groups[0])}
    assert len(result.consumed_groups[0]) == 2000 and len(result.consumer_groups[0]) == 3000


@pytest.mark.parametrize("producers, consumers, groups", [(6, 6, 6), (6, 2, 2), (2, 6, 2), (5, 3, 3)])
def test_a_pointwise_edge_has_one_group_per_subtask_of_the_smaller_side(producers, consumers, groups):
    graph = two_vertex_graph(producers, consumers, "rescale")
    assert len(graph.result("e").consumed_groups) == groups
    assert graph.number_of_execution_vertices == producers + consumers


def test_execution_vertices_ask_the_graph_for_their_connections():
    graph = two_vertex_graph(4, 2, "rescale", "blocking")
    vertex = graph.execution_vertex(ExecutionVertexID("a", 3))
    assert (vertex.job_vertex_id, vertex.subtask_index) == ("a", 3)
    assert vertex.produced_partitions == [ResultPartitionID("e", 3)]
    assert [list(group) for group in vertex.consumer_vertex_groups] == [[ExecutionVertexID("b", 1)]]
    reader = graph.execution_vertex(ExecutionVertexID("b", 1))
    assert [list(group) for group in reader.consumed_partition_groups] == [
        [ResultPartitionID("e", 2), ResultPartitionID("e", 3)]
    ]
    assert graph.producer_of(ResultPartitionID("e", 2)) == ExecutionVertexID("a", 2)
    assert [v.id for v in graph.execution_vertices()][:2] == [ExecutionVertexID("a", 0), ExecutionVertexID("a", 1)]


def test_a_consumed_group_counts_down_its_unfinished_partitions():
    group = ConsumedPartitionGroup("e", 0, range(3), ResultPartitionType.BLOCKING)
    assert [group.partition_finished(), group.partition_finished()] == [2, 1]
    assert not group.are_all_partitions_finished()
    assert group.partition_finished() == 0
    assert group.are_all_partitions_finished()
    with pytest.raises(RuntimeError, match="already finished"):
        group.partition_finished()
    assert group.partition_unfinished() == 1
    group.reset()
    assert group.number_of_unfinished_partitions == 3
    with pytest.raises(RuntimeError, match="no partition is finished"):
        group.partition_unfinished()


def test_single_member_groups_and_membership():
    consumed = ConsumedPartitionGroup.from_single_partition("e", 4, ResultPartitionType.PIPELINED)
    assert list(consumed) == [ResultPartitionID("e", 4)]
    assert ResultPartitionID("e", 4) in consumed and ResultPartitionID("f", 4) not in consumed
    consumers = ConsumerVertexGroup.from_single_vertex("e", "b", 2, ResultPartitionType.PIPELINED)
    assert list(consumers) == [ExecutionVertexID("b", 2)]
    assert ExecutionVertexID("b", 2) in consumers and ExecutionVertexID("b", 3) not in consumers
    with pytest.raises(ValueError, match="cannot be empty"):
        ConsumedPartitionGroup("e", 0, range(0), ResultPartitionType.BLOCKING)


def test_a_partition_is_counted_once_however_often_it_is_reported():
    graph = two_vertex_graph(3, 3, "hash", "blocking")
    group = graph.mark_partition_finished(ResultPartitionID("e", 1))
    assert group is graph.result("e").consumed_groups[0]
    assert graph.mark_partition_finished(ResultPartitionID("e", 1)) is None
    assert group.number_of_unfinished_partitions == 2
    graph.reset_partition_states()
    assert group.number_of_unfinished_partitions == 3
    assert not graph.result("e").is_partition_finished(1)
