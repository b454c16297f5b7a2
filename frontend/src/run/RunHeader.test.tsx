// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Run, SavepointRequest } from '../api/types';
import { applyRunEvent, INITIAL_RUN_STATE } from '../state/run/runState';
import { useRunStore } from '../state/run/runStore';
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

  it('rescales in one click: the new parallelism goes to the server, the progress comes from the run\'s events', async () => {
    const answer = { id: 1, run: 7, status: 'STOPPING', message: 'rescale: parallelism 2 -> 3', from_version: 2, to_version: 3,
      parallelism: 3, nodes: {}, savepoint_request_id: 'r', new_run: null, rollback_run: null };
    const fetch = vi.fn(async () => new Response(JSON.stringify(answer), { status: 202, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, run: { ...RUN, definition: { parallelism: 2 } } as Run, status: 'RUNNING' });
    render(<RunHeader runId={7} />);
    fireEvent.click(screen.getByTestId('rescale'));
    expect((screen.getByTestId('rescale-parallelism') as HTMLInputElement).value).toBe('3');
    fireEvent.click(screen.getByTestId('rescale-confirm'));
    await waitFor(() => expect(screen.getByTestId('rescale-progress').dataset.status).toBe('STOPPING'));
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toContain('/api/runs/7/rescale');
    expect(JSON.parse(String(init.body))).toEqual({ parallelism: 3 });
    expect((screen.getByTestId('rescale') as HTMLButtonElement).disabled).toBe(true);
    useRunStore.getState().update((state) => applyRunEvent(state, { seq: 9, type: 'rescale', ts: 1, data: { ...answer, status: 'COMPLETED', new_run: 8 } as never }));
    await waitFor(() => expect(screen.getByTestId('rescale-progress').dataset.status).toBe('COMPLETED'));
    expect(screen.getByTestId('rescale-next-run').textContent).toBe('run #8');
    vi.unstubAllGlobals();
  });

  it('asks before Cancel throws the run away, and only cancels when the user confirms', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ ...RUN, status: 'CANCELING' }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    showRun('RUNNING');
    render(<RunHeader runId={7} />);
    fireEvent.click(screen.getByTestId('cancel'));
    const dialog = screen.getByRole('dialog', { name: 'Cancel the run?' });
    expect(dialog.textContent).toContain('Stop with savepoint');
    fireEvent.click(screen.getByText('Keep running'));
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(screen.getByTestId('cancel'));
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId('cancel'));
    fireEvent.click(screen.getByTestId('cancel-confirm'));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect((fetch.mock.calls[0] as unknown as [string])[0]).toBe('/api/runs/7/cancel');
    vi.unstubAllGlobals();
  });
});
