"""The JobGraph: operators of a pipeline definition chained into job vertices.

A pipeline definition names operators (nodes) and the exchanges between them (edges). The
runtime does not run one task per operator: operators connected by a plain forward edge
run in the same task, one calling the next (a *chain*), so no record crosses a channel
between them. The JobGraph is the definition after chaining: one :class:`JobVertex` per
chain, one :class:`JobEdge` per definition edge that was not chained away.

Chaining rule
    Node B is chained after node A when the edge A→B is B's only input, its partitioning is
    ``forward``, its exchange is pipelined (in batch mode too, where the edges that are not
    chained become blocking: a chain's records never go through a file, as Flink chains in
    batch), and A and B have equal parallelism. A node with two inputs starts a chain. An edge
    leaving a named output port (``from_port``, e.g. a window's late records) is never
    chained: it is always a job edge, so the runtime routes a port's records to that edge's
    writers only.

Fan-out chaining
    A node may feed several chained successors (and job edges besides), as Flink chains an
    operator with every forward consumer that has no other input: a source that fans out to
    two filters runs them in its own task, one call per batch each, instead of handing each
    batch to two more tasks over local channels (whose writers then send small buffers
    whenever their input runs dry). A chain is then a tree rooted at its head; its operators
    are listed parent before child (depth first, successors in the definition's order) and
    :attr:`JobVertex.chain_inputs` says which operator feeds each. ``chain_fan_out=False``
    (the deployment setting ``"chain_fan_out": false``) plans as before: a node with two
    outputs ends its chain.

Each job edge carries the two facts the later stages need:

- its :class:`DistributionPattern`: ``POINTWISE`` for forward/rescale (a consumer subtask
  reads a few producer subtasks), ``ALL_TO_ALL`` for hash/rebalance/broadcast (every
  consumer subtask reads every producer subtask);
- its :class:`ResultPartitionType`: ``PIPELINED`` (producer and consumer run at the same
  time, data streams over the network) or ``BLOCKING`` (the producer writes its whole
  output first, the consumer starts later and reads files).

The input is a pipeline definition in the DESIGN.md JSON format. The planner trusts the
validator (``engine.spec``) for everything it does not need itself, but it refuses input
it cannot plan (unknown ids, cycles, forward edges across unequal parallelism, ...) with a
:class:`PlanError` instead of producing a wrong plan.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from engine.plan.expectations import with_expectation_checks

SOURCE_TYPE_PREFIX = "source."
"""Node types starting with this prefix are sources."""

DEFAULT_MAX_PARALLELISM = 128
"""Max parallelism when a definition names none (raised to the parallelism if that is larger,
as ``engine.spec.normalise_definition`` does)."""

POINTWISE_PARTITIONINGS = frozenset({"forward", "rescale"})
ALL_TO_ALL_PARTITIONINGS = frozenset({"hash", "rebalance", "broadcast"})
EXCHANGES = frozenset({"pipelined", "blocking"})


class PlanError(ValueError):
    """A pipeline definition the planner cannot turn into a plan."""


class DistributionPattern(str, Enum):
    """How the subtasks of a job edge's producer connect to those of its consumer."""

    POINTWISE = "POINTWISE"
    ALL_TO_ALL = "ALL_TO_ALL"


class ResultPartitionType(str, Enum):
    """Whether a consumer reads a result while it is produced or after it was finished."""

    PIPELINED = "PIPELINED"
    BLOCKING = "BLOCKING"


@dataclass(frozen=True)
class JobVertex:
    """One chain of operators, run as ``parallelism`` subtasks."""

    id: str
    """The id of the chain's head node."""
    operators: tuple[dict, ...] = field(hash=False)
    """The node dicts of the chain, head first."""
    parallelism: int
    max_parallelism: int
    chain_inputs: tuple[int, ...] | None = field(default=None, hash=False)
    """Per operator, the position of the chained operator that feeds it (-1 for the head);
    None: a linear chain, each operator fed by the one before it."""

    @property
    def name(self) -> str:
        if self.is_linear_chain:
            return " -> ".join(operator["id"] for operator in self.operators)
        return self._subtree_name(0)

    def _subtree_name(self, position: int) -> str:
        below = [self._subtree_name(child) for child in self.chained_outputs(position)]
        own = self.operators[position]["id"]
        if not below:
            return own
        return f"{own} -> {below[0]}" if len(below) == 1 else f"{own} -> [{', '.join(below)}]"

    @property
    def is_linear_chain(self) -> bool:
        """Whether each operator feeds at most one chained operator (no fan-out in the chain)."""
        return self.chain_inputs is None or all(feeder == position - 1
                                                for position, feeder in enumerate(self.chain_inputs))

    def chained_input(self, position: int) -> int | None:
        """The position of the operator that feeds the one at ``position`` in the chain; None for the head."""
        if position == 0:
            return None
        return position - 1 if self.chain_inputs is None else self.chain_inputs[position]

    def chained_outputs(self, position: int) -> list[int]:
        """The positions of the operators that the one at ``position`` feeds in the chain, in order."""
        if self.chain_inputs is None:
            return [position + 1] if position + 1 < len(self.operators) else []
        return [child for child, feeder in enumerate(self.chain_inputs) if feeder == position and child > 0]

    @property
    def is_source(self) -> bool:
        return str(self.operators[0].get("type", "")).startswith(SOURCE_TYPE_PREFIX)

    @property
    def operator_ids(self) -> tuple[str, ...]:
        return tuple(operator["id"] for operator in self.operators)


