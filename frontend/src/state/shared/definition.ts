/**
 * Conversion between a pipeline definition (what the studio stores and the engine runs) and
 * the React Flow graph the editor draws. graphToDefinition(definitionToGraph(d)) === d for
 * every definition the editor writes: settings it does not edit travel through untouched.
 */
import type { DefinitionEdge, DefinitionNode, PipelineDefinition, PipelineSettings } from '../../api/types';
import type { OperatorNode, PipelineEdge } from './graph';

export type { PipelineSettings };

export interface PipelineGraph {
  settings: PipelineSettings;
  nodes: OperatorNode[];
  edges: PipelineEdge[];
}

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1000;

export function newPipelineSettings(name = 'untitled-pipeline'): PipelineSettings {
  return {
    format: 1,
    name,
    mode: 'streaming',
    parallelism: 1,
    max_parallelism: 128,
    checkpointing: { interval_ms: DEFAULT_CHECKPOINT_INTERVAL_MS, mode: 'exactly_once' },
  };
}

export function emptyDefinition(name?: string): PipelineDefinition {
  return { ...newPipelineSettings(name), nodes: [], edges: [] };
}

const COLUMN_WIDTH = 320;
const ROW_HEIGHT = 120;
const ORIGIN = { x: 60, y: 60 };

/**
 * Positions for nodes saved without `ui` (a definition written through the REST API):
 * one column per longest-path depth from the sources, one row per node in a column.
 */
export function layeredPositions(def: Pick<PipelineDefinition, 'nodes' | 'edges'>): Map<string, { x: number; y: number }> {
  const depth = new Map<string, number>(def.nodes.map((node) => [node.id, 0]));
  // Relax edges |nodes| times: enough for any acyclic graph, bounded for a cyclic one.
  for (let round = 0; round < def.nodes.length; round += 1) {
    let changed = false;
    for (const edge of def.edges) {
      const from = depth.get(edge.from);
      const to = depth.get(edge.to);
      if (from === undefined || to === undefined || to >= from + 1) continue;
      depth.set(edge.to, from + 1);
      changed = true;
    }
    if (!changed) break;
  }
  const rowsUsed = new Map<number, number>();
  const positions = new Map<string, { x: number; y: number }>();
  for (const node of def.nodes) {
    const column = depth.get(node.id) ?? 0;
    const row = rowsUsed.get(column) ?? 0;
    rowsUsed.set(column, row + 1);
    positions.set(node.id, { x: ORIGIN.x + column * COLUMN_WIDTH, y: ORIGIN.y + row * ROW_HEIGHT });
  }
  return positions;
}

function toFlowNode(node: DefinitionNode, fallback: { x: number; y: number }): OperatorNode {
  const data: OperatorNode['data'] = { type: node.type, params: { ...(node.params ?? {}) } };
  if (node.parallelism !== undefined) data.parallelism = node.parallelism;
  if (node.expectations?.length) data.expectations = node.expectations.map((expectation) => ({ ...expectation }));
  const position = node.ui ? { x: node.ui.x, y: node.ui.y } : fallback;
  return { id: node.id, type: 'operator', position, data };
}

/** A definition edge as a React Flow edge between `source` and `target` (the edge's own nodes unless given). */
export function toFlowEdge(edge: DefinitionEdge, source = edge.from, target = edge.to): PipelineEdge {
  const data: PipelineEdge['data'] = { partitioning: edge.partitioning, exchange: edge.exchange };
  if (edge.key !== undefined) data.key = edge.key;
  if (edge.expectations?.length) data.expectations = edge.expectations.map((expectation) => ({ ...expectation }));
  const flowEdge: PipelineEdge = { id: edge.id, type: 'pipeline', source, target, data };
  if (edge.from_port) flowEdge.sourceHandle = edge.from_port;
  if (edge.side) flowEdge.targetHandle = edge.side;
  return flowEdge;
}

export function definitionToGraph(definition: PipelineDefinition): PipelineGraph {
  const { nodes = [], edges = [], ...settings } = definition;
  const fallback = layeredPositions({ nodes, edges });
  return {
    settings,
    nodes: nodes.map((node) => toFlowNode(node, fallback.get(node.id) ?? ORIGIN)),
    edges: edges.map((edge) => toFlowEdge(edge)),
  };
}

function toDefinitionNode(node: OperatorNode): DefinitionNode {
  const result: DefinitionNode = { id: node.id, type: node.data.type, params: { ...node.data.params } };
  if (node.data.parallelism !== undefined) result.parallelism = node.data.parallelism;
  if (node.data.expectations?.length) result.expectations = node.data.expectations.map((expectation) => ({ ...expectation }));
  result.ui = { x: Math.round(node.position.x), y: Math.round(node.position.y) };
  return result;
}

function toDefinitionEdge(edge: PipelineEdge): DefinitionEdge {
  const data = edge.data ?? { partitioning: 'forward', exchange: 'pipelined' };
  const result: DefinitionEdge = {
    id: edge.id,
    from: edge.source,
    to: edge.target,
    partitioning: data.partitioning,
    exchange: data.exchange,
  };
  // A named output port is the handle the edge was drawn from; the main output has none.
  if (edge.sourceHandle) result.from_port = edge.sourceHandle;
  // A join's named input is the handle the edge was dropped on.
  if (edge.targetHandle) result.side = edge.targetHandle;
  // A key only means something for hash partitioning; switching away keeps it in the
  // editor (switching back restores it) but never sends it.
  if (data.partitioning === 'hash') result.key = data.key ?? '';
  if (data.expectations?.length) result.expectations = data.expectations.map((expectation) => ({ ...expectation }));
  return result;
}

export function graphToDefinition(settings: PipelineSettings, nodes: OperatorNode[], edges: PipelineEdge[]): PipelineDefinition {
  return {
    ...settings,
    nodes: nodes.map(toDefinitionNode),
    edges: edges.map(toDefinitionEdge),
  };
}
