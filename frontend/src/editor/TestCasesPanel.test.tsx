// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useEditorStore } from '../state/editor/editorStore';
import { useTestRunStore } from '../state/editor/testRunStore';
import { useCatalogStore } from '../state/shared/catalogStore';
import { OPERATORS } from '../testing/fixtures';
import { recordRequests, writes } from '../testing/requests';
import { TestCasesPanel } from './TestCasesPanel';

const DEFINITION = {
  format: 1 as const, name: 'p', mode: 'streaming' as const, parallelism: 1, max_parallelism: 128,
  checkpointing: { interval_ms: 1000, mode: 'exactly_once' as const },
  nodes: [
    { id: 'clicks', type: 'source.datagen', params: {} },
    { id: 'double', type: 'transform.map', params: { expression: 'x * 2' } },
    { id: 'out', type: 'sink.collect', params: {} },
  ],
  edges: [
    { id: 'e1', from: 'clicks', to: 'double', partitioning: 'forward' as const, exchange: 'pipelined' as const },
    { id: 'e2', from: 'double', to: 'out', partitioning: 'forward' as const, exchange: 'pipelined' as const },
  ],
};

describe('Tests panel', () => {
  beforeEach(() => {
    useCatalogStore.getState().setOperators(OPERATORS);
    useEditorStore.getState().replaceDefinition(DEFINITION);
    useTestRunStore.getState().reset();
  });
  afterEach(cleanup);

  it('adds a test case with an input per source, typed in a table, and an assertion saved in the definition', () => {
    render(<TestCasesPanel />);
    fireEvent.click(screen.getByTestId('test-case-new'));
    expect(screen.getByTestId('test-input-clicks')).toBeTruthy();
    fireEvent.click(screen.getByTestId('test-input-clicks-table-add-row'));
    fireEvent.change(screen.getByLabelText('row 1'), { target: { value: '21' } });
    fireEvent.click(screen.getByTestId('test-add-assertion'));
    fireEvent.change(screen.getByTestId('test-assertion-0-expect'), { target: { value: 'every' } });
    fireEvent.change(screen.getByTestId('test-assertion-0-expression'), { target: { value: 'x == 42' } });
    expect(useEditorStore.getState().settings.tests).toEqual([
      { name: 'test 1', inputs: { clicks: { rows: [21] } }, assertions: [{ node: 'out', expect: 'every', expression: 'x == 42' }] },
    ]);
  });

  it('shows a failing assertion with its first differing rows side by side', () => {
    useEditorStore.getState().updateSettings({ tests: [{ name: 't', inputs: { clicks: { rows: [1] } }, assertions: [{ node: 'double', expect: 'rows', rows: [3] }] }] });
    useTestRunStore.getState().finished(useEditorStore.getState().revision, 'failed', [{
      name: 't', status: 'failed', modes: ['streaming', 'batch'], failures: ['assertion 1'], agreement: [],
      nodes: { double: { count: 1, records: [2], ports: {}, status: 'failed' } },
      assertions: [{ node: 'double', port: null, passed: false, message: "'double' emitted 1 records, 1 expected, in order",
        difference: { order: 'exact', at: 0, expected: [3], actual: [2], expected_count: 1, actual_count: 1 } }],
    }], null);
    render(<TestCasesPanel />);
    expect(screen.getByTestId('difference-expected').textContent).toContain('3');
    expect(screen.getByTestId('difference-actual').textContent).toContain('2');
    expect(useTestRunStore.getState().marks).toEqual({ double: 'failed' });
    fireEvent.click(screen.getByTestId('test-assertion-0-use-emitted'));
    expect(useEditorStore.getState().settings.tests?.[0].assertions?.[0].rows).toEqual([2]);
  });
});

describe('the exactly-once proof form', () => {
  beforeEach(() => {
    useCatalogStore.getState().setOperators(OPERATORS);
    useEditorStore.getState().replaceDefinition(DEFINITION);
    useEditorStore.getState().updateSettings({ tests: [{ name: 'doubles', inputs: { clicks: { rows: [1] } }, assertions: [] }] });
    useEditorStore.setState({ pipelineId: 3, version: 2, permissions: null });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('sends the kills and the seed as JSON integers, within the server bounds', async () => {
    const sent = recordRequests(({ method }) => (method === 'POST' ? { status: 201, body: { id: 1, status: 'pending', test_case: 'doubles', seed: 42, kills: 50 } } : undefined));
    render(<TestCasesPanel />);
    const kills = screen.getByDisplayValue('10');
    fireEvent.change(kills, { target: { value: '75' } });
    expect((kills as HTMLInputElement).value).toBe('50');
    fireEvent.change(screen.getByLabelText('seed'), { target: { value: '42' } });
    fireEvent.click(screen.getByTestId('proof-start'));
    await waitFor(() => expect(writes(sent)).toHaveLength(1));
    expect(writes(sent)[0].raw).toBe('{"version":2,"test_case":"doubles","kills":50,"seed":42}');
  });

  it('sends nothing for a seed past 31 bits, and says so', () => {
    const sent = recordRequests();
    render(<TestCasesPanel />);
    fireEvent.change(screen.getByLabelText('seed'), { target: { value: '98765432109876543210' } });
    fireEvent.click(screen.getByTestId('proof-start'));
    expect(screen.getByText('seed: a whole number from 0 to 2,147,483,647')).toBeTruthy();
    expect(writes(sent)).toEqual([]);
  });
});
