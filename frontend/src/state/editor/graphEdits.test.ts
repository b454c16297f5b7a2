import { describe, expect, it } from 'vitest';
import { COLLECT, DATAGEN, INTERVAL_JOIN, MAP, OPERATORS_BY_TYPE, REDUCE, UNION } from '../../testing/fixtures';
import { connectionProblem, defaultEdgeData, freePosition, NODE_FOOTPRINT, nextEdgeId, nextNodeId, nodeIdPrefix } from './graphEdits';

describe('node and edge ids', () => {
  it('derives a readable prefix from the operator type', () => {
    expect(nodeIdPrefix('source.datagen')).toBe('datagen');
    expect(nodeIdPrefix('sink.redis_stream')).toBe('redis-stream');
    expect(nodeIdPrefix('weird')).toBe('weird');
  });

  it('numbers nodes after every node so far', () => {
    expect(nextNodeId('source.datagen', [])).toBe('datagen-1');
    expect(nextNodeId('transform.map', ['datagen-1'])).toBe('map-2');
    expect(nextNodeId('sink.collect', ['datagen-1', 'map-7'])).toBe('collect-8');
  });

  it('never reuses an existing id, even hand-written ones', () => {
    expect(nextNodeId('transform.map', ['clicks', 'map-1x'])).toBe('map-1');
    const id = nextNodeId('transform.map', ['map-1', 'map-2']);
    expect(['map-1', 'map-2']).not.toContain(id);
  });

  it('numbers edges e1, e2, ... after the highest one', () => {
    expect(nextEdgeId([])).toBe('e1');
    expect(nextEdgeId(['e1', 'e4', 'custom'])).toBe('e5');
  });
});

describe('freePosition', () => {
  it('starts at the left edge in an empty graph, whatever the category', () => {
    expect(freePosition('source', [])).toEqual(freePosition('sink', []));
  });

  it('places each node one column right of the rightmost node that comes before it', () => {
    const source = { ...freePosition('source', []), category: 'source' };
    const transform = { ...freePosition('transform', [source]), category: 'transform' };
    const sink = freePosition('sink', [source, transform]);
    expect(source.x).toBeLessThan(transform.x);
    expect(sink.x - transform.x).toBe(transform.x - source.x);
    expect([source.y, transform.y, sink.y]).toEqual([source.y, source.y, source.y]);
    expect(freePosition('source', [source, transform]).x).toBe(source.x);
  });

  it('goes down its column until it overlaps no node', () => {
    const first = { ...freePosition('transform', []), category: 'transform' };
    const second = { ...freePosition('transform', [first]), category: 'transform' };
    const third = freePosition('transform', [first, second]);
    expect(second.x).toBe(first.x);
    expect(second.y).toBeGreaterThanOrEqual(first.y + NODE_FOOTPRINT.height);
    expect(third.y).toBeGreaterThan(second.y);
  });

  it('finds a gap left by a deleted node', () => {
    const sink = (point: { x: number; y: number }) => ({ ...point, category: 'sink' });
    const first = sink(freePosition('sink', []));
    const second = sink(freePosition('sink', [first]));
    const third = sink(freePosition('sink', [first, second]));
    expect(freePosition('sink', [first, third])).toEqual({ x: second.x, y: second.y });
  });
});

describe('new edges', () => {
  it('hash-partitions into keyed operators and forwards otherwise', () => {
    expect(defaultEdgeData(REDUCE)).toEqual({ partitioning: 'hash', key: '', exchange: 'pipelined' });
    expect(defaultEdgeData(MAP)).toEqual({ partitioning: 'forward', exchange: 'pipelined' });
    expect(defaultEdgeData(undefined)).toEqual({ partitioning: 'forward', exchange: 'pipelined' });
  });
});

describe('connectionProblem', () => {
  const types: Record<string, string> = {
    'datagen-1': DATAGEN.type,
    'map-2': MAP.type,
    'collect-3': COLLECT.type,
    'union-4': UNION.type,
    'datagen-5': DATAGEN.type,
  };
  const operatorOf = (id: string) => OPERATORS_BY_TYPE[types[id]];

  it('allows a fresh connection from an output to an input', () => {
    expect(connectionProblem({ source: 'datagen-1', target: 'map-2' }, [], operatorOf)).toBeNull();
  });

  it('refuses self loops, duplicates and missing ends', () => {
    expect(connectionProblem({ source: 'map-2', target: 'map-2' }, [], operatorOf)).toMatch(/itself/);
    expect(connectionProblem({ source: 'datagen-1', target: 'map-2' }, [{ source: 'datagen-1', target: 'map-2' }], operatorOf)).toMatch(/already/);
    expect(connectionProblem({ source: null, target: 'map-2' }, [], operatorOf)).toMatch(/both ends/);
  });

  it('tells a named output port from the main output of the same node', () => {
    const main = [{ source: 'map-2', target: 'union-4' }];
    expect(connectionProblem({ source: 'map-2', target: 'union-4', sourceHandle: 'late' }, main, operatorOf)).toBeNull();
    const late = [{ source: 'map-2', target: 'union-4', sourceHandle: 'late' }];
    expect(connectionProblem({ source: 'map-2', target: 'union-4', sourceHandle: 'late' }, late, operatorOf)).toMatch(/already/);
  });

  it("lets a join take one edge per side", () => {
    const joinOf = (id: string) => (id === 'join' ? INTERVAL_JOIN : operatorOf(id));
    const left = [{ source: 'datagen-1', target: 'join', targetHandle: 'left' }];
    expect(connectionProblem({ source: 'datagen-5', target: 'join', targetHandle: 'right' }, left, joinOf)).toBeNull();
    expect(connectionProblem({ source: 'datagen-5', target: 'join', targetHandle: 'left' }, left, joinOf))
      .toMatch(/already has a left input/);
    // a self-join: one stream feeds both sides
    expect(connectionProblem({ source: 'datagen-1', target: 'join', targetHandle: 'right' }, left, joinOf)).toBeNull();
  });

  it('refuses edges out of sinks and into sources', () => {
    expect(connectionProblem({ source: 'collect-3', target: 'map-2' }, [], operatorOf)).toMatch(/no output/);
    expect(connectionProblem({ source: 'map-2', target: 'datagen-1' }, [], operatorOf)).toMatch(/no input/);
  });

  it('allows one input for single-input operators and many for union', () => {
    const existing = [{ source: 'datagen-1', target: 'map-2' }];
    expect(connectionProblem({ source: 'datagen-5', target: 'map-2' }, existing, operatorOf)).toMatch(/one input/);
    const intoUnion = [{ source: 'datagen-1', target: 'union-4' }];
    expect(connectionProblem({ source: 'datagen-5', target: 'union-4' }, intoUnion, operatorOf)).toBeNull();
  });
});
