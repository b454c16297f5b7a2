/**
 * The React Flow elements of a pipeline graph. A node's data is the definition node minus
 * its id and position (React Flow owns those); an edge's data is the exchange between two nodes.
 */
import type { Edge, Node } from '@xyflow/react';
import type { Exchange, Expectation, Partitioning } from '../../api/types';

export type OperatorNodeData = {
  /** Operator type from the catalog, e.g. "source.datagen". */
  type: string;
  params: Record<string, unknown>;
  /** Overrides the pipeline's parallelism when set. */
  parallelism?: number;
  /** Data-quality rules on what the node emits (what a sink receives). */
  expectations?: Expectation[];
};

/** A node of the editable canvas. */
export type OperatorNode = Node<OperatorNodeData, 'operator'>;

/** One operator of a job vertex: a node of the pipeline. */
export interface ChainedOperator {
  id: string;
  /** Operator type from the catalog. */
  type: string;
  /** The output ports its expectations quarantine records to. */
  quarantinePorts?: string[];
  /** The chained operator that feeds it; none for the chain's head. */
  feeder?: string;
  /** Where its cell sits in the box's grid (0-based): a chain is a tree, one column per step from the head, one
   * row per branch; an operator spans the rows of the branches below it, a last operator reaches the right edge. */
  cell: { column: number; row: number; columns: number; rows: number };
  /** Whether it ends a branch of the chain (its records leave the box at the right edge, its cell reaching there). */
  last: boolean;
}

export type VertexNodeData = {
  /**
   * The operators one task thread runs, each after the one that feeds it (Flink's operator chain, a tree
   * when an operator fans out to several chained ones): records go from each to the next without
   * leaving the thread, so they share its busy / idle / backpressured time.
   */
  operators: ChainedOperator[];
  /** The box's grid: as many columns as the chain's longest branch has operators, a row per branch. */
  grid: { columns: number; rows: number };
  /** How many subtasks run the vertex, when known. */
  parallelism?: number;
};

/** A box of a run's read-only graph: one job vertex, with each operator's live metrics. */
export type VertexNode = Node<VertexNodeData, 'vertex'>;

export type PipelineEdgeData = {
  partitioning: Partitioning;
  /** Key selector expression; used only with hash partitioning. */
  key?: string;
  exchange: Exchange;
  /** Data-quality rules on the records crossing the edge (its quarantine ports are its source node's). */
  expectations?: Expectation[];
};

export type PipelineEdge = Edge<PipelineEdgeData, 'pipeline'>;

export const PARTITIONINGS: Partitioning[] = ['forward', 'rebalance', 'rescale', 'hash', 'broadcast'];
export const EXCHANGES: Exchange[] = ['pipelined', 'blocking'];

export function isOperatorNode(node: Node): node is OperatorNode {
  return node.type === 'operator';
}

export function isVertexNode(node: Node): node is VertexNode {
  return node.type === 'vertex';
}

/** The short text drawn on an edge: how records are partitioned and exchanged, and how many rules check them. */
export function edgeLabel(data: PipelineEdgeData, port?: string | null): string {
  const partitioning = data.partitioning === 'hash' ? `hash(${data.key?.trim() || '?'})` : data.partitioning;
  const exchanged = data.exchange === 'blocking' ? `${partitioning} · blocking` : partitioning;
  const rules = data.expectations?.length ?? 0;
  const label = rules ? `${exchanged} · ✓ ${rules} rule${rules === 1 ? '' : 's'}` : exchanged;
  return port ? `${port} · ${label}` : label;
}

export type DiffStatus = 'added' | 'removed' | 'changed' | 'same';

export type DiffNodeData = OperatorNodeData & {
  status: DiffStatus;
  /** "params.expression: "x" → "x * 2"", one per changed field. */
  changes: string[];
};

/** A node of a version diff: both versions in one drawing. */
export type DiffNode = Node<DiffNodeData, 'diff'>;

export type DiffEdgeData = PipelineEdgeData & { status: DiffStatus; changes: string[] };
export type DiffEdge = Edge<DiffEdgeData, 'diff'>;
