/**
 * The graph of a run as Flink's web UI draws a job: one box per job vertex, holding the operators
 * its task thread runs side by side in chain order, and arrows only where records leave a thread
 * (between vertices). Chained operators need no edge between them: they are the next cell, an
 * arrow-head on the divider. A chain that fans out (an operator feeding several chained ones, the
 * plan's `chain_inputs`) is a tree, and is drawn as one: a column per step from the head, the
 * branches stacked in rows, each cell right of the one that feeds it (which spans the rows of its
 * branches), never after a sibling. An edge leaving the box leaves from the cell of the operator
 * that sends it.
 *
 * Boxes are laid out by the shared auto-layout (dagre, connected parts packed in rows), with the
 * cell sizes RunVertexNode draws, so a 30-operator pipeline fits a laptop screen at a readable
 * zoom. Without a plan (a run not scheduled yet) every operator is a vertex of its own.
 */
import type { PipelineDefinition, PlanSummary } from '../../api/types';
import { toFlowEdge } from '../shared/definition';
import type { ChainedOperator, PipelineEdge, VertexNode, VertexNodeData } from '../shared/graph';
import { nodeQuarantinePorts } from '../shared/expectations';
import { chainDepths } from '../shared/chains';
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
  /** Per operator, the position in `operators` of the chained one that feeds it (-1 for the head). */
  feeders: number[];
  parallelism?: number;
}

/** The handle an edge leaving a box starts at: the cell of the operator that sends it. */
export function outputHandle(operator: string): string {
  return `out:${operator}`;
}

/**
 * The chain's feeders as the plan says them, for the operators the definition still has: each fed by the
 * one the plan names, else (a plan without `chain_inputs`, written before chains could fan out, or naming
 * an operator left out) by the one before it.
 */
function feedersOf(named: string[], operators: string[], chainInputs: number[] | undefined): number[] {
  const at = new Map(operators.map((id, position) => [id, position]));
  return operators.map((id, position) => {
    if (position === 0) return -1;
    const feeder = chainInputs?.[named.indexOf(id)];
    const index = feeder === undefined || feeder < 0 ? undefined : at.get(named[feeder]);
    return index !== undefined && index < position ? index : position - 1;
  });
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
    vertices.push({ id: vertex.id, operators, feeders: feedersOf(vertex.operators, operators, vertex.chain_inputs), parallelism: vertex.parallelism });
  }
  for (const node of definition.nodes) {
    if (!placed.has(node.id)) vertices.push({ id: node.id, operators: [node.id], feeders: [-1], parallelism: node.parallelism ?? definition.parallelism });
  }
  return vertices;
}

/** Each operator's cell in the box's grid: a column per step from the head, a row per branch (see ChainedOperator.cell). */
export function chainCells(feeders: number[]): { cells: Array<ChainedOperator['cell'] & { last: boolean }>; grid: VertexNodeData['grid'] } {
  const fed = feeders.map((_, position) => feeders.flatMap((feeder, child) => (feeder === position && child > 0 ? [child] : [])));
  const depth = chainDepths(feeders);
  const columns = Math.max(...depth) + 1;
  const cells: Array<ChainedOperator['cell'] & { last: boolean }> = feeders.map(() => ({ column: 0, row: 0, columns: 1, rows: 1, last: false }));
  let nextRow = 0;
  const place = (position: number): number => {
    const row = nextRow;
    if (fed[position].length === 0) nextRow += 1;
    else fed[position].forEach(place);
    const last = fed[position].length === 0;
    cells[position] = { column: depth[position], row, columns: last ? columns - depth[position] : 1, rows: nextRow - row, last };
    return nextRow;
  };
  place(0);
  return { cells, grid: { columns, rows: nextRow } };
}

/** The strip left of a two-input operator's cell where its inputs' names ("left", "right") stand, clear of its text. */
export const SIDES_GUTTER = 40;

/** A box of `columns` cells side by side, with the gutter for its head's input names when it has them. */
export function boxWidth(columns: number, sides = false): number {
  return columns * CELL_WIDTH + 2 * BOX_INSET + (sides ? SIDES_GUTTER - BOX_INSET : 0);
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
    .map((edge) => {
      const flowEdge = toFlowEdge(edge, vertexOf.get(edge.from), vertexOf.get(edge.to));
      return edge.from_port ? flowEdge : { ...flowEdge, sourceHandle: outputHandle(edge.from) };
    });
  const shapes = new Map(vertices.map((vertex) => [vertex.id, chainCells(vertex.feeders)]));
  const sided = new Set(definition.edges.filter((edge) => edge.side).map((edge) => edge.to));
  const positions = autoLayout(
    vertices.map((vertex) => {
      const { grid } = shapes.get(vertex.id)!;
      return { id: vertex.id, width: boxWidth(grid.columns, sided.has(vertex.operators[0])), height: Math.max(BOX_HEIGHT * grid.rows, heights[vertex.id] ?? 0) };
    }),
    edges,
    RUN_LAYOUT,
  );
  const nodes: VertexNode[] = vertices.map((vertex) => {
    const { cells, grid } = shapes.get(vertex.id)!;
    return {
      id: vertex.id,
      type: 'vertex',
      position: positions.get(vertex.id) ?? { x: 0, y: 0 },
      data: {
        operators: vertex.operators.map((id, position): ChainedOperator => {
          const { last, ...cell } = cells[position];
          const operator: ChainedOperator = { id, type: types.get(id) ?? '', cell, last };
          if (position > 0) operator.feeder = vertex.operators[vertex.feeders[position]];
          if (ports.get(id)?.length) operator.quarantinePorts = ports.get(id);
          return operator;
        }),
        grid,
        parallelism: vertex.parallelism,
      },
    };
  });
  return { nodes, edges };
}

/** The room an edge's arrowhead and the target's handle take at its end: no label is drawn over it. */
export const ARROW_CLEARANCE = 18;
/** The room left after the sending box's edge (its output handle). */
export const SOURCE_CLEARANCE = 4;
/** The widest a label grows on a long edge; the narrowest it is cut to on a short or backward one. */
export const LABEL_MAX_WIDTH = 180;
export const LABEL_MIN_WIDTH = 48;

/**
 * Where an edge's label stands and how wide it may be: centred on the stretch between the sending box
 * and the arrowhead, never wider than that stretch, so a long label (`hash(x["user"])` in the layout's
 * 110 px between boxes) is cut with an ellipsis instead of covering the arrowheads into a join. `x`
 * and `y` are the label's centre, in flow pixels.
 */
export function edgeLabelPlace(sourceX: number, sourceY: number, targetX: number, targetY: number): { x: number; y: number; maxWidth: number } {
  const from = sourceX + SOURCE_CLEARANCE;
  const to = targetX - ARROW_CLEARANCE;
  if (to - from < LABEL_MIN_WIDTH) return { x: (sourceX + targetX) / 2, y: (sourceY + targetY) / 2, maxWidth: LABEL_MIN_WIDTH };
  const x = (from + to) / 2;
  // on the curve: a bezier between two horizontal handles crosses x at about this height
  const t = (x - sourceX) / (targetX - sourceX);
  const eased = t * t * (3 - 2 * t);
  return { x, y: sourceY + (targetY - sourceY) * eased, maxWidth: Math.min(to - from, LABEL_MAX_WIDTH) };
}
