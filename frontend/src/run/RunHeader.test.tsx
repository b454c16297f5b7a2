// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Run, SavepointRequest } from '../api/types';
import { applyRunEvent, INITIAL_RUN_STATE } from '../state/run/runState';
import { useRunStore } from '../state/run/runStore';
import { formatHeaderTime, RunHeader } from './RunHeader';

const RUN = {
  id: 7, pipeline: 3, pipeline_name: 'clicks', version: 2, mode: 'streaming', status: 'RUNNING',
  created_at: '2026-11-23T10:00:00Z', started_at: '2026-11-23T10:00:05Z', ended_at: null,
} as unknown as Run;

function showRun(status: string, savepoints: SavepointRequest[] = [], failureCause: string | null = null) {
  useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, run: RUN, status: status as Run['status'], savepoints, failureCause });
}

/** The calls the header's buttons made (its disk use reads itself: GET /api/runs/<id>/disk). */
function commands(fetch: { mock: { calls: unknown[][] } }): Array<[string, RequestInit]> {
  return (fetch.mock.calls as unknown as Array<[string, RequestInit]>).filter(([url]) => !String(url).endsWith('/disk'));
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

  it('says when the run started in a few characters (the clock on its day), the whole date in the title', () => {
    const started = new Date(RUN.started_at!);
    expect(formatHeaderTime(RUN.started_at, started)).toBe(started.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
    expect(formatHeaderTime(RUN.started_at, new Date(started.getTime() + 3 * 86_400_000))).toContain(started.toLocaleString([], { month: 'short' }));
    showRun('RUNNING');
    render(<RunHeader runId={7} />);
    const times = screen.getByTestId('run-times');
    expect(times.title).toBe(`started ${started.toLocaleString()}`);
    expect(times.textContent!.length).toBeLessThan(`started ${started.toLocaleString()}`.length);
  });

  it('says which environment the run runs in, and the parameters it got there when asked', async () => {
    const fetch = vi.fn(async (url: string) =>
      String(url).endsWith('/environment')
        ? new Response(JSON.stringify({ environment: 'prod', parameters: { factor: 5, auth: 'Bearer ${secret:token}' } }), { status: 200, headers: { 'Content-Type': 'application/json' } })
        : new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } }),
    );
    vi.stubGlobal('fetch', fetch);
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, run: { ...RUN, environment: 'prod' } as Run, status: 'RUNNING' });
    render(<RunHeader runId={7} />);
    const chip = screen.getByTestId('run-environment');
    expect(chip.dataset.environment).toBe('prod');
    expect(chip.querySelector('a')?.getAttribute('href')).toBe('/environments');
    fireEvent.click(screen.getByTestId('run-environment-parameters-toggle'));
    await waitFor(() => expect(screen.getAllByTestId('run-environment-parameter').map((item) => item.textContent)).toEqual(['auth = Bearer ${secret:token}', 'factor = 5']));
    expect(commands(fetch).map(([url]) => String(url))).toEqual([expect.stringContaining('/api/runs/7/environment')]);
    vi.unstubAllGlobals();
  });

  it('shows no environment for a run in none', () => {
    showRun('RUNNING');
    render(<RunHeader runId={7} />);
    expect(screen.queryByTestId('run-environment')).toBeNull();
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
    const [url, init] = commands(fetch)[0];
    expect(url).toContain('/api/runs/7/rescale');
    expect(JSON.parse(String(init.body))).toEqual({ parallelism: 3 });
    expect((screen.getByTestId('rescale') as HTMLButtonElement).disabled).toBe(true);
    useRunStore.getState().update((state) => applyRunEvent(state, { seq: 9, type: 'rescale', ts: 1, data: { ...answer, status: 'COMPLETED', new_run: 8 } as never }));
    await waitFor(() => expect(screen.getByTestId('rescale-progress').dataset.status).toBe('COMPLETED'));
    expect(screen.getByTestId('rescale-next-run').textContent).toBe('run #8');
    vi.unstubAllGlobals();
  });

  it('shows the bytes the run holds on disk, with the breakdown on hover', async () => {
    const usage = { run: 7, total_bytes: 3 * 1024 * 1024, checkpoint_bytes: 2 * 1024 * 1024, checkpoint_count: 3,
      savepoint_bytes: 1024 * 1024 - 100, savepoint_count: 1, log_bytes: 100, measured_at: '2026-11-23T10:00:05Z',
      checkpoints_swept_at: null };
    const fetch = vi.fn(async () => new Response(JSON.stringify(usage), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    showRun('RUNNING');
    render(<RunHeader runId={7} />);
    await waitFor(() => expect(screen.getByTestId('run-disk').textContent).toContain('disk 3.0 MiB'));
    expect(screen.getByTestId('run-disk').title).toContain('checkpoints 2.0 MiB (3)');
    expect((fetch.mock.calls[0] as unknown as [string])[0]).toBe('/api/runs/7/disk');
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
    expect(commands(fetch)).toEqual([]);
    fireEvent.click(screen.getByTestId('cancel'));
    fireEvent.click(screen.getByTestId('cancel-confirm'));
    await waitFor(() => expect(commands(fetch)).toHaveLength(1));
    expect(commands(fetch)[0][0]).toBe('/api/runs/7/cancel');
    vi.unstubAllGlobals();
  });

  it('says where the run runs and why, and marks its pipeline isolated for the next runs', async () => {
    const fetch = vi.fn(async (url: string) => new Response(JSON.stringify(String(url).endsWith('/disk') ? {} : { id: 3, isolated: true }),
      { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING',
      run: { ...RUN, placement: 'own_driver', placement_reason: "it runs Python code (node 'py'): isolated", pipeline_isolated: false } as Run });
    render(<RunHeader runId={7} />);
    expect(screen.getByTestId('run-placement').textContent).toBe("runs in its own driver: it runs Python code (node 'py'): isolated");
    const box = screen.getByTestId('pipeline-isolated') as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    await waitFor(() => expect(box.checked).toBe(true));
    const [url, init] = commands(fetch)[0];
    expect([url, init.method, init.body]).toEqual(['/api/pipelines/3/isolation', 'POST', JSON.stringify({ isolated: true })]);
    cleanup();
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING',
      run: { ...RUN, placement: 'session', placement_reason: 'no Python code, secrets or isolation; needs 1 of 4 slots' } as Run });
    render(<RunHeader runId={7} />);
    expect(screen.getByTestId('run-placement').textContent).toBe(
      'runs in the shared session: no Python code, secrets or isolation; needs 1 of 4 slots');
    vi.unstubAllGlobals();
  });

  it('shows a run of the shared session how full the session is, its executors included', async () => {
    const use = { enabled: true, serving: true, application_id: 'app-1', slots: 2, slots_used: 2, slots_max: 8, runs: 1, runs_waiting: 1,
      memory_mb: 2048, executors: 2, executors_target: 3, executors_min: 1, executors_max: 8 };
    vi.stubGlobal('fetch', vi.fn(async (url: string) =>
      new Response(JSON.stringify(String(url).endsWith('/api/session') ? use : {}), { status: 200, headers: { 'Content-Type': 'application/json' } })));
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING',
      run: { ...RUN, placement: 'session', placement_reason: 'needs 3 of 8 slots' } as Run });
    render(<RunHeader runId={7} />);
    await waitFor(() => expect(screen.getByTestId('session-use').textContent).toBe(
      'shared session: 1 run · 2/2 slots · 1 waiting for slots · 2 executors, growing to 3 (min 1, max 8) · 2.0 GB'));
    expect(screen.getByTestId('session-use').getAttribute('title')).toBe('Spark application app-1 (elastic: one slot per executor)');
    vi.unstubAllGlobals();
  });

  it('says a starting run waits for slots of the shared session that other runs hold', () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, run: RUN, status: 'SCHEDULING' });
    useRunStore.getState().update((state) => applyRunEvent(state, { seq: 3, type: 'region', ts: 1, data: { event: 'waiting', region: 'r0', slots: 2, capacity: 0 } }));
    render(<RunHeader runId={7} />);
    expect(screen.getByTestId('run-starting').textContent).toContain('Waiting for 2 slots of the shared session');
    useRunStore.getState().update((state) => applyRunEvent(state, { seq: 4, type: 'region', ts: 2, data: { event: 'scheduled', region: 'r0' } }));
    expect(useRunStore.getState().slotWait).toBeNull();
  });
});
