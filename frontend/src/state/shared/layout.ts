/**
 * Auto-layout: each connected part of the graph drawn layered left to right (dagre), sources on
 * the left and sinks on the right, spaced by each node's size; the parts then packed in rows
 * like words in a paragraph, in the order their first node came, so that nodes not connected
 * yet spread over the page instead of piling up in one column. Pure: returns the new top-left
 * positions, the caller applies them.
 */
import dagre from '@dagrejs/dagre';

export interface Point {
  x: number;
  y: number;
}

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
}

export interface LayoutEdge {
  source: string;
  target: string;
}

export interface LayoutSpacing {
  /** Between the layers (columns) of one part. */
  rank: number;
  /** Between nodes of one layer, and between the parts. */
  node: number;
  origin: Point;
  /** The shape the packed parts aim for, width over height. */
  aspect: number;
}

export const LAYOUT_SPACING: LayoutSpacing = { rank: 90, node: 36, origin: { x: 60, y: 60 }, aspect: 16 / 9 };

interface Part {
  nodes: LayoutNode[];
  positions: Map<string, Point>;
  width: number;
  height: number;
}

/** The connected parts, each listing its nodes in the order given. */
function connectedParts(nodes: LayoutNode[], edges: LayoutEdge[]): LayoutNode[][] {
  const root = new Map(nodes.map((node) => [node.id, node.id]));
  const find = (id: string): string => {
    let at = id;
    while (root.get(at) !== at) at = root.get(at)!;
    root.set(id, at);
    return at;
  };
  for (const edge of edges) {
    if (root.has(edge.source) && root.has(edge.target)) root.set(find(edge.source), find(edge.target));
  }
  const parts = new Map<string, LayoutNode[]>();
  for (const node of nodes) {
    const key = find(node.id);
    parts.set(key, [...(parts.get(key) ?? []), node]);
  }
  return [...parts.values()];
}

/** One part drawn by dagre, its positions relative to its own top-left corner. */
function layPart(nodes: LayoutNode[], edges: LayoutEdge[], spacing: LayoutSpacing): Part {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'LR', ranksep: spacing.rank, nodesep: spacing.node, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodes.map((node) => node.id));
  for (const node of nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  edges.forEach((edge, index) => {
    if (ids.has(edge.source) && ids.has(edge.target)) graph.setEdge(edge.source, edge.target, {}, `e${index}`);
  });
  dagre.layout(graph);
  const corners = nodes.map((node) => {
    const centre = graph.node(node.id);
    return { id: node.id, x: centre.x - node.width / 2, y: centre.y - node.height / 2 };
  });
  const minX = Math.min(...corners.map((corner) => corner.x));
  const minY = Math.min(...corners.map((corner) => corner.y));
  const positions = new Map(corners.map((corner) => [corner.id, { x: corner.x - minX, y: corner.y - minY }]));
  const width = Math.max(...nodes.map((node) => positions.get(node.id)!.x + node.width));
  const height = Math.max(...nodes.map((node) => positions.get(node.id)!.y + node.height));
  return { nodes, positions, width, height };
}

export function autoLayout(nodes: LayoutNode[], edges: LayoutEdge[], spacing: LayoutSpacing = LAYOUT_SPACING): Map<string, Point> {
  const parts = connectedParts(nodes, edges).map((part) => layPart(part, edges, spacing));
  // A row as wide as the widest part, or wider when that makes the whole closer to `aspect`.
  const area = parts.reduce((sum, part) => sum + (part.width + spacing.node) * (part.height + spacing.node), 0);
  const rowWidth = Math.max(...parts.map((part) => part.width), Math.sqrt(area * spacing.aspect));
  const positions = new Map<string, Point>();
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const part of parts) {
    if (x > 0 && x + part.width > rowWidth) {
      x = 0;
      y += rowHeight + spacing.node;
      rowHeight = 0;
    }
    for (const node of part.nodes) {
      const at = part.positions.get(node.id)!;
      positions.set(node.id, { x: Math.round(spacing.origin.x + x + at.x), y: Math.round(spacing.origin.y + y + at.y) });
    }
    x += part.width + spacing.node;
    rowHeight = Math.max(rowHeight, part.height);
  }
  return positions;
}
