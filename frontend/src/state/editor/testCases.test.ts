import { describe, expect, it } from 'vitest';
import { cellText, differenceSides, generateRows, newTestCase, nodeVerdicts, parseCell, parseJsonLines, tableColumns, toJsonLines, type CaseResult } from './testCases';

function result(nodes: Record<string, 'passed' | 'failed' | null>): CaseResult {
  return {
    name: 'c', status: 'passed', modes: ['streaming'], assertions: [], agreement: [], failures: [],
    nodes: Object.fromEntries(Object.entries(nodes).map(([id, status]) => [id, { count: 0, records: [], ports: {}, status }])),
  };
}

describe('test cases in the editor', () => {
  it('reads JSON lines and names the first line that is not JSON', () => {
    expect(parseJsonLines('{"a": 1}\n\n2\n"x"')).toEqual({ rows: [{ a: 1 }, 2, 'x'], error: null });
    expect(parseJsonLines('1\n{oops').error).toBe('line 2 is not JSON: {oops');
    expect(parseJsonLines(toJsonLines([{ a: [1, 2] }, null])).rows).toEqual([{ a: [1, 2] }, null]);
  });

  it('shows object rows as a table with a column per field, typed cells as JSON where they parse', () => {
    expect(tableColumns([{ user: 1 }, { user: 2, n: 3 }])).toEqual(['user', 'n']);
    expect(tableColumns([1, { a: 1 }])).toBeNull();
    expect([parseCell('12'), parseCell('true'), parseCell('gold'), parseCell('[1]'), parseCell('')]).toEqual([12, true, 'gold', [1], '']);
    expect([cellText(12), cellText('gold'), cellText('12'), cellText(undefined)]).toEqual(['12', 'gold', '"12"', '']);
  });

  it('generates rows shaped like a sample, the same for the same seed', () => {
    const sample = [{ user: 1, tier: 'gold', n: 0.5 }, { user: 7, tier: 'free', n: 2.5 }];
    const rows = generateRows(sample, 50, 3) as Array<{ user: number; tier: string; n: number }>;
    expect(rows).toHaveLength(50);
    expect(rows.every((row) => Number.isInteger(row.user) && row.user >= 1 && row.user <= 7)).toBe(true);
    expect(new Set(rows.map((row) => row.tier))).toEqual(new Set(['gold', 'free']));
    expect(generateRows(sample, 50, 3)).toEqual(rows);
    expect(generateRows([], 3)).toEqual([0, 1, 2]);
  });

  it('marks a node failed when any test case failed on it, passed when its checks held', () => {
    expect(nodeVerdicts([result({ a: 'passed', b: 'failed', c: null }), result({ a: 'failed', b: 'passed', d: 'passed' })])).toEqual({ a: 'failed', b: 'failed', d: 'passed' });
  });

  it('names a new test case apart and gives every source an empty input', () => {
    expect(newTestCase(['clicks'], ['test 1'])).toEqual({ name: 'test 2', inputs: { clicks: { rows: [] } }, assertions: [] });
  });

  it('shows a difference as expected against actual, or missing against not expected', () => {
    expect(differenceSides({ order: 'exact', at: 2, expected: [7], actual: [6], expected_count: 3, actual_count: 3 }).left).toBe('expected (from row 3)');
    expect(differenceSides({ order: 'any', missing: [1], unexpected: [], missing_count: 1, unexpected_count: 0, expected_count: 1, actual_count: 0 }).right).toBe('not expected (0)');
  });
});
