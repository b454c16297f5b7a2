// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useEditorStore } from '../state/editor/editorStore';
import { sampleDefinition } from '../testing/fixtures';
import { RUNS_REFUSED, RunsPanel } from './RunsPanel';

/** A fake browser WebSocket: every one opened is kept, so a test can close it as the server would. */
class FakeSocket {
  static opened: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: string }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  close() {}
}

const RUN = { id: 7, status: 'RUNNING', version: 1, mode: 'streaming', created_at: '2026-11-28T04:00:00Z' };

describe('the editor runs panel', () => {
  beforeEach(() => {
    FakeSocket.opened = [];
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('WebSocket', FakeSocket);
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify([RUN]), { status: 200 })));
    useEditorStore.getState().loadPipeline({ id: 5, name: 'p', version: 1, definition: sampleDefinition() } as never);
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('reconnects after a dropped connection', async () => {
    render(<RunsPanel />);
    await screen.findByText('run #7');
    act(() => FakeSocket.opened[0].onclose?.({ code: 1006 }));
    await act(async () => {
      vi.advanceTimersByTime(60_000);
    });
    expect(FakeSocket.opened.length).toBe(2);
  });

  it('stops following and empties the list when the server refuses the user', async () => {
    render(<RunsPanel />);
    await screen.findByText('run #7');
    act(() => FakeSocket.opened[0].onclose?.({ code: 4404 }));
    await waitFor(() => expect(screen.getByText(RUNS_REFUSED)).toBeTruthy());
    expect(screen.queryByText('run #7')).toBeNull();
    await act(async () => {
      vi.advanceTimersByTime(60_000);
    });
    expect(FakeSocket.opened.length).toBe(1);
  });
});
