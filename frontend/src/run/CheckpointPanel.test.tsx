// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckpointStats } from '../api/types';
import { INITIAL_RUN_STATE } from '../state/run/runState';
import { useRunStore } from '../state/run/runStore';
import { CheckpointPanel } from './CheckpointPanel';

function row(id: number, extra: Partial<CheckpointStats> = {}): CheckpointStats {
  return {
    id, kind: 'checkpoint', status: 'COMPLETED', trigger_timestamp: 1_700_000_000_000 + id * 1000,
    latest_ack_timestamp: 1_700_000_000_040 + id * 1000, end_to_end_duration: 40, state_size: 2048,
    num_acknowledged_subtasks: 2, num_subtasks: 2, external_path: `/data/chk-${id}`, failure_message: null,
    trigger: null, ...extra,
  };
}

describe('CheckpointPanel', () => {
  beforeEach(() => {
    vi.stubGlobal('fetch', vi.fn(() => new Promise(() => undefined)));  // details load, never answer
    useRunStore.getState().reset(7);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('lists the history newest first with kind, status, trigger of savepoints and acknowledgements', () => {
    const rows = [
      row(3, { status: 'IN_PROGRESS', num_acknowledged_subtasks: 1, end_to_end_duration: null }),
      row(2, { kind: 'savepoint', is_savepoint: true, trigger: 'scheduled' }),
      row(1, { status: 'FAILED', failure_message: 'expired' }),
    ];
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, checkpoints: { counts: { restored: 0, total: 3, in_progress: 1, completed: 1, failed: 1 }, rows } });
    render(<CheckpointPanel />);
    const shown = screen.getAllByTestId('checkpoint-row');
    expect(shown.map((element) => element.dataset.id)).toEqual(['3', '2', '1']);
    expect(shown.map((element) => element.dataset.status)).toEqual(['IN_PROGRESS', 'COMPLETED', 'FAILED']);
    expect(within(shown[0]).getByText('1/2')).toBeTruthy();
    expect(within(shown[1]).getByTestId('checkpoint-trigger').textContent).toBe('scheduled');
    expect(within(shown[2]).queryByTestId('checkpoint-trigger')).toBeNull();
  });

  it('says per checkpoint whether it was aligned or unaligned, with the persisted in-flight bytes and alignment time', () => {
    const rows = [
      row(2, { unaligned: true, persisted_data: 4096, alignment_duration: 0.5 }),
      row(1, { unaligned: false, persisted_data: 0, alignment_duration: 2500 }),
    ];
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, checkpoints: { counts: { restored: 0, total: 2, in_progress: 0, completed: 2, failed: 0 }, rows } });
    render(<CheckpointPanel />);
    const cells = screen.getAllByTestId('checkpoint-alignment');
    expect(cells.map((cell) => cell.dataset.unaligned)).toEqual(['true', 'false']);
    expect(cells[0].textContent).toContain('unaligned');
    expect(cells[0].textContent).toContain('4');
    expect(cells[1].textContent?.startsWith('aligned · ')).toBe(true);
  });

  it('names the trigger of a live savepoint row from its request', () => {
    useRunStore.setState({
      ...INITIAL_RUN_STATE, runId: 7,
      checkpoints: { counts: { restored: 0, total: 1, in_progress: 0, completed: 1, failed: 0 }, rows: [row(8, { kind: 'savepoint' })] },
      savepoints: [{ request_id: 'r', status: 'COMPLETED', checkpoint_id: 8, trigger: 'scheduled' }],
    });
    render(<CheckpointPanel />);
    expect(screen.getByTestId('checkpoint-trigger').textContent).toBe('scheduled');
  });

  it('selects a checkpoint when its row is clicked', () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, checkpoints: { counts: { restored: 0, total: 1, in_progress: 0, completed: 1, failed: 0 }, rows: [row(5)] } });
    render(<CheckpointPanel />);
    fireEvent.click(screen.getByTestId('checkpoint-row'));
    expect(useRunStore.getState().selectedCheckpoint).toBe(5);
  });

  it('says so when there is no checkpoint yet', () => {
    render(<CheckpointPanel />);
    expect(screen.getByText('No checkpoint yet.')).toBeTruthy();
  });

  it('keeps the summary live: it asks the server again as checkpoints complete, and shows whole bytes', async () => {
    vi.useFakeTimers();
    const statistic = (avg: number | null) => ({ min: avg, max: avg, avg, p50: avg, p90: avg, p99: avg });
    const summary = (size: number | null) => ({ end_to_end_duration: statistic(size === null ? null : 40), state_size: statistic(size), alignment_duration: statistic(null), persisted_data: statistic(null) });
    let answer = summary(null);
    const fetch = vi.fn(async () => new Response(JSON.stringify({ counts: {}, summary: answer, latest: {}, history: [] }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, checkpoints: { counts: { restored: 0, total: 0, in_progress: 0, completed: 0, failed: 0 }, rows: [] } });
    render(<CheckpointPanel />);
    fireEvent.click(screen.getByTestId('checkpoint-tab-summary'));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch.mock.calls.map((call) => (call as unknown as [string])[0])).toContain('/api/runs/7/checkpoints?limit=0');
    const asked = () => fetch.mock.calls.filter((call) => (call as unknown as [string])[0].includes('limit=0')).length;
    expect(asked()).toBe(1);
    await vi.advanceTimersByTimeAsync(5000); // nothing completed: nothing asked
    expect(asked()).toBe(1);

    answer = summary(947.8846153846154);
    useRunStore.setState({ checkpoints: { counts: { restored: 0, total: 1, in_progress: 0, completed: 1, failed: 0 }, rows: [row(1)] } });
    await vi.advanceTimersByTimeAsync(2000);
    expect(asked()).toBe(2);
    const sizes = within(screen.getByTestId('checkpoint-summary')).getByText('Checkpointed data size').parentElement!;
    expect(sizes.textContent).toContain('948 B');
    expect(sizes.textContent).not.toContain('947.88');
    vi.useRealTimers();
  });
});
