import { describe, expect, it } from 'vitest';
import type { NodeLag } from '../../api/types';
import { formatBytes, formatCount } from '../shared/format';
import { isCaughtUp, lagSummary, lagTitle } from './sourceLag';

function lag(figures: Partial<NodeLag>): NodeLag {
  return { records_behind: null, bytes_behind: null, pending: null, splits_unassigned: null, bytes_unassigned: null, splits_total: 0, splits: [], ...figures };
}

describe("a source's lag in its run-graph cell", () => {
  it('says the records behind (a stream), the bytes with the splits not handed out (files)', () => {
    expect(lagSummary(lag({ records_behind: 12_345 }), formatCount, formatBytes)).toBe('12.3k behind');
    expect(lagSummary(lag({ bytes_behind: 1024, bytes_unassigned: 2048, splits_unassigned: 2 }), formatCount, formatBytes)).toBe('3.0 KiB behind +2 splits');
  });

  it('says "caught up" only when every figure it has is zero', () => {
    expect(isCaughtUp(lag({ records_behind: 0, pending: 40 }))).toBe(true);
    expect(isCaughtUp(lag({ records_behind: 0, bytes_behind: 1 }))).toBe(false);
    expect(isCaughtUp(lag({}))).toBe(false);
    expect(lagSummary(lag({}), formatCount, formatBytes)).toBe('lag unknown');
  });

  it('lists the splits furthest behind in its title', () => {
    const title = lagTitle(lag({ records_behind: 7, splits_total: 1, splits: [{ subtask: 1, split: 'events/3', records_behind: 7, bytes_behind: null, pending: null }] }));
    expect(title).toContain('#1 events/3: 7 records');
  });
});