@dataclass(frozen=True)
class JobEdge:
    """A definition edge between two job vertices (an exchange that was not chained away)."""

    id: str
    source: str
    target: str
    source_node: str
    target_node: str
    partitioning: str
    key: str | None
    distribution: DistributionPattern
    result_type: ResultPartitionType
    source_port: str | None = None
    """The named output port of ``source_node`` the edge leaves (``"late"``), None for the main output."""
    side: str | None = None
    """Which input of a two-input operator (``join.*``) the edge feeds: ``left`` or ``right``."""

    @property
    def is_blocking(self) -> bool:
        return self.result_type is ResultPartitionType.BLOCKING


@dataclass
class JobGraph:
    """Job vertices in a deterministic topological order and the job edges between them.

    It also answers the job-wide facts every part of the engine needs the same answer to:
    :attr:`has_blocking_exchanges`, :attr:`takes_checkpoints`, :attr:`takes_savepoints`,
    and :meth:`describe`.
    """

    vertices: list[JobVertex]
    edges: list[JobEdge]
    mode: str = "streaming"
    """The definition's ``mode``: streaming or batch (batch makes every exchange blocking)."""
    checkpointing: dict = field(default_factory=dict)
    """The definition's ``checkpointing`` section."""
    _by_id: dict[str, JobVertex] = field(init=False, repr=False)
    _position: dict[str, int] = field(init=False, repr=False)
    _inputs: dict[str, list[JobEdge]] = field(init=False, repr=False)
    _outputs: dict[str, list[JobEdge]] = field(init=False, repr=False)
    _vertex_of_node: dict[str, JobVertex] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {vertex.id: vertex for vertex in self.vertices}
        self._position = {vertex.id: index for index, vertex in enumerate(self.vertices)}
        self._inputs = {vertex.id: [] for vertex in self.vertices}
        self._outputs = {vertex.id: [] for vertex in self.vertices}
        for edge in self.edges:
            self._outputs[edge.source].append(edge)
            self._inputs[edge.target].append(edge)
        self._vertex_of_node = {
            operator["id"]: vertex for vertex in self.vertices for operator in vertex.operators
        }

    def vertex(self, vertex_id: str) -> JobVertex:
        return self._by_id[vertex_id]

    def inputs_of(self, vertex_id: str) -> list[JobEdge]:
        return self._inputs[vertex_id]

    def outputs_of(self, vertex_id: str) -> list[JobEdge]:
        return self._outputs[vertex_id]

    def vertex_of_node(self, node_id: str) -> JobVertex:
        return self._vertex_of_node[node_id]

    def topological_position(self, vertex_id: str) -> int:
        """Return the index of the vertex in :attr:`vertices` (a topological order)."""
        return self._position[vertex_id]

    @property
    def has_blocking_exchanges(self) -> bool:
        """Whether some exchange is blocking (always in batch mode): then regions run one
        after another as their inputs complete, and no checkpoint can span the job."""
        return any(edge.is_blocking for edge in self.edges)

    @property
    def takes_savepoints(self) -> bool:
        """Whether the job can snapshot at all: only when no exchange is blocking."""
        return self.mode != "batch" and not self.has_blocking_exchanges

    @property
    def takes_checkpoints(self) -> bool:
        """Whether the job takes periodic checkpoints: it can snapshot, checkpointing is not
        switched off and has an interval. Two-phase-commit sinks then commit on checkpoints
        (and wait for a final one), otherwise at their end."""
        section = self.checkpointing or {}
        return (self.takes_savepoints and section.get("enabled") is not False
                and bool(section.get("interval_ms", 1000)))

    def describe(self) -> dict:
        """The per-vertex facts the coordinator, ``_metadata`` and metrics need, plain data.

        ``{vertex: {"parallelism", "max_parallelism", "operators": [node ids],
        "inputs": [{"source": vertex, "pattern": "ALL_TO_ALL" | "POINTWISE"}]}}``.
        """
        return {vertex.id: {"parallelism": vertex.parallelism, "max_parallelism": vertex.max_parallelism,
                            "operators": list(vertex.operator_ids),
                            "inputs": [{"source": edge.source, "pattern": edge.distribution.value}
                                       for edge in self.inputs_of(vertex.id)]}
                for vertex in self.vertices}


