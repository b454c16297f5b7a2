import { describe, expect, it } from 'vitest';
import type { CheckpointEventData, CheckpointHistory, CheckpointRow } from '../../api/types';
import { checkpointHistoryOf, checkpointRowOf } from '../../testing/fixtures';
import { applyCheckpointEvent, checkpointsFromHistory, EMPTY_CHECKPOINTS, MAX_CHECKPOINT_ROWS, statusAfterEvent } from './checkpoints';

function stats(id: number, status: CheckpointRow['status'], extra: Partial<CheckpointRow> = {}): CheckpointRow {
  return checkpointRowOf({
    id,
    status,
    trigger_timestamp: 1_000 * id,
    latest_ack_timestamp: status === 'IN_PROGRESS' ? null : 1_000 * id + 50,
    end_to_end_duration: status === 'COMPLETED' ? 50 : null,
    state_size: status === 'COMPLETED' ? 2048 : 0,
    num_acknowledged_subtasks: status === 'COMPLETED' ? 4 : 1,
    num_subtasks: 4,
    external_path: status === 'COMPLETED' ? `/ckpt/chk-${id}` : null,
    failure_message: null,
    ...extra,
  });
}

function event(kind: CheckpointEventData['event'], id: number, extra: Partial<CheckpointEventData> = {}): CheckpointEventData {
  return { event: kind, id, kind: 'checkpoint', trigger_timestamp: 1_000 * id, num_subtasks: 4, ...extra };
}

const history: CheckpointHistory = checkpointHistoryOf(
  [stats(3, 'IN_PROGRESS'), stats(2, 'COMPLETED'), stats(1, 'COMPLETED')],
  { total: 3, in_progress: 1, completed: 2, failed: 0 },
);

