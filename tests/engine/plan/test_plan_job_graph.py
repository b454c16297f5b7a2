"""JobGraph: chaining, distribution patterns, result types, defaults and refused input."""
from __future__ import annotations

import pytest

from engine.plan import DistributionPattern, PlanError, ResultPartitionType, build_job_graph
from tests.builders import definition_of, edge, node


def chains(job_graph):
    return [list(vertex.operator_ids) for vertex in job_graph.vertices]


def test_forward_edges_of_equal_parallelism_chain_into_one_vertex():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("map"), node("sink", "sink.collect")],
            [edge("src", "map"), edge("map", "sink")],
            parallelism=3,
        )
    )
    assert chains(job_graph) == [["src", "map", "sink"]]
    vertex = job_graph.vertices[0]
    assert vertex.id == "src"
    assert vertex.name == "src -> map -> sink"
    assert [operator["type"] for operator in vertex.operators] == ["source.datagen", "transform.map", "sink.collect"]
    assert (vertex.parallelism, vertex.max_parallelism, vertex.is_source) == (3, 128, True)
    assert job_graph.edges == []
    assert job_graph.vertex_of_node("sink") is vertex


@pytest.mark.parametrize(
    "breaking_edge, extra",
    [
        ({"partitioning": "rescale"}, {}),
        ({"partitioning": "hash", "key": "user"}, {}),
        ({"exchange": "blocking"}, {}),
    ],
)
def test_only_plain_forward_pipelined_edges_chain(breaking_edge, extra):
    job_graph = build_job_graph(
        definition_of([node("src", "source.datagen"), node("map")], [edge("src", "map", **breaking_edge)], **extra)
    )
    assert chains(job_graph) == [["src"], ["map"]]
    assert [(e.source, e.target, e.source_node, e.target_node) for e in job_graph.edges] == [
        ("src", "map", "src", "map")
    ]


def test_unequal_parallelism_breaks_the_chain():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen", parallelism=2), node("map", parallelism=4)],
            [edge("src", "map", partitioning="rescale")],
        )
    )
    assert chains(job_graph) == [["src"], ["map"]]
    assert [vertex.parallelism for vertex in job_graph.vertices] == [2, 4]


def test_without_fan_out_chaining_a_node_with_two_outputs_ends_its_chain_and_a_node_with_two_inputs_starts_one():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("a"), node("b"), node("join"), node("sink", "sink.collect")],
            [edge("src", "a"), edge("src", "b"), edge("a", "join"), edge("b", "join"), edge("join", "sink")],
        ),
        chain_fan_out=False,
    )
    assert chains(job_graph) == [["src"], ["a"], ["b"], ["join", "sink"]]
    assert [e.id for e in job_graph.outputs_of("src")] == ["src-a", "src-b"]
    assert [e.id for e in job_graph.inputs_of("join")] == ["a-join", "b-join"]
    assert all(e.distribution is DistributionPattern.POINTWISE for e in job_graph.edges)
    assert all(vertex.is_linear_chain and vertex.chain_inputs is None for vertex in job_graph.vertices)


def test_a_source_chains_with_both_filters_it_fans_out_to_and_a_node_with_two_inputs_starts_a_chain():
    """Fan-out chaining: the source runs both forward consumers in its task; each one's edge into the
    join leaves the source's vertex."""
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("a", "transform.filter"), node("b", "transform.filter"),
             node("join"), node("sink", "sink.collect")],
            [edge("src", "a"), edge("src", "b"), edge("a", "join", partitioning="hash", key="k"),
             edge("b", "join", partitioning="hash", key="k"), edge("join", "sink")],
            parallelism=2,
        )
    )
    assert chains(job_graph) == [["src", "a", "b"], ["join", "sink"]]
    source = job_graph.vertices[0]
    assert source.chain_inputs == (-1, 0, 0)
    assert not source.is_linear_chain
    assert source.name == "src -> [a, b]"
    assert [source.chained_outputs(position) for position in range(3)] == [[1, 2], [], []]
    assert [source.chained_input(position) for position in range(3)] == [None, 0, 0]
    assert [(e.id, e.source, e.source_node, e.target) for e in job_graph.inputs_of("join")] == [
        ("a-join", "src", "a", "join"), ("b-join", "src", "b", "join")]
    assert job_graph.vertices[1].chain_inputs is None and job_graph.vertices[1].is_linear_chain


def test_a_fan_out_chain_lists_parents_before_children_depth_first():
    """Each branch follows its parent; a branch's own chain continues before the next branch starts;
    a forward edge to a node with two inputs, and a port's edge, stay job edges."""
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("a"), node("a2"), node("b"), node("b2"), node("u"),
             node("late", "sink.collect")],
            [edge("src", "a"), edge("src", "b"), edge("a", "a2"), edge("b", "b2"),
             edge("a2", "u"), edge("b2", "u"), {"id": "p", "from": "b", "to": "late", "from_port": "late"}],
        )
    )
    assert chains(job_graph) == [["src", "a", "a2", "b", "b2"], ["u"], ["late"]]
    source = job_graph.vertices[0]
    assert source.chain_inputs == (-1, 0, 1, 0, 3)
    assert source.name == "src -> [a -> a2, b -> b2]"
    assert {e.id for e in job_graph.outputs_of("src")} == {"a2-u", "b2-u", "p"}


def test_a_node_with_a_job_edge_besides_chains_its_forward_successor():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("map"), node("sum"), node("sink", "sink.collect")],
            [edge("src", "map"), edge("src", "sum", partitioning="hash", key="k"), edge("map", "sink")],
        )
    )
    assert chains(job_graph) == [["src", "map", "sink"], ["sum"]]
    assert job_graph.vertices[0].is_linear_chain


