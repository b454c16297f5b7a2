/**
 * The graph of a run as Flink's web UI draws a job: one box per job vertex, holding the operators
 * its task thread runs side by side in chain order, and arrows only where records leave a thread
 * (between vertices). Chained operators need no arrow between them: they are the next cell.
 *
 * Boxes are laid out by the shared auto-layout (dagre, connected parts packed in rows), with the
 * cell sizes RunVertexNode draws, so a 30-operator pipeline fits a laptop screen at a readable
 * zoom. Without a plan (a run not scheduled yet) every operator is a vertex of its own.
 */
import type { PipelineDefinition, PlanSummary } from '../../api/types';
import { toFlowEdge } from '../shared/definition';
import type { PipelineEdge, VertexNode } from '../shared/graph';
import { nodeQuarantinePorts } from '../shared/expectations';
import { autoLayout, type LayoutSpacing } from '../shared/layout';

/** One operator's cell, in flow pixels (RunVertexNode sets the same width). */
export const CELL_WIDTH = 124;
/** The box's border and padding around its row of cells, on each side. */
export const BOX_INSET = 4;
/** A box: three lines of 12-13 px text (name, in, out), padding and the activity bar. A box grows with
 * the figures a run reports (a watermark, lag, latency, an exactly-once sink's visible latency): the
 * run graph lays out again with the heights React Flow measured (`heights`), so stacked boxes never
 * cover each other. */
export const BOX_HEIGHT = 76;

/** Tighter than the editor's: boxes are compact, and the run page shows more than the graph. */
export const RUN_LAYOUT: LayoutSpacing = { rank: 110, node: 20, origin: { x: 0, y: 0 }, aspect: 4 };

export interface RunGraph {
  nodes: VertexNode[];
  edges: PipelineEdge[];
}

interface Vertex {
  id: string;
  operators: string[];
  parallelism?: number;
}

/** The plan's vertices with the definition's nodes, each node in exactly one (its own when the plan lacks it). */
function verticesOf(definition: PipelineDefinition, plan: Pick<PlanSummary, 'job_vertices'> | null | undefined): Vertex[] {
  const known = new Set(definition.nodes.map((node) => node.id));
  const vertices: Vertex[] = [];
  const placed = new Set<string>();
  for (const vertex of plan?.job_vertices ?? []) {
    const operators = vertex.operators.filter((id) => known.has(id) && !placed.has(id));
    if (operators.length === 0) continue;
    operators.forEach((id) => placed.add(id));
    vertices.push({ id: vertex.id, operators, parallelism: vertex.parallelism });
  }
  for (const node of definition.nodes) {
    if (!placed.has(node.id)) vertices.push({ id: node.id, operators: [node.id], parallelism: node.parallelism ?? definition.parallelism });
  }
  return vertices;
}

export function boxWidth(operators: number): number {
  return operators * CELL_WIDTH + 2 * BOX_INSET;
}

/**
 * `heights`: the boxes' measured heights by vertex id, where larger than `BOX_HEIGHT` (a box with more
 * figures than its three lines); the others are laid out at `BOX_HEIGHT`.
 */
export function runGraph(definition: PipelineDefinition, plan: Pick<PlanSummary, 'job_vertices'> | null | undefined,
  heights: Readonly<Record<string, number>> = {}): RunGraph {
  const types = new Map(definition.nodes.map((node) => [node.id, node.type]));
  const ports = new Map(definition.nodes.map((node) => [node.id, nodeQuarantinePorts(node.id, node.expectations, definition.edges)]));
  const vertices = verticesOf(definition, plan);
  const vertexOf = new Map(vertices.flatMap((vertex) => vertex.operators.map((id) => [id, vertex.id] as const)));
  const edges = definition.edges
    .filter((edge) => vertexOf.has(edge.from) && vertexOf.has(edge.to) && vertexOf.get(edge.from) !== vertexOf.get(edge.to))
    .map((edge) => toFlowEdge(edge, vertexOf.get(edge.from), vertexOf.get(edge.to)));
  const positions = autoLayout(
    vertices.map((vertex) => ({ id: vertex.id, width: boxWidth(vertex.operators.length), height: Math.max(BOX_HEIGHT, heights[vertex.id] ?? 0) })),
    edges,
    RUN_LAYOUT,
  );
  const nodes: VertexNode[] = vertices.map((vertex) => ({
    id: vertex.id,
    type: 'vertex',
    position: positions.get(vertex.id) ?? { x: 0, y: 0 },
    data: {
      operators: vertex.operators.map((id) => (ports.get(id)?.length ? { id, type: types.get(id) ?? '', quarantinePorts: ports.get(id) } : { id, type: types.get(id) ?? '' })),
      parallelism: vertex.parallelism,
    },
  }));
  return { nodes, edges };
}
