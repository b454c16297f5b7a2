import { describe, expect, it } from 'vitest';
import type { Run, RunEvent } from '../../api/types';
import { checkpointHistoryOf, checkpointRowOf, runOf } from '../../testing/fixtures';
import { applyRunEvent, checkpointHistoryLoaded, INITIAL_RUN_STATE, MAX_LOG_LINES, mergeCollected, nextStatus, runLoaded } from './runState';
import { isRunEnded, runStatusTone } from './runStatus';

const run: Run = runOf({ id: 4, version: 2, collected: { 'collect-3': [1, 2] } });

function at(seq: number, event: Omit<RunEvent, 'seq' | 'ts'>): RunEvent {
  return { seq, ts: seq * 100, ...event } as RunEvent;
}

describe('run state', () => {
  it('starts from the REST run and checkpoint history', () => {
    let state = runLoaded(INITIAL_RUN_STATE, run);
    state = checkpointHistoryLoaded(state, checkpointHistoryOf(
      [checkpointRowOf({ id: 1, status: 'COMPLETED', trigger_timestamp: 1, latest_ack_timestamp: 2, end_to_end_duration: 1, state_size: 1, num_acknowledged_subtasks: 1, num_subtasks: 1 })],
      { total: 1, in_progress: 0, completed: 1, failed: 0 },
    ));
    expect(state.status).toBe('RUNNING');
    expect(state.collected).toEqual({ 'collect-3': [1, 2] });
    expect(state.checkpoints.rows).toHaveLength(1);
  });

  it("keeps how the run's driver started, from its startup event", () => {
    const state = applyRunEvent(runLoaded(INITIAL_RUN_STATE, run), at(1, { type: 'startup', data: { driver: 'warm', spark: 'starting' } }));
    expect(state.startup).toEqual({ driver: 'warm', spark: 'starting' });
  });

  it('follows status events, keeping the failure cause', () => {
    let state = runLoaded(INITIAL_RUN_STATE, run);
    state = applyRunEvent(state, at(1, { type: 'status', data: { status: 'RESTARTING', cause: 'boom in map-2' } }));
    expect(state.failureCause).toBe('boom in map-2');
    state = applyRunEvent(state, at(2, { type: 'status', data: { status: 'RUNNING' } }));
    expect(state.failureCause).toBeNull();
    state = applyRunEvent(state, at(3, { type: 'status', data: { status: 'FAILING', cause: 'boom again' } }));
    state = applyRunEvent(state, at(4, { type: 'status', data: { status: 'FAILED' } }));
    expect(state.status).toBe('FAILED');
    expect(state.failureCause).toBe('boom again');
  });

  it('never leaves an ended status: not for late REST answers, not for replayed events', () => {
    let state = runLoaded(INITIAL_RUN_STATE, { ...run, status: 'FINISHED' });
    state = applyRunEvent(state, at(1, { type: 'status', data: { status: 'CREATED' } }));
    state = applyRunEvent(state, at(2, { type: 'status', data: { status: 'RUNNING' } }));
    expect(state.status).toBe('FINISHED');

    let canceled = applyRunEvent(runLoaded(INITIAL_RUN_STATE, run), at(5, { type: 'status', data: { status: 'CANCELED' } }));
    canceled = runLoaded(canceled, { ...run, status: 'CANCELING' });
    expect(canceled.status).toBe('CANCELED');
    expect(nextStatus('RUNNING', 'CANCELING')).toBe('CANCELING');
    expect(nextStatus(null, 'CREATED')).toBe('CREATED');
  });

  it('applies checkpoint events to the list', () => {
    const state = applyRunEvent(INITIAL_RUN_STATE, at(1, { type: 'checkpoint', data: { event: 'triggered', id: 1, kind: 'checkpoint', num_subtasks: 2 } }));
    expect(state.checkpoints.rows[0]).toMatchObject({ id: 1, status: 'IN_PROGRESS', trigger_timestamp: 100 });
    expect(state.checkpoints.counts.total).toBe(1);
  });

  it('replaces metrics per vertex and collected records per node', () => {
    let state = runLoaded(INITIAL_RUN_STATE, { ...run, collected: { 'collect-3': [1], 'collect-4': ['a'] } });
    state = applyRunEvent(state, at(1, { type: 'metrics', data: { vertices: { v1: { records_in: 0, records_out: 10 } }, collected: { 'collect-3': [1, 2, 3] } } }));
    state = applyRunEvent(state, at(2, { type: 'metrics', data: { vertices: { v2: { records_in: 10, records_out: 5 } } } }));
    expect(state.vertices).toEqual({ v1: { records_in: 0, records_out: 10 }, v2: { records_in: 10, records_out: 5 } });
    expect(state.collected).toEqual({ 'collect-3': [1, 2, 3], 'collect-4': ['a'] });
  });

  it('takes the final collected records from the finished event', () => {
    let state = runLoaded(INITIAL_RUN_STATE, run);
    state = applyRunEvent(state, at(9, { type: 'finished', data: { collected: { 'collect-3': [7, 8, 9] } } }));
    expect(state.collected).toEqual({ 'collect-3': [7, 8, 9] });
  });

  it('keeps a bounded log', () => {
    let state = INITIAL_RUN_STATE;
    for (let seq = 1; seq <= MAX_LOG_LINES + 5; seq += 1) {
      state = applyRunEvent(state, at(seq, { type: 'log', data: { level: 'info', message: `line ${seq}` } }));
    }
    expect(state.logs).toHaveLength(MAX_LOG_LINES);
    expect(state.logs.at(-1)).toMatchObject({ seq: MAX_LOG_LINES + 5, message: `line ${MAX_LOG_LINES + 5}` });
  });

  it('merges collected updates without dropping other nodes', () => {
    const current = { a: [1] };
    expect(mergeCollected(current, {})).toBe(current);
    expect(mergeCollected(current, null)).toBe(current);
    expect(mergeCollected(current, { b: [2] })).toEqual({ a: [1], b: [2] });
  });

  it('knows which statuses have ended and how to colour them', () => {
    expect(['FINISHED', 'CANCELED', 'FAILED'].every(isRunEnded)).toBe(true);
    expect(['CREATED', 'RUNNING', 'RESTARTING', 'FAILING', 'CANCELING'].some(isRunEnded)).toBe(false);
    expect(isRunEnded(null)).toBe(false);
    expect(runStatusTone('RUNNING')).toBe('active');
    expect(runStatusTone('FAILED')).toBe('danger');
    expect(runStatusTone('FINISHED')).toBe('success');
    expect(runStatusTone('SOMETHING_NEW')).toBe('neutral');
  });
});