def test_job_edges_connect_chains_but_remember_their_nodes():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("parse"), node("count"), node("sink", "sink.collect")],
            [edge("src", "parse"), edge("parse", "count", partitioning="hash", key="user"), edge("count", "sink")],
        )
    )
    assert chains(job_graph) == [["src", "parse"], ["count", "sink"]]
    (job_edge,) = job_graph.edges
    assert (job_edge.source, job_edge.target) == ("src", "count")
    assert (job_edge.source_node, job_edge.target_node) == ("parse", "count")
    assert (job_edge.partitioning, job_edge.key) == ("hash", "user")


@pytest.mark.parametrize(
    "partitioning, distribution",
    [
        ("rescale", DistributionPattern.POINTWISE),
        ("hash", DistributionPattern.ALL_TO_ALL),
        ("rebalance", DistributionPattern.ALL_TO_ALL),
        ("broadcast", DistributionPattern.ALL_TO_ALL),
    ],
)
def test_partitioning_decides_the_distribution_pattern(partitioning, distribution):
    job_graph = build_job_graph(
        definition_of([node("src", "source.datagen"), node("map")], [edge("src", "map", partitioning=partitioning)])
    )
    assert job_graph.edges[0].distribution is distribution


def test_forward_edge_that_does_not_chain_is_pointwise():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("a"), node("b")],
            [edge("src", "a"), edge("src", "b")],
        ),
        chain_fan_out=False,
    )
    assert {e.distribution for e in job_graph.edges} == {DistributionPattern.POINTWISE}


def test_batch_mode_chains_forward_edges_as_streaming_does():
    """A chain's records never go through a file in batch mode either (as Flink chains in batch)."""
    job_graph = build_job_graph(
        definition_of([node("src", "source.datagen"), node("map"), node("sum")],
                      [edge("src", "map"), edge("map", "sum", partitioning="hash", key="k")], mode="batch"))
    assert chains(job_graph) == [["src", "map"], ["sum"]]
    assert [e.result_type for e in job_graph.edges] == [ResultPartitionType.BLOCKING]


def test_batch_mode_makes_every_exchange_blocking():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("a"), node("b")],
            [edge("src", "a", partitioning="rebalance"), edge("a", "b", partitioning="hash", key="k",
                                                               exchange="pipelined")],
            mode="batch",
        )
    )
    assert [e.result_type for e in job_graph.edges] == [ResultPartitionType.BLOCKING] * 2


def test_defaults_for_parallelism_partitioning_and_exchange():
    job_graph = build_job_graph(
        definition_of(
            [node("src", "source.datagen"), node("a"), node("b", parallelism=5)],
            [edge("src", "a"), edge("src", "b", partitioning="rebalance")],
            max_parallelism=256,
        ),
        chain_fan_out=False,  # the forward edge src -> a stays a job edge, with its defaults
    )
    assert [(v.id, v.parallelism, v.max_parallelism) for v in job_graph.vertices] == [
        ("src", 1, 256),
        ("a", 1, 256),
        ("b", 5, 256),
    ]
    assert job_graph.edges[0].partitioning == "forward"
    assert job_graph.edges[0].result_type is ResultPartitionType.PIPELINED


def test_vertices_are_in_topological_order_with_definition_order_breaking_ties():
    job_graph = build_job_graph(
        definition_of(
            [node("sink", "sink.collect"), node("b"), node("a"), node("src2", "source.datagen"),
             node("src1", "source.datagen")],
            [edge("src1", "a", partitioning="rebalance"), edge("src2", "b", partitioning="rebalance"),
             edge("a", "sink"), edge("b", "sink")],
        )
    )
    ids = [vertex.id for vertex in job_graph.vertices]
    assert ids == ["src2", "b", "src1", "a", "sink"]
    assert [job_graph.topological_position(vertex_id) for vertex_id in ids] == [0, 1, 2, 3, 4]


def test_job_vertices_are_hashable_values():
    definition = definition_of([node("src", "source.datagen", rate=1)], [])
    first, second = build_job_graph(definition).vertices[0], build_job_graph(definition).vertices[0]
    assert first == second
    assert len({first, second}) == 1


@pytest.mark.parametrize(
    "definition, message",
    [
        (definition_of([], []), "no nodes"),
        (definition_of([node("a"), node("a")], []), "node id 'a' is used twice"),
        (definition_of([node("a"), node("b")], [edge("a", "b", id="e"), edge("b", "a", id="e")]),
         "edge id 'e' is used twice"),
        (definition_of([node("a")], [edge("a", "ghost")]), "unknown node 'ghost'"),
        (definition_of([node("a"), node("b")], [edge("a", "b"), edge("b", "a")]), "cycle"),
        (definition_of([node("a"), node("b")], [edge("a", "b", partitioning="shuffle")]), "unknown partitioning"),
        (definition_of([node("a"), node("b")], [edge("a", "b", exchange="eventually")]), "unknown exchange"),
        (definition_of([node("a", parallelism=2), node("b", parallelism=3)], [edge("a", "b")]), "forward"),
        (definition_of([node("a", parallelism=0)], []), "invalid parallelism"),
        (definition_of([node("a", parallelism=300)], []), "below its parallelism"),
        (definition_of([{"type": "transform.map"}], []), "has no id"),
    ],
)
def test_definitions_the_planner_cannot_plan_are_refused(definition, message):
    with pytest.raises(PlanError, match=message):
        build_job_graph(definition)
