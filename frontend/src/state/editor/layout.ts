/**
 * Auto-layout: a layered left-to-right drawing (dagre) with sources on the left and sinks on
 * the right, spaced by each node's measured size (or the usual footprint before React Flow
 * measured it). Pure: returns the new top-left positions, the caller applies them.
 */
import dagre from '@dagrejs/dagre';
import { NODE_FOOTPRINT, type Point } from './graphEdits';

export interface LayoutNode {
  id: string;
  measured?: { width?: number; height?: number };
}

export interface LayoutEdge {
  source: string;
  target: string;
}

export const LAYOUT_SPACING = { rank: 90, node: 36, origin: { x: 60, y: 60 } };

export function autoLayout(nodes: LayoutNode[], edges: LayoutEdge[]): Map<string, Point> {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'LR', ranksep: LAYOUT_SPACING.rank, nodesep: LAYOUT_SPACING.node, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  const sizes = new Map<string, { width: number; height: number }>();
  for (const node of nodes) {
    const size = {
      width: node.measured?.width || NODE_FOOTPRINT.width,
      height: node.measured?.height || NODE_FOOTPRINT.height,
    };
    sizes.set(node.id, size);
    graph.setNode(node.id, size);
  }
  edges.forEach((edge, index) => {
    if (sizes.has(edge.source) && sizes.has(edge.target)) graph.setEdge(edge.source, edge.target, {}, `e${index}`);
  });
  dagre.layout(graph);
  const positions = new Map<string, Point>();
  let minX = Infinity;
  let minY = Infinity;
  for (const node of nodes) {
    const laid = graph.node(node.id);
    const size = sizes.get(node.id)!;
    const x = laid.x - size.width / 2;
    const y = laid.y - size.height / 2;
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    positions.set(node.id, { x, y });
  }
  for (const [id, point] of positions) {
    positions.set(id, {
      x: Math.round(point.x - minX + LAYOUT_SPACING.origin.x),
      y: Math.round(point.y - minY + LAYOUT_SPACING.origin.y),
    });
  }
  return positions;
}
