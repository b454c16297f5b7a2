import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../api/types';
import { pipelineRunsUrl, runOfMessage, upsertRunSummary } from './pipelineRuns';

describe('runs of a pipeline', () => {
  it('keeps runs newest first and updates them in place', () => {
    let runs: Array<Pick<RunSummary, 'id' | 'status'>> = [];
    runs = upsertRunSummary(runs, { id: 1, status: 'RUNNING' });
    runs = upsertRunSummary(runs, { id: 3, status: 'CREATED' });
    runs = upsertRunSummary(runs, { id: 2, status: 'FINISHED' });
    runs = upsertRunSummary(runs, { id: 3, status: 'RUNNING' });
    expect(runs.map((run) => [run.id, run.status])).toEqual([
      [3, 'RUNNING'],
      [2, 'FINISHED'],
      [1, 'RUNNING'],
    ]);
  });

  it('never reopens an ended run', () => {
    const runs = upsertRunSummary<Pick<RunSummary, 'id' | 'status'>>([{ id: 1, status: 'CANCELED' }], { id: 1, status: 'RUNNING' });
    expect(runs[0].status).toBe('CANCELED');
  });

  it('reads run messages and ignores the rest', () => {
    expect(runOfMessage('{"type":"run","ts":1,"data":{"id":4,"status":"RUNNING"}}')).toEqual({ id: 4, status: 'RUNNING' });
    expect(runOfMessage('{"type":"pong"}')).toBeNull();
    expect(runOfMessage('nope')).toBeNull();
    expect(pipelineRunsUrl(7, { protocol: 'https:', host: 'h:1' })).toBe('wss://h:1/ws/pipelines/7/');
  });
});
