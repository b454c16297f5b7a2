import { describe, expect, it } from 'vitest';
import type { Rescale, Run } from '../../api/types';
import { continuationOf, describeContinuation, rescaleDestination } from './continuation';

const rescale = (status: Rescale['status'], fields: Partial<Rescale> = {}): Rescale => ({
  id: 1, run: 3, status, message: 'rescale: parallelism 1 -> 2', from_version: 1, to_version: 2, parallelism: 2, nodes: {},
  savepoint_request_id: 'a', new_run: null, rollback_run: null, ...fields,
});

describe('where the job of an ended run went', () => {
  it('follows the server, then the rescale events', () => {
    const upgraded = { ended_by: { how: 'upgrade', continued_as: 9, detail: 'v1 -> v2' } } as unknown as Run;
    expect(describeContinuation(continuationOf(upgraded, null)!)).toBe('Upgraded (v1 -> v2): this job continues as run #9.');
    const stopped = { ended_by: { how: 'stop', continued_as: null, detail: '' } } as unknown as Run;
    expect(continuationOf(stopped, null)).toBeNull();
    expect(continuationOf(stopped, rescale('STOPPING'))).toBeNull();
    expect(continuationOf(stopped, rescale('STARTING', { new_run: 7 }))).toEqual({ run: 7, how: 'rescale', detail: 'parallelism 1 -> 2' });
  });

  it('takes a page that started a rescale to the new run once it runs, or to the rollback', () => {
    expect(rescaleDestination(rescale('STARTING', { new_run: 7 }))).toBeNull();
    expect(rescaleDestination(rescale('COMPLETED', { new_run: 7 }))).toBe(7);
    expect(rescaleDestination(rescale('ROLLED_BACK', { new_run: 7, rollback_run: 8 }))).toBe(8);
    expect(rescaleDestination(rescale('FAILED'))).toBeNull();
  });
});