describe('checkpoint list', () => {
  it('keeps the newest plain checkpoints up to a bound, every savepoint, and counts them all', () => {
    let list = EMPTY_CHECKPOINTS;
    list = applyCheckpointEvent(list, event('completed', 1, { kind: 'savepoint', is_savepoint: true }));
    for (let id = 2; id <= MAX_CHECKPOINT_ROWS + 50; id += 1) list = applyCheckpointEvent(list, event('completed', id));
    expect(list.rows.length).toBe(MAX_CHECKPOINT_ROWS + 1);
    expect(list.rows[0].id).toBe(MAX_CHECKPOINT_ROWS + 50);
    expect(list.rows[list.rows.length - 1].id).toBe(1);
    expect(list.counts.completed).toBe(MAX_CHECKPOINT_ROWS + 50);
  });

  it('starts from the REST history, newest first', () => {
    const list = checkpointsFromHistory({ ...history, history: [stats(1, 'COMPLETED'), stats(3, 'IN_PROGRESS'), stats(2, 'COMPLETED')] });
    expect(list.rows.map((row) => row.id)).toEqual([3, 2, 1]);
    expect(list.counts).toEqual(history.counts);
  });

  it('adds a triggered checkpoint on top as in progress', () => {
    const list = applyCheckpointEvent(checkpointsFromHistory(history), event('triggered', 4, { num_acknowledged_subtasks: 0 }), 4_000);
    expect(list.rows[0]).toMatchObject({ id: 4, status: 'IN_PROGRESS', num_acknowledged_subtasks: 0, num_subtasks: 4, trigger_timestamp: 4_000 });
    expect(list.counts).toEqual({ restored: 0, total: 4, in_progress: 2, completed: 2, failed: 0 });
  });

  it('upserts acknowledgements and completion into the same row', () => {
    let list = checkpointsFromHistory(history);
    list = applyCheckpointEvent(list, event('acknowledged', 3, { num_acknowledged_subtasks: 3 }), 3_040);
    expect(list.rows[0]).toMatchObject({ id: 3, status: 'IN_PROGRESS', num_acknowledged_subtasks: 3, latest_ack_timestamp: 3_040 });
    list = applyCheckpointEvent(
      list,
      event('completed', 3, { num_acknowledged_subtasks: 4, end_to_end_duration: 75, state_size: 4096, external_path: '/ckpt/chk-3' }),
      3_075,
    );
    expect(list.rows).toHaveLength(3);
    expect(list.rows[0]).toMatchObject({ id: 3, status: 'COMPLETED', num_acknowledged_subtasks: 4, end_to_end_duration: 75, state_size: 4096, external_path: '/ckpt/chk-3' });
    expect(list.counts).toEqual({ restored: 0, total: 3, in_progress: 0, completed: 3, failed: 0 });
  });

  it('records failures with their message', () => {
    const list = applyCheckpointEvent(checkpointsFromHistory(history), event('failed', 3, { failure_message: 'expired before completing' }));
    expect(list.rows[0]).toMatchObject({ status: 'FAILED', failure_message: 'expired before completing' });
    expect(list.counts).toEqual({ restored: 0, total: 3, in_progress: 0, completed: 2, failed: 1 });
  });

  it('never moves a finished checkpoint backwards when older events are replayed', () => {
    let list = checkpointsFromHistory(history);
    list = applyCheckpointEvent(list, event('triggered', 2, { num_acknowledged_subtasks: 0 }));
    list = applyCheckpointEvent(list, event('acknowledged', 2, { num_acknowledged_subtasks: 1 }));
    expect(list.rows[1]).toEqual(stats(2, 'COMPLETED'));
    expect(list.counts).toEqual(history.counts);
  });

  it('replaying the same completion twice changes nothing', () => {
    const done = event('completed', 5, { num_acknowledged_subtasks: 4, end_to_end_duration: 12, state_size: 10 });
    const once = applyCheckpointEvent(EMPTY_CHECKPOINTS, done, 5_012);
    const twice = applyCheckpointEvent(once, done, 5_012);
    expect(twice).toEqual(once);
    expect(twice.counts).toEqual({ restored: 0, total: 1, in_progress: 0, completed: 1, failed: 0 });
  });

  it('orders by id whatever order events arrive in, savepoints included', () => {
    let list = EMPTY_CHECKPOINTS;
    list = applyCheckpointEvent(list, event('triggered', 7));
    list = applyCheckpointEvent(list, event('triggered', 5));
    list = applyCheckpointEvent(list, event('triggered', 6, { kind: 'savepoint' }));
    expect(list.rows.map((row) => [row.id, row.kind])).toEqual([
      [7, 'checkpoint'],
      [6, 'savepoint'],
      [5, 'checkpoint'],
    ]);
  });

  it('does not change the list it was given', () => {
    const list = checkpointsFromHistory(history);
    const snapshot = structuredClone(list);
    applyCheckpointEvent(list, event('completed', 3, { num_acknowledged_subtasks: 4 }));
    applyCheckpointEvent(list, event('triggered', 9));
    expect(list).toEqual(snapshot);
  });

  it('reads the status an unknown event carries, in any case, and marks discarded checkpoints', () => {
    let list = checkpointsFromHistory(history);
    list = applyCheckpointEvent(list, event('discarded', 2, { status: 'completed', discarded: true }));
    expect(list.rows[1]).toMatchObject({ id: 2, status: 'COMPLETED', discarded: true });
    expect(list.counts).toEqual(history.counts);
    list = applyCheckpointEvent(list, event('declined', 3, { status: 'failed', failure_message: 'declined by map-2' }));
    expect(list.rows[0]).toMatchObject({ id: 3, status: 'FAILED', failure_message: 'declined by map-2' });
    expect(statusAfterEvent(event('acknowledged', 1, { status: 'in_progress' }))).toBe('IN_PROGRESS');
    expect(statusAfterEvent(event('expired', 1))).toBeNull();
  });

  it('ignores an event without a status for a checkpoint it never saw', () => {
    const list = checkpointsFromHistory(history);
    expect(applyCheckpointEvent(list, event('discarded', 99))).toBe(list);
    const kept = applyCheckpointEvent(list, event('discarded', 3, { discarded: true }));
    expect(kept.rows[0]).toMatchObject({ id: 3, status: 'IN_PROGRESS', discarded: true });
  });
});