def build_job_graph(definition: dict, *, chain_fan_out: bool = True) -> JobGraph:
    """Chain the operators of a pipeline definition into a JobGraph (``chain_fan_out``: see
    "Fan-out chaining" above)."""
    definition = with_expectation_checks(definition)
    nodes = _nodes_by_id(definition)
    edges = _definition_edges(definition, nodes)
    order = _topological_node_order(definition["nodes"], edges)
    parallelism = {node_id: _parallelism(definition, node) for node_id, node in nodes.items()}
    chained_successors = _chained_successors(definition, edges, parallelism, chain_fan_out)
    chains = _chains(order, chained_successors)
    vertex_of_node = {node_id: chain[0] for chain, _ in chains for node_id in chain}
    vertices = [
        JobVertex(
            id=chain[0],
            operators=tuple(nodes[node_id] for node_id in chain),
            parallelism=parallelism[chain[0]],
            max_parallelism=_max_parallelism(definition, nodes[chain[0]]),
            chain_inputs=None if all(feeder == position - 1 for position, feeder in enumerate(inputs))
            else tuple(inputs),
        )
        for chain, inputs in chains
    ]
    job_edges = [
        _job_edge(definition, edge, vertex_of_node)
        for edge in edges
        if edge["to"] not in chained_successors.get(edge["from"], ())
    ]
    return JobGraph(vertices=vertices, edges=job_edges, mode=definition.get("mode") or "streaming",
                    checkpointing=dict(definition.get("checkpointing") or {}))


def _nodes_by_id(definition: dict) -> dict[str, dict]:
    nodes: dict[str, dict] = {}
    for node in definition.get("nodes", ()):
        node_id = node.get("id")
        if not isinstance(node_id, str) or not node_id:
            raise PlanError(f"a node has no id: {node!r}")
        if node_id in nodes:
            raise PlanError(f"node id '{node_id}' is used twice")
        nodes[node_id] = node
    if not nodes:
        raise PlanError("the pipeline has no nodes")
    return nodes


def _definition_edges(definition: dict, nodes: dict[str, dict]) -> list[dict[str, Any]]:
    """Return the edges with their defaults filled in, checked for what planning needs."""
    edges = []
    seen_ids: set[str] = set()
    for position, edge in enumerate(definition.get("edges", ())):
        source, target = edge.get("from"), edge.get("to")
        edge_id = edge.get("id") or f"{source}->{target}#{position}"
        if edge_id in seen_ids:
            raise PlanError(f"edge id '{edge_id}' is used twice")
        seen_ids.add(edge_id)
        for end in (source, target):
            if end not in nodes:
                raise PlanError(f"edge '{edge_id}' references unknown node '{end}'")
        partitioning = edge.get("partitioning") or "forward"
        if partitioning not in POINTWISE_PARTITIONINGS | ALL_TO_ALL_PARTITIONINGS:
            raise PlanError(f"edge '{edge_id}' has unknown partitioning '{partitioning}'")
        exchange = edge.get("exchange") or "pipelined"
        if exchange not in EXCHANGES:
            raise PlanError(f"edge '{edge_id}' has unknown exchange '{exchange}'")
        edges.append({**edge, "id": edge_id, "partitioning": partitioning, "exchange": exchange})
    for edge in edges:
        _check_forward_parallelism(definition, edge, nodes)
    return edges


def _check_forward_parallelism(definition: dict, edge: dict, nodes: dict[str, dict]) -> None:
    if edge["partitioning"] != "forward":
        return
    source = _parallelism(definition, nodes[edge["from"]])
    target = _parallelism(definition, nodes[edge["to"]])
    if source != target:
        raise PlanError(
            f"edge '{edge['id']}' is forward but '{edge['from']}' has parallelism {source} "
            f"and '{edge['to']}' has {target}; use rescale, rebalance or hash"
        )


