import { describe, expect, it } from 'vitest';
import { applyRunEvent, INITIAL_RUN_STATE, runLoaded } from './runState';
import { applySavepointEvent, applySavepointProgress, isSavepointPending, upsertSavepoint } from './savepoints';
import type { Run } from '../../api/types';

describe('savepoint requests', () => {
  it('marks a request whose savepoint was deleted, replayed events included', () => {
    let state = applyRunEvent(INITIAL_RUN_STATE, { seq: 1, type: 'savepoint', ts: 1, data: { request_id: 'a', status: 'COMPLETED', location: 'file:///sp/savepoint-1' } });
    state = applyRunEvent(state, { seq: 2, type: 'savepoint', ts: 2, data: { request_id: 'b', status: 'COMPLETED', location: 'file:///sp/savepoint-2' } });
    state = applyRunEvent(state, { seq: 3, type: 'checkpoint', ts: 3, data: { id: 1, event: 'discarded', discarded: true, kind: 'savepoint', external_path: 'file:///sp/savepoint-1' } });
    expect(state.savepoints.map((request) => [request.request_id, request.discarded ?? false])).toEqual([
      ['b', false],
      ['a', true],
    ]);
  });

  it('adds new requests on top and completes them with their location', () => {
    let list = upsertSavepoint([], { request_id: 'a', status: 'IN_PROGRESS' });
    list = upsertSavepoint(list, { request_id: 'b', status: 'IN_PROGRESS' });
    list = applySavepointEvent(list, { request_id: 'a', status: 'completed', location: 'file:///sp/savepoint-1' });
    expect(list.map((request) => [request.request_id, request.status, request.location])).toEqual([
      ['b', 'IN_PROGRESS', undefined],
      ['a', 'COMPLETED', 'file:///sp/savepoint-1'],
    ]);
    expect(isSavepointPending(list[0])).toBe(true);
  });

  it('never takes a finished request back to in progress', () => {
    let list = upsertSavepoint([], { request_id: 'a', status: 'FAILED', failure_cause: 'timeout' });
    list = applySavepointEvent(list, { request_id: 'a', status: 'IN_PROGRESS' });
    expect(list[0]).toMatchObject({ status: 'FAILED', failure_cause: 'timeout' });
  });

  it('follows savepoint events and the requests a run carries', () => {
    const run = { id: 1, status: 'RUNNING', collected: {}, savepoint_requests: [{ request_id: 'x', status: 'COMPLETED', location: '/l' }] } as unknown as Run;
    let state = runLoaded(INITIAL_RUN_STATE, run);
    state = applyRunEvent(state, { seq: 1, type: 'savepoint', ts: 1, data: { request_id: 'y', status: 'IN_PROGRESS' } });
    expect(state.savepoints.map((request) => request.request_id)).toEqual(['y', 'x']);
  });
});

describe('savepoint progress', () => {
  it('counts acknowledged of total subtasks on the open request, and keeps a finished one finished', () => {
    let list = applySavepointEvent([], { request_id: 'r', status: 'IN_PROGRESS' });
    list = applySavepointProgress(list, { request_id: 'r', status: 'IN_PROGRESS', checkpoint_id: 4, acknowledged: 1, total: 3, trigger: 'scheduled' });
    expect([list[0].acknowledged_subtasks, list[0].total_subtasks, list[0].checkpoint_id, list[0].trigger]).toEqual([1, 3, 4, 'scheduled']);
    list = applySavepointEvent(list, { request_id: 'r', status: 'COMPLETED', location: '/sp' });
    list = applySavepointProgress(list, { request_id: 'r', status: 'IN_PROGRESS', checkpoint_id: 4, acknowledged: 3, total: 3 });
    expect(list[0].status).toBe('COMPLETED');
  });
});
