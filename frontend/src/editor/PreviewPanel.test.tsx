// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useEditorStore } from '../state/editor/editorStore';
import { useCatalogStore } from '../state/shared/catalogStore';
import { OPERATORS } from '../testing/fixtures';
import { recordRequests, writes } from '../testing/requests';
import { PreviewPanel } from './PreviewPanel';

const DEFINITION = {
  format: 1 as const, name: 'p', mode: 'streaming' as const, parallelism: 1, max_parallelism: 128,
  checkpointing: { interval_ms: 1000, mode: 'exactly_once' as const },
  nodes: [
    { id: 'clicks', type: 'source.datagen', params: {} },
    { id: 'out', type: 'sink.collect', params: {} },
  ],
  edges: [{ id: 'e1', from: 'clicks', to: 'out', partitioning: 'forward' as const, exchange: 'pipelined' as const }],
};

describe('the preview limit', () => {
  beforeEach(() => {
    useCatalogStore.getState().setOperators(OPERATORS);
    useEditorStore.getState().replaceDefinition(DEFINITION);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("is sent as a JSON integer within the server's 1..1000", async () => {
    const sent = recordRequests(({ method }) => (method === 'POST' ? { status: 200, body: { nodes: {}, limit: 1000 } } : undefined));
    render(<PreviewPanel />);
    const limit = screen.getByRole('spinbutton') as HTMLInputElement;
    fireEvent.change(limit, { target: { value: '5000' } });
    expect(limit.value).toBe('1000');
    fireEvent.change(limit, { target: { value: '7.4' } });
    expect(limit.value).toBe('7');
    fireEvent.click(screen.getByTestId('preview-run'));
    await waitFor(() => expect(writes(sent)).toHaveLength(1));
    expect(writes(sent)[0].body).toMatchObject({ limit: 7 });
    expect(writes(sent)[0].raw).toContain('"limit":7');
  });
});
