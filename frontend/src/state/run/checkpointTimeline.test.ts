import { describe, expect, it } from 'vitest';
import type { CheckpointDetails, CheckpointStats } from '../../api/types';
import { subtaskStatsOf, vertexCheckpointOf } from '../../testing/fixtures';
import { checkpointSummary, distribution, ganttOf, ticks, timelineBars, timelineTone } from './checkpointTimeline';

function row(id: number, status: CheckpointStats['status'], extra: Partial<CheckpointStats> = {}): CheckpointStats {
  return {
    id,
    kind: 'checkpoint',
    status,
    trigger_timestamp: 10_000 + id * 1000,
    latest_ack_timestamp: null,
    end_to_end_duration: status === 'COMPLETED' ? id * 10 : null,
    state_size: status === 'COMPLETED' ? id * 100 : null,
    num_acknowledged_subtasks: 0,
    num_subtasks: 2,
    external_path: null,
    failure_message: null,
    ...extra,
  };
}

describe('checkpoint timeline', () => {
  it('colours bars completed / savepoint / in progress / failed, oldest first', () => {
    const rows = [row(4, 'IN_PROGRESS'), row(3, 'COMPLETED', { kind: 'savepoint' }), row(2, 'FAILED'), row(1, 'COMPLETED')];
    const bars = timelineBars(rows, 14_500);
    expect(bars.map((bar) => [bar.id, bar.tone])).toEqual([
      [1, 'completed'],
      [2, 'failed'],
      [3, 'savepoint'],
      [4, 'in_progress'],
    ]);
    // The running one has been going for 500 ms: the tallest.
    expect(bars[3].height).toBe(1);
    expect(bars[0].height).toBe(0.08); // the shortest bar stays visible
    expect(timelineTone(row(9, 'COMPLETED', { kind: 'sync-savepoint' }))).toBe('savepoint');
  });

  it('keeps only the most recent bars', () => {
    const rows = Array.from({ length: 80 }, (_, index) => row(80 - index, 'COMPLETED'));
    const bars = timelineBars(rows, 0, 60);
    expect(bars).toHaveLength(60);
    expect(bars[0].id).toBe(21);
    expect(bars[59].id).toBe(80);
  });

  it('lays out a subtask per row with its four phases end to end', () => {
    const details: CheckpointDetails = {
      ...row(7, 'COMPLETED'),
      end_to_end_duration: 90,
      vertices: [
        vertexCheckpointOf('g', [
          subtaskStatsOf({ index: 1, status: 'completed', start_delay: 5, alignment_duration: 0, sync_duration: 3, async_duration: 40, end_to_end_duration: 60, state_size: 10 }),
          subtaskStatsOf({ index: 0, status: 'completed', start_delay: 2, alignment_duration: 10, sync_duration: 1, async_duration: 20, end_to_end_duration: 35 }),
        ], { name: 'g -> m' }),
        vertexCheckpointOf('c', [subtaskStatsOf({ index: 0, status: 'pending' })]),
      ],
    };
    const gantt = ganttOf(details);
    expect(gantt.span).toBe(90);
    expect(gantt.rows.map((r) => r.key)).toEqual(['g#0', 'g#1', 'c#0']);
    expect(gantt.rows[0].segments).toEqual([
      { phase: 'start_delay', start: 0, duration: 2 },
      { phase: 'alignment', start: 2, duration: 10 },
      { phase: 'sync', start: 12, duration: 1 },
      { phase: 'async', start: 13, duration: 20 },
    ]);
    expect(gantt.rows[1].segments.map((s) => s.phase)).toEqual(['start_delay', 'sync', 'async']);
    expect(gantt.rows[1].ack).toBe(60);
    expect(gantt.rows[2]).toMatchObject({ acknowledged: false, ack: null, segments: [] });
  });

  it('groups a flat subtask list by the task it names', () => {
    const details: CheckpointDetails = {
      ...row(2, 'COMPLETED'),
      subtasks: [
        { index: 1, task: 'sum#1', vertex: 'sum', status: 'completed', sync_duration: 4, ack_timestamp: 12_050 },
        { index: 0, task: 'sum#0', vertex: 'sum', status: 'completed', sync_duration: 2, ack_timestamp: 12_030 },
        { index: 0, task: 'src#0', status: 'finished' },
      ] as CheckpointDetails['subtasks'],
    };
    const gantt = ganttOf(details);
    expect(gantt.rows.map((r) => [r.vertex, r.index, r.ack, r.finished])).toEqual([
      ['sum', 0, 30, false],
      ['sum', 1, 50, false],
      ['src', 0, null, true],
    ]);
  });

  it('summarises completed checkpoints with min / avg / max / percentiles', () => {
    const rows = [row(1, 'COMPLETED'), row(2, 'COMPLETED'), row(3, 'COMPLETED'), row(4, 'COMPLETED'), row(5, 'FAILED')];
    expect(checkpointSummary(rows).end_to_end_duration).toEqual({ min: 10, max: 40, avg: 25, p50: 20, p90: 40, p99: 40 });
    expect(distribution([])).toMatchObject({ min: null, avg: null });
  });

  it('chooses round ticks', () => {
    expect(ticks(90)).toEqual([0, 20, 40, 60, 80]);
    expect(ticks(1000, 4)).toEqual([0, 500, 1000]);
  });
});
