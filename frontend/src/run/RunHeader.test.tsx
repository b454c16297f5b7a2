// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Run, SavepointRequest } from '../api/types';
import { INITIAL_RUN_STATE } from '../state/runState';
import { useRunStore } from '../state/runStore';
import { RunHeader } from './RunHeader';

const RUN = {
  id: 7, pipeline: 3, pipeline_name: 'clicks', version: 2, mode: 'streaming', status: 'RUNNING',
  created_at: '2026-11-23T10:00:00Z', started_at: '2026-11-23T10:00:05Z', ended_at: null,
} as unknown as Run;

function showRun(status: string, savepoints: SavepointRequest[] = [], failureCause: string | null = null) {
  useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, run: RUN, status: status as Run['status'], savepoints, failureCause });
}

describe('RunHeader', () => {
  beforeEach(() => useRunStore.getState().reset(7));
  afterEach(cleanup);

  it('shows the pipeline, the run and its live status, with the commands a running run allows', () => {
    showRun('RUNNING');
    render(<RunHeader runId={7} />);
    expect(screen.getByText('clicks')).toBeTruthy();
    expect(screen.getByText(/run #7 · v2 · streaming/)).toBeTruthy();
    expect(screen.getByTestId('run-status').textContent).toBe('RUNNING');
    expect((screen.getByTestId('trigger-savepoint') as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByTestId('restart') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows a savepoint in progress as acknowledged of total subtasks, and blocks another', () => {
    showRun('RUNNING', [{ request_id: 'a', status: 'IN_PROGRESS', trigger: 'scheduled', acknowledged_subtasks: 2, total_subtasks: 4 }]);
    render(<RunHeader runId={7} />);
    expect(screen.getByTestId('savepoint-status').textContent).toContain('Scheduled savepoint in progress');
    expect(screen.getByTestId('savepoint-progress').textContent).toContain('2/4 subtasks acknowledged');
    expect((screen.getByTestId('trigger-savepoint') as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows where a completed savepoint went, and the cause of a failed run', () => {
    showRun('FAILED', [{ request_id: 'b', status: 'COMPLETED', checkpoint_id: 9, location: '/data/sp-9' }], 'slot lost');
    render(<RunHeader runId={7} />);
    expect(screen.getByTestId('savepoint-location').textContent).toBe('/data/sp-9');
    expect(screen.getByRole('alert').textContent).toContain('slot lost');
    expect((screen.getByTestId('restart') as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByTestId('cancel') as HTMLButtonElement).disabled).toBe(true);
  });
});
