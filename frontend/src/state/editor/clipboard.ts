/**
 * Copy, paste and duplicate of a selection. A copy holds the selected nodes and the edges
 * between them (an edge to a node left behind has nowhere to go). Pasting gives every node a
 * fresh readable id, rewires the copied edges to the new ids, shifts the copies so they do not
 * hide the originals, and selects exactly what was pasted.
 */
import type { OperatorNode, PipelineEdge } from '../shared/graph';
import { nextEdgeId, nextNodeId, type Point } from './graphEdits';

export interface Clipboard {
  nodes: OperatorNode[];
  edges: PipelineEdge[];
}

/** How far each paste moves the copies from where they were copied. */
export const PASTE_OFFSET: Point = { x: 40, y: 40 };

function cleanNode(node: OperatorNode): OperatorNode {
  const { selected: _selected, dragging: _dragging, measured: _measured, ...rest } = node;
  void _selected;
  void _dragging;
  void _measured;
  return { ...rest, data: { ...node.data, params: structuredCloneJson(node.data.params) } };
}

function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The selected nodes and the edges among them; null when no node is selected. */
export function copySelection(nodes: OperatorNode[], edges: PipelineEdge[]): Clipboard | null {
  const picked = nodes.filter((node) => node.selected);
  if (picked.length === 0) return null;
  const ids = new Set(picked.map((node) => node.id));
  return {
    nodes: picked.map(cleanNode),
    edges: edges
      .filter((edge) => ids.has(edge.source) && ids.has(edge.target))
      .map(({ selected: _selected, ...edge }) => {
        void _selected;
        return { ...edge, data: edge.data ? { ...edge.data } : edge.data };
      }),
  };
}

export interface Pasted {
  nodes: OperatorNode[];
  edges: PipelineEdge[];
  /** Old id → new id, for every pasted node. */
  idMap: Map<string, string>;
}

/** The clipboard's elements with fresh ids, moved by `offset`, selected. */
export function pasteElements(clipboard: Clipboard, existingNodes: OperatorNode[], existingEdges: PipelineEdge[], offset: Point = PASTE_OFFSET): Pasted {
  const nodeIds = existingNodes.map((node) => node.id);
  const edgeIds = existingEdges.map((edge) => edge.id);
  const idMap = new Map<string, string>();
  const nodes = clipboard.nodes.map((node) => {
    const id = nextNodeId(node.data.type, nodeIds);
    nodeIds.push(id);
    idMap.set(node.id, id);
    return {
      ...cleanNode(node),
      id,
      position: { x: Math.round(node.position.x + offset.x), y: Math.round(node.position.y + offset.y) },
      selected: true,
    };
  });
  const edges = clipboard.edges.map((edge) => {
    const id = nextEdgeId(edgeIds);
    edgeIds.push(id);
    return {
      ...edge,
      id,
      source: idMap.get(edge.source) ?? edge.source,
      target: idMap.get(edge.target) ?? edge.target,
      selected: false,
      data: edge.data ? { ...edge.data } : edge.data,
    };
  });
  return { nodes, edges, idMap };
}
