import { describe, expect, it } from 'vitest';
import { sampleDefinition } from '../../testing/fixtures';
import { changedLines, describeChange, diffDefinitions, diffGraph, fieldChanges, isEmptyDiff } from './diff';

function edited() {
  const to = sampleDefinition();
  to.nodes = to.nodes.filter((node) => node.id !== 'reduce-3');
  to.nodes[1] = { ...to.nodes[1], params: { expression: 'x * 3' }, ui: { x: 0, y: 0 } };
  to.nodes.push({ id: 'filter-5', type: 'transform.filter', params: { predicate: 'x > 1' } });
  to.edges = [
    { ...to.edges[0], partitioning: 'forward' },
    { id: 'e4', from: 'map-2', to: 'filter-5', partitioning: 'forward', exchange: 'pipelined' },
  ];
  to.checkpointing = { ...to.checkpointing, interval_ms: 500 };
  return to;
}

describe('definition diff', () => {
  it('finds added, removed and changed nodes and edges, with the changed fields', () => {
    const diff = diffDefinitions(sampleDefinition(), edited());
    expect(diff.nodes.added).toEqual(['filter-5']);
    expect(diff.nodes.removed).toEqual(['reduce-3']);
    expect(diff.nodes.changed).toEqual([{ id: 'map-2', changes: [{ path: 'params.expression', from: '{"user": x % 10, "amount": x}', to: 'x * 3' }] }]);
    expect(diff.edges.added).toEqual(['e4']);
    expect(diff.edges.removed).toEqual(['e2', 'e3']);
    expect(diff.edges.changed).toEqual([{ id: 'e1', changes: [{ path: 'partitioning', from: 'rebalance', to: 'forward' }] }]);
    expect(diff.settings.changed).toEqual([{ path: 'checkpointing.interval_ms', from: 1000, to: 500 }]);
  });

  it('ignores moves: positions are layout', () => {
    const to = sampleDefinition();
    to.nodes[0] = { ...to.nodes[0], ui: { x: 999, y: 999 } };
    expect(isEmptyDiff(diffDefinitions(sampleDefinition(), to))).toBe(true);
  });

  it('reports params that appear or disappear with null on the missing side', () => {
    expect(fieldChanges({ params: { a: 1 } }, { params: { b: 2 } })).toEqual([
      { path: 'params.a', from: 1, to: null },
      { path: 'params.b', from: null, to: 2 },
    ]);
  });

  it('merges both versions into one graph for drawing', () => {
    const graph = diffGraph(sampleDefinition(), edited());
    const status = Object.fromEntries(graph.nodes.map((entry) => [entry.node.id, entry.status]));
    expect(status).toEqual({ 'datagen-1': 'same', 'map-2': 'changed', 'collect-4': 'same', 'filter-5': 'added', 'reduce-3': 'removed' });
    const removed = graph.nodes.find((entry) => entry.node.id === 'reduce-3')!;
    expect(removed.node.ui).toEqual({ x: 620, y: 60 });
    expect(graph.edges.map((entry) => `${entry.edge.id}:${entry.status}`)).toEqual(['e1:changed', 'e4:added', 'e2:removed', 'e3:removed']);
  });

  it('describes a change in one line', () => {
    expect(describeChange({ path: 'params.rate', from: 10, to: null })).toBe('params.rate: 10 → ∅');
  });

  it('shows expressions as written, not JSON-escaped', () => {
    const change = { path: 'params.expression', from: 'x["user"]', to: '{"user": x["user"],\n "n": 1}' };
    expect(describeChange(change)).toBe('params.expression: x["user"] → {"user": x["user"],\n "n": 1}');
    expect(describeChange({ path: 'params.fields', from: ['a'], to: { b: 1 } })).toBe('params.fields: ["a"] → {"b":1}');
  });
});

describe('code in a diff', () => {
  it('shows a Python function that changed as the lines that changed', () => {
    const before = 'def process(records):\n    out = []\n    return [r + 1 for r in records]\n';
    const after = 'def process(records):\n    out = []\n    return [r + 2 for r in records]\n';
    expect(describeChange({ path: 'params.code', from: before, to: after })).toBe(
      'params.code:\n-     return [r + 1 for r in records]\n+     return [r + 2 for r in records]');
    expect(changedLines('a\nb', 'a\nc\nb')).toEqual(['+ c']);
    expect(changedLines('a\nb\nc', 'a\nc')).toEqual(['- b']);
  });
});
