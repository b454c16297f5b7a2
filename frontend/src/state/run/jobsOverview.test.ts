import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../api/types';
import { runOf } from '../../testing/fixtures';
import { endingOf, formatUptime, formatWhen, jobsInOrder, uptimeMs } from './jobsOverview';

function run(id: number, status: RunSummary['status'], started: string | null, ended: string | null = null): RunSummary {
  return runOf({ id, status, created_at: '2026-01-01T00:00:00Z', started_at: started, ended_at: ended });
}

describe('jobs overview', () => {
  it('lists running runs first, newest start first, then ended ones by their end', () => {
    const runs = [
      run(1, 'FINISHED', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z'),
      run(2, 'RUNNING', '2026-01-01T00:10:00Z'),
      run(3, 'FAILED', '2026-01-01T00:20:00Z', '2026-01-01T02:00:00Z'),
      run(4, 'RESTARTING', '2026-01-01T00:30:00Z'),
      run(5, 'SCHEDULING', null),
    ];
    expect(jobsInOrder(runs).map((entry) => entry.id)).toEqual([4, 2, 5, 3, 1]);
  });

  it('says how an ended run ended, and nothing while it runs', () => {
    expect(endingOf({ ended_by: { how: 'rescale', continued_as: 9, detail: 'parallelism 1 -> 2' } })).toBe('rescaled (parallelism 1 -> 2)');
    expect(endingOf({ ended_by: { how: 'upgrade', continued_as: 9, detail: 'v1 -> v2' } })).toBe('upgraded (v1 -> v2)');
    expect(endingOf({ ended_by: { how: 'stop', continued_as: null, detail: '' } })).toBe('stopped with a savepoint');
    expect(endingOf({ ended_by: null })).toBeNull();
  });

  it('shows today as a clock and other days with their date', () => {
    const now = Date.parse('2026-01-02T12:00:00');
    expect(formatWhen(new Date('2026-01-02T10:05:03').toISOString(), now)).toBe(new Date('2026-01-02T10:05:03').toLocaleTimeString());
    expect(formatWhen(new Date('2025-12-31T10:05:03').toISOString(), now)).toContain('2025');
    expect(formatWhen(null, now)).toBe('–');
  });

  it('measures uptime until now, or until the end', () => {
    const now = Date.parse('2026-01-01T00:12:05Z');
    expect(uptimeMs(run(2, 'RUNNING', '2026-01-01T00:10:00Z'), now)).toBe(125_000);
    expect(uptimeMs(run(1, 'FINISHED', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z'), now)).toBe(3_600_000);
    expect(uptimeMs(run(5, 'SCHEDULING', null), now)).toBeNull();
    expect([formatUptime(37_000), formatUptime(125_000), formatUptime(7_500_000), formatUptime(null)]).toEqual(['37 s', '2 m 05 s', '2 h 05 m', '–']);
  });
});
