/**
 * Pure rules for editing the graph: readable unique ids, where a clicked palette item lands,
 * what a new edge looks like and which connections are allowed.
 */
import type { Operator } from '../../api/types';
import type { PipelineEdge, PipelineEdgeData } from '../shared/graph';
import type { Point } from '../shared/layout';

const TRAILING_NUMBER = /-(\d+)$/;

function highestNumber(ids: Iterable<string>, pattern: RegExp): number {
  let highest = 0;
  for (const id of ids) {
    const match = id.match(pattern);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

/** "source.datagen" → "datagen"; "sink.redis_stream" → "redis-stream". */
export function nodeIdPrefix(operatorType: string): string {
  const name = operatorType.includes('.') ? operatorType.slice(operatorType.indexOf('.') + 1) : operatorType;
  return name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'node';
}

/**
 * A readable id numbered after every node so far ("datagen-1", "map-2", "collect-3"), so a
 * number is never reused while the pipeline has a node carrying it.
 */
export function nextNodeId(operatorType: string, existingIds: Iterable<string>): string {
  const ids = new Set(existingIds);
  let number = highestNumber(ids, TRAILING_NUMBER) + 1;
  const prefix = nodeIdPrefix(operatorType);
  while (ids.has(`${prefix}-${number}`)) number += 1;
  return `${prefix}-${number}`;
}

export function nextEdgeId(existingIds: Iterable<string>): string {
  const ids = new Set(existingIds);
  let number = highestNumber(ids, /^e(\d+)$/) + 1;
  while (ids.has(`e${number}`)) number += 1;
  return `e${number}`;
}

export type { Point };

/** The size a node is assumed to take when looking for free space. */
export const NODE_FOOTPRINT = { width: 220, height: 84 };

/** Where a category sits in a pipeline, left to right. */
const RANK_OF_CATEGORY: Record<string, number> = { source: 0, transform: 1, aggregate: 2, window: 2, sink: 3 };
const COLUMN_WIDTH = 320;
const ROW_HEIGHT = 110;
const ORIGIN: Point = { x: 60, y: 60 };

export interface PlacedNode extends Point {
  category?: string;
}

function rankOf(category: string | undefined): number {
  return RANK_OF_CATEGORY[category ?? ''] ?? 1;
}

function overlaps(a: Point, b: Point): boolean {
  return Math.abs(a.x - b.x) < NODE_FOOTPRINT.width && Math.abs(a.y - b.y) < NODE_FOOTPRINT.height;
}

/**
 * Where a node added by clicking the palette goes: one column right of the rightmost node that
 * comes earlier in a pipeline (sources, then transforms, then aggregates and windows, then
 * sinks), in the first row of that column where it overlaps no node.
 */
export function freePosition(category: string, placed: PlacedNode[]): Point {
  const rank = rankOf(category);
  const upstream = placed.filter((node) => rankOf(node.category) < rank);
  const x = upstream.length === 0 ? ORIGIN.x : Math.max(...upstream.map((node) => node.x)) + COLUMN_WIDTH;
  for (let row = 0; ; row += 1) {
    const candidate = { x, y: ORIGIN.y + row * ROW_HEIGHT };
    if (!placed.some((point) => overlaps(point, candidate))) return candidate;
  }
}

/** A new edge hashes into keyed operators (the user then writes the key) and forwards otherwise. */
export function defaultEdgeData(target: Operator | undefined): PipelineEdgeData {
  if (target?.keyed) return { partitioning: 'hash', key: '', exchange: 'pipelined' };
  return { partitioning: 'forward', exchange: 'pipelined' };
}

export interface ConnectionCandidate {
  source: string | null;
  target: string | null;
  /** The named output port dragged from (null: the main output). */
  sourceHandle?: string | null;
  /** The named input dropped on (a join's "left" or "right"; null for other operators). */
  targetHandle?: string | null;
}

/**
 * Why a connection may not be drawn, or null when it may. Deeper checks (cycles, forward
 * needing equal parallelism, ...) are the server validation's job.
 */
export function connectionProblem(
  connection: ConnectionCandidate,
  edges: Pick<PipelineEdge, 'source' | 'target' | 'sourceHandle' | 'targetHandle'>[],
  operatorOf: (nodeId: string) => Operator | undefined,
): string | null {
  const { source, target } = connection;
  if (!source || !target) return 'An edge needs both ends.';
  if (source === target) return 'A node cannot feed itself.';
  const port = connection.sourceHandle ?? null;
  const side = connection.targetHandle ?? null;
  if (edges.some((edge) => edge.source === source && edge.target === target && (edge.sourceHandle ?? null) === port
      && (edge.targetHandle ?? null) === side)) {
    return 'These nodes are already connected.';
  }
  const from = operatorOf(source);
  const to = operatorOf(target);
  if (from && from.outputs === 0) return `${from.title} has no output.`;
  if (to && to.inputs === 0) return `${to.title} has no input.`;
  if (to && to.inputs === 1 && edges.some((edge) => edge.target === target)) return `${to.title} takes one input.`;
  if (to?.input_sides?.length && side && edges.some((edge) => edge.target === target && edge.targetHandle === side)) {
    return `${to.title} already has a ${side} input.`;
  }
  return null;
}
