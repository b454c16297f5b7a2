import { describe, expect, it } from 'vitest';
import { applyRunEvent, INITIAL_RUN_STATE, runLoaded } from './runState';
import { applySavepointEvent, isSavepointPending, upsertSavepoint } from './savepoints';
import type { Run } from '../api/types';

describe('savepoint requests', () => {
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
