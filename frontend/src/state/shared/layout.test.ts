import { describe, expect, it } from 'vitest';
import { sampleDefinition } from '../../testing/fixtures';
import { autoLayout, type LayoutNode } from './layout';

const box = (id: string, width = 220, height = 84): LayoutNode => ({ id, width, height });

function expectApart(nodes: LayoutNode[], positions: Map<string, { x: number; y: number }>) {
  for (const a of nodes) {
    for (const b of nodes) {
      if (a.id >= b.id) continue;
      const pa = positions.get(a.id)!;
      const pb = positions.get(b.id)!;
      const apart = pa.x + a.width <= pb.x || pb.x + b.width <= pa.x || pa.y + a.height <= pb.y || pb.y + b.height <= pa.y;
      expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
    }
  }
}

describe('auto-layout', () => {
  it('lays a chain out left to right from the origin', () => {
    const definition = sampleDefinition();
    const positions = autoLayout(
      definition.nodes.map((node) => box(node.id)),
      definition.edges.map((edge) => ({ source: edge.from, target: edge.to })),
    );
    const xs = definition.nodes.map((node) => positions.get(node.id)!.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(xs).size).toBe(4);
    expect(Math.min(...xs)).toBe(60);
  });

  it('never overlaps nodes of any size', () => {
    const nodes = Array.from({ length: 12 }, (_, index) => box(`n${index}`, 200, 100 + index));
    const edges = nodes.slice(1).map((node, index) => ({ source: `n${index % 3}`, target: node.id }));
    expectApart(nodes, autoLayout(nodes, edges));
  });

  it('spreads nodes that are not connected over rows and columns, in the order they came', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => box(id));
    const positions = autoLayout(nodes, []);
    const xs = new Set(nodes.map((node) => positions.get(node.id)!.x));
    const ys = new Set(nodes.map((node) => positions.get(node.id)!.y));
    expect(xs.size).toBeGreaterThan(1);
    expect(ys.size).toBeGreaterThan(1);
    expectApart(nodes, positions);
    // reading order: a first, on the top row, the next to its right
    expect(positions.get('a')).toEqual({ x: 60, y: 60 });
    expect(positions.get('b')!.y).toBe(60);
    expect(positions.get('b')!.x).toBeGreaterThan(60);
  });

  it('keeps a connected pipeline in one piece and puts the loose nodes beside or under it', () => {
    const nodes = ['src', 'map', 'sink', 'loose-1', 'loose-2'].map((id) => box(id));
    const edges = [{ source: 'src', target: 'map' }, { source: 'map', target: 'sink' }];
    const positions = autoLayout(nodes, edges);
    const [src, map, sink] = ['src', 'map', 'sink'].map((id) => positions.get(id)!);
    expect(src.y).toBe(map.y);
    expect(map.y).toBe(sink.y);
    expect(src.x < map.x && map.x < sink.x).toBe(true);
    expectApart(nodes, positions);
  });

  it('stacks wide parts one under another instead of side by side', () => {
    const nodes = ['a', 'b', 'c'].map((id) => box(id, 1200, 80));
    const positions = autoLayout(nodes, [], { rank: 40, node: 20, origin: { x: 0, y: 0 }, aspect: 3 });
    expect(nodes.map((node) => positions.get(node.id))).toEqual([{ x: 0, y: 0 }, { x: 0, y: 100 }, { x: 0, y: 200 }]);
  });
});
