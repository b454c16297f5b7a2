import { describe, expect, it } from 'vitest';
import { sampleDefinition } from '../../testing/fixtures';
import { copySelection, pasteElements } from './clipboard';
import { definitionToGraph } from '../shared/definition';

function graphWithSelection(selected: string[]) {
  const graph = definitionToGraph(sampleDefinition());
  return {
    nodes: graph.nodes.map((node) => ({ ...node, selected: selected.includes(node.id) })),
    edges: graph.edges,
  };
}

describe('clipboard', () => {
  it('copies the selected nodes and only the edges between them', () => {
    const { nodes, edges } = graphWithSelection(['map-2', 'reduce-3']);
    const clipboard = copySelection(nodes, edges)!;
    expect(clipboard.nodes.map((node) => node.id)).toEqual(['map-2', 'reduce-3']);
    expect(clipboard.edges.map((edge) => edge.id)).toEqual(['e2']);
    expect(clipboard.nodes.every((node) => node.selected === undefined)).toBe(true);
  });

  it('copies nothing without a selected node', () => {
    const { nodes, edges } = graphWithSelection([]);
    expect(copySelection(nodes, edges)).toBeNull();
  });

  it('pastes with fresh ids, rewired edges, an offset and the copies selected', () => {
    const { nodes, edges } = graphWithSelection(['map-2', 'reduce-3']);
    const clipboard = copySelection(nodes, edges)!;
    const pasted = pasteElements(clipboard, nodes, edges, { x: 40, y: 40 });
    expect(pasted.nodes.map((node) => node.id)).toEqual(['map-5', 'reduce-6']);
    expect(pasted.nodes[0].position).toEqual({ x: 380, y: 100 });
    expect(pasted.nodes.every((node) => node.selected)).toBe(true);
    expect(pasted.edges).toHaveLength(1);
    expect(pasted.edges[0]).toMatchObject({ id: 'e4', source: 'map-5', target: 'reduce-6' });
    expect(pasted.edges[0].data).toEqual({ partitioning: 'hash', key: 'x["user"]', exchange: 'pipelined' });
  });

  it('pastes params as copies: editing the paste leaves the original alone', () => {
    const { nodes, edges } = graphWithSelection(['datagen-1']);
    const pasted = pasteElements(copySelection(nodes, edges)!, nodes, edges);
    pasted.nodes[0].data.params.rate = 1;
    expect(nodes[0].data.params.rate).toBe(100);
  });
});
