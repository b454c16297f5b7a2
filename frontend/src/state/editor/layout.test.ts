import { describe, expect, it } from 'vitest';
import { sampleDefinition } from '../../testing/fixtures';
import { NODE_FOOTPRINT } from './graphEdits';
import { autoLayout } from './layout';

describe('auto-layout', () => {
  it('lays a chain out left to right from the origin', () => {
    const definition = sampleDefinition();
    const positions = autoLayout(
      definition.nodes.map((node) => ({ id: node.id })),
      definition.edges.map((edge) => ({ source: edge.from, target: edge.to })),
    );
    const xs = definition.nodes.map((node) => positions.get(node.id)!.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(xs).size).toBe(4);
    expect(Math.min(...xs)).toBe(60);
  });

  it('never overlaps nodes, using measured sizes when known', () => {
    const nodes = Array.from({ length: 12 }, (_, index) => ({ id: `n${index}`, measured: { width: 200, height: 100 + index } }));
    const edges = nodes.slice(1).map((node, index) => ({ source: `n${index % 3}`, target: node.id }));
    const positions = autoLayout(nodes, edges);
    for (const a of nodes) {
      for (const b of nodes) {
        if (a.id >= b.id) continue;
        const pa = positions.get(a.id)!;
        const pb = positions.get(b.id)!;
        const apart = Math.abs(pa.x - pb.x) >= 200 || Math.abs(pa.y - pb.y) >= Math.min(a.measured.height, b.measured.height);
        expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
      }
    }
  });

  it('places unconnected nodes too, with the default footprint', () => {
    const positions = autoLayout([{ id: 'a' }, { id: 'b' }], []);
    const [a, b] = [positions.get('a')!, positions.get('b')!];
    expect(Math.abs(a.y - b.y) >= NODE_FOOTPRINT.height || Math.abs(a.x - b.x) >= NODE_FOOTPRINT.width).toBe(true);
  });
});
