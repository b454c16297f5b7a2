import { describe, expect, it } from 'vitest';
import { sampleDefinition } from '../../testing/fixtures';
import { definitionToGraph, emptyDefinition, graphToDefinition, layeredPositions } from './definition';
import { edgeLabel } from './graph';

describe('definition ⇄ graph', () => {
  it('round-trips a definition exactly, settings the editor does not edit included', () => {
    const definition = sampleDefinition();
    const graph = definitionToGraph(definition);
    expect(graphToDefinition(graph.settings, graph.nodes, graph.edges)).toEqual(definition);
  });

  it('keeps the port an edge leaves as its source handle, and the main output without one', () => {
    const definition = sampleDefinition();
    definition.edges.push({ id: 'late', from: 'datagen-1', from_port: 'late', to: definition.edges[0].to,
      partitioning: 'forward', exchange: 'pipelined' });
    const graph = definitionToGraph(definition);
    expect(graph.edges.at(-1)?.sourceHandle).toBe('late');
    expect(graph.edges[0]).not.toHaveProperty('sourceHandle');
    expect(graphToDefinition(graph.settings, graph.nodes, graph.edges)).toEqual(definition);
    expect(edgeLabel(graph.edges.at(-1)!.data!, 'late')).toBe('late · forward');
  });

  it("keeps the side an edge feeds a join as its target handle, and other edges without one", () => {
    const definition = sampleDefinition();
    definition.edges.push({ id: 'right', from: 'datagen-1', to: definition.edges[0].to, side: 'right',
      partitioning: 'hash', key: 'x', exchange: 'pipelined' });
    const graph = definitionToGraph(definition);
    expect(graph.edges.at(-1)?.targetHandle).toBe('right');
    expect(graph.edges[0]).not.toHaveProperty('targetHandle');
    expect(graphToDefinition(graph.settings, graph.nodes, graph.edges)).toEqual(definition);
  });

  it('round-trips an empty definition', () => {
    const definition = emptyDefinition('empty');
    const graph = definitionToGraph(definition);
    expect(graph.nodes).toEqual([]);
    expect(graphToDefinition(graph.settings, graph.nodes, graph.edges)).toEqual(definition);
  });

  it('turns definition nodes and edges into React Flow elements', () => {
    const { nodes, edges, settings } = definitionToGraph(sampleDefinition());
    expect(nodes[0]).toEqual({
      id: 'datagen-1',
      type: 'operator',
      position: { x: 60, y: 60 },
      data: { type: 'source.datagen', params: { count: null, rate: 100 }, parallelism: 1 },
    });
    expect(nodes[1].data).not.toHaveProperty('parallelism');
    expect(edges[1]).toEqual({
      id: 'e2',
      type: 'pipeline',
      source: 'map-2',
      target: 'reduce-3',
      data: { partitioning: 'hash', key: 'x["user"]', exchange: 'pipelined' },
    });
    expect(settings).not.toHaveProperty('nodes');
    expect(settings.restart).toEqual({ strategy: 'fixed_delay', attempts: 3, delay_ms: 1000 });
  });

  it('does not share params objects between the definition and the graph', () => {
    const definition = sampleDefinition();
    const graph = definitionToGraph(definition);
    graph.nodes[1].data.params.expression = 'x';
    expect(definition.nodes[1].params.expression).toBe('{"user": x % 10, "amount": x}');
  });

  it('rounds dragged positions to whole pixels when saving', () => {
    const graph = definitionToGraph(sampleDefinition());
    graph.nodes[0].position = { x: 10.6, y: 20.2 };
    expect(graphToDefinition(graph.settings, graph.nodes, graph.edges).nodes[0].ui).toEqual({ x: 11, y: 20 });
  });

  it('sends a key only with hash partitioning, and an empty key for a new hash edge', () => {
    const graph = definitionToGraph(sampleDefinition());
    graph.edges[1] = { ...graph.edges[1], data: { partitioning: 'rebalance', key: 'x["user"]', exchange: 'pipelined' } };
    graph.edges[0] = { ...graph.edges[0], data: { partitioning: 'hash', exchange: 'pipelined' } };
    const saved = graphToDefinition(graph.settings, graph.nodes, graph.edges);
    expect(saved.edges[1]).not.toHaveProperty('key');
    expect(saved.edges[0].key).toBe('');
  });

  it('lays out nodes saved without positions by depth from the sources', () => {
    const definition = sampleDefinition();
    for (const node of definition.nodes) delete node.ui;
    const positions = layeredPositions(definition);
    const xs = definition.nodes.map((node) => positions.get(node.id)!.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(xs).size).toBe(4);
    const graph = definitionToGraph(definition);
    expect(graph.nodes[3].position).toEqual(positions.get('collect-4'));
  });

  it('stacks sibling nodes of one depth in rows and survives cycles', () => {
    const positions = layeredPositions({
      nodes: [
        { id: 'a', type: 'source.datagen', params: {} },
        { id: 'b', type: 'source.datagen', params: {} },
        { id: 'c', type: 'transform.map', params: {} },
      ],
      edges: [
        { id: 'e1', from: 'c', to: 'c', partitioning: 'forward', exchange: 'pipelined' },
      ],
    });
    expect(positions.get('a')!.x).toBe(positions.get('b')!.x);
    expect(positions.get('a')!.y).toBeLessThan(positions.get('b')!.y);
    expect(positions.size).toBe(3);
  });

  it('labels edges with their partitioning, key and exchange', () => {
    expect(edgeLabel({ partitioning: 'forward', exchange: 'pipelined' })).toBe('forward');
    expect(edgeLabel({ partitioning: 'hash', key: 'x["user"]', exchange: 'blocking' })).toBe('hash(x["user"]) · blocking');
    expect(edgeLabel({ partitioning: 'hash', key: ' ', exchange: 'pipelined' })).toBe('hash(?)');
  });
});