def _parallelism(definition: dict, node: dict) -> int:
    value = node.get("parallelism", definition.get("parallelism", 1))
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise PlanError(f"node '{node['id']}' has invalid parallelism {value!r}")
    return value


def _max_parallelism(definition: dict, node: dict) -> int:
    default = max(DEFAULT_MAX_PARALLELISM, definition.get("parallelism", 1))
    value = node.get("max_parallelism", definition.get("max_parallelism", default))
    parallelism = _parallelism(definition, node)
    if not isinstance(value, int) or isinstance(value, bool) or value < parallelism:
        raise PlanError(
            f"node '{node['id']}' has max_parallelism {value!r} below its parallelism {parallelism}"
        )
    return value


def _topological_node_order(node_list: list[dict], edges: list[dict]) -> list[str]:
    """Kahn's algorithm; among ready nodes the one listed first in the definition goes first."""
    position = {node["id"]: index for index, node in enumerate(node_list)}
    successors: dict[str, list[str]] = {node_id: [] for node_id in position}
    in_degree = dict.fromkeys(position, 0)
    for edge in edges:
        successors[edge["from"]].append(edge["to"])
        in_degree[edge["to"]] += 1
    ready = [position[node_id] for node_id, degree in in_degree.items() if degree == 0]
    heapq.heapify(ready)
    ids = [node["id"] for node in node_list]
    order: list[str] = []
    while ready:
        node_id = ids[heapq.heappop(ready)]
        order.append(node_id)
        for successor in successors[node_id]:
            in_degree[successor] -= 1
            if in_degree[successor] == 0:
                heapq.heappush(ready, position[successor])
    if len(order) != len(ids):
        stuck = sorted(node_id for node_id, degree in in_degree.items() if degree > 0)
        raise PlanError(f"the pipeline has a cycle through nodes {stuck}")
    return order


def _chained_successors(
    definition: dict, edges: list[dict], parallelism: dict[str, int], fan_out: bool
) -> dict[str, list[str]]:
    """Map each node to the nodes chained right after it, in the edges' order (see the chaining rule
    above; without ``fan_out`` only a node's only output chains)."""
    outputs: dict[str, list[dict]] = {}
    inputs: dict[str, list[dict]] = {}
    for edge in edges:
        outputs.setdefault(edge["from"], []).append(edge)
        inputs.setdefault(edge["to"], []).append(edge)
    successors = {}
    for edge in edges:
        source, target = edge["from"], edge["to"]
        if (
            (fan_out or len(outputs[source]) == 1)
            and len(inputs[target]) == 1
            and edge["partitioning"] == "forward"
            and edge["exchange"] == "pipelined"
            and edge.get("from_port") is None
            and parallelism[source] == parallelism[target]
        ):
            successors.setdefault(source, []).append(target)
    return successors


def _chains(order: list[str], chained_successors: dict[str, list[str]]) -> list[tuple[list[str], list[int]]]:
    """Return the chains, ordered by the topological position of their heads: each its node ids,
    parent before child (depth first, a node's successors in topological order), and per node the
    position of the node that feeds it (-1 for the head)."""
    position = {node_id: index for index, node_id in enumerate(order)}
    chained = {target for targets in chained_successors.values() for target in targets}
    chains = []
    for node_id in order:
        if node_id in chained:
            continue
        chain: list[str] = []
        inputs: list[int] = []
        waiting = [(node_id, -1)]
        while waiting:
            current, feeder = waiting.pop()
            inputs.append(feeder)
            chain.append(current)
            here = len(chain) - 1
            below = sorted(chained_successors.get(current, ()), key=position.__getitem__)
            waiting.extend((successor, here) for successor in reversed(below))
        chains.append((chain, inputs))
    return chains


def _job_edge(definition: dict, edge: dict, vertex_of_node: dict[str, str]) -> JobEdge:
    partitioning = edge["partitioning"]
    blocking = edge["exchange"] == "blocking" or definition.get("mode") == "batch"
    return JobEdge(
        id=edge["id"],
        source=vertex_of_node[edge["from"]],
        target=vertex_of_node[edge["to"]],
        source_node=edge["from"],
        target_node=edge["to"],
        partitioning=partitioning,
        key=edge.get("key"),
        distribution=(
            DistributionPattern.POINTWISE
            if partitioning in POINTWISE_PARTITIONINGS
            else DistributionPattern.ALL_TO_ALL
        ),
        result_type=ResultPartitionType.BLOCKING if blocking else ResultPartitionType.PIPELINED,
        source_port=edge.get("from_port"),
        side=edge.get("side"),
    )