describe('failures', () => {
  it('keeps task failures and restarts newest first, once per seq, and marks the failing node', async () => {
    const { failureOfNode } = await import('./runFailures');
    const failed = (seq: number, task: string, error: string) => ({ seq, ts: seq * 1000, type: 'task_failed' as const, data: { task, region: 'r0', attempt: seq - 1, error } });
    let state = applyRunEvent(INITIAL_RUN_STATE, failed(1, 'v1#1', "task v1#1 failed: operator 'double' (transform.map) failed: ZeroDivisionError\n  File x"));
    state = applyRunEvent(state, { seq: 2, ts: 2000, type: 'status', data: { status: 'RESTARTING', cause: 'task v1#1 failed\nTraceback', regions: ['r0'], delay_ms: 500 } });
    state = applyRunEvent(state, failed(3, 'v1#0', 'task v1#0 failed: lost'));
    state = applyRunEvent(state, failed(3, 'v1#0', 'task v1#0 failed: lost'));
    expect(state.exceptions.map((entry) => [entry.seq, entry.vertex, entry.subtask, entry.operator])).toEqual([
      [3, 'v1', 0, null],
      [1, 'v1', 1, 'double'],
    ]);
    expect(state.exceptions[1].traceback).toBe('  File x');
    expect(state.restarts).toEqual([{ seq: 2, ts: 2000, cause: 'task v1#1 failed', regions: ['r0'], delay_ms: 500 }]);
    expect(failureOfNode(state.exceptions, 'double', 'v1')).toMatchObject({ count: 2, subtasks: [0, 1] });
    expect(failureOfNode(state.exceptions.slice(1), 'gen', 'v1')).toBeNull();
    expect(failureOfNode(state.exceptions, 'out', 'v2')).toBeNull();
  });
});
