// @vitest-environment jsdom
import { ReactFlowProvider, type NodeProps } from '@xyflow/react';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NodeMetrics, PipelineDefinition, RunEvent, SubtaskMetrics } from '../api/types';
import RunVertexNode from '../nodes/RunVertexNode';
import type { VertexNode } from '../state/shared/graph';
import { applyRunEvent, INITIAL_RUN_STATE } from '../state/run/runState';
import { useRunStore } from '../state/run/runStore';
import { NodeDrillDown } from './NodeDrillDown';
import { RunGraph } from './RunGraph';

const DEFINITION = {
  format: 1, name: 'halving', parallelism: 2,
  nodes: [
    { id: 'gen', type: 'source.datagen', params: {}, ui: { x: 0, y: 0 } },
    { id: 'even', type: 'transform.filter', params: { predicate: 'x % 2 == 0' }, ui: { x: 300, y: 0 } },
  ],
  edges: [{ id: 'e1', from: 'gen', to: 'even' }],
} as unknown as PipelineDefinition;

class NoResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}

function subtask(index: number, extra: Partial<SubtaskMetrics> = {}): SubtaskMetrics {
  return {
    subtask: index, records_in: 100, records_out: 50, records_in_per_second: 20, records_out_per_second: 10,
    watermark: 1000 + index, busy_ratio: 0.25, idle_ratio: 0.7, backpressured_ratio: 0.05, checkpoint: null, ...extra,
  };
}

/** The filter `even` of a chain gen -> even, parallelism 2: it keeps half of its input. */
const EVEN: NodeMetrics = {
  vertex: 'gen', parallelism: 2, records_in: 200, records_out: 100, records_in_per_second: 40,
  records_out_per_second: 20, watermark: 1000, busy_ratio: 0.25, idle_ratio: 0.7, backpressured_ratio: 0.05,
  subtasks: [
    subtask(0, { checkpoint: { id: 4, state_size: 2048, processed_data: 0, persisted_data: 0, sync_duration: 3, async_duration: 12, alignment_duration: 0 } }),
    subtask(1, { backpressured_ratio: 0.8 }),
  ],
};

function metricsEvent(seq: number, nodes: Record<string, NodeMetrics>): RunEvent {
  return { seq, type: 'metrics', ts: 1_700_000_000_000 + seq, data: { vertices: { gen: { records_in: 200, records_out: 100 } }, nodes } };
}

/** The box of vertex `gen`: the chain gen -> even, parallelism 2; `id`'s cell of it. */
function renderNode(id: string) {
  const data = { operators: [{ id: 'gen', type: 'source.datagen' }, { id: 'even', type: 'transform.filter' }], parallelism: 2 };
  const props = { id: 'gen', type: 'vertex', data } as unknown as NodeProps<VertexNode>;
  render(
    <ReactFlowProvider>
      <RunVertexNode {...props} />
    </ReactFlowProvider>,
  );
  return within(screen.getByTestId(`node-${id}`));
}

describe('per-node metrics and the drill-down', () => {
  beforeEach(() => useRunStore.getState().reset(7));
  afterEach(cleanup);

  it('keeps the latest per-node figures of metrics events', () => {
    const first = applyRunEvent(INITIAL_RUN_STATE, metricsEvent(1, { even: EVEN }));
    const second = applyRunEvent(first, metricsEvent(2, { even: { ...EVEN, records_out: 150 } }));
    expect(second.nodes.even.records_out).toBe(150);
    expect(applyRunEvent(second, { seq: 3, type: 'metrics', ts: 3, data: { vertices: {} } }).nodes.even.records_out).toBe(150);
  });

  it("shows the operator's own counts on its node, not its chain's", () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, vertices: { gen: { records_in: 200, records_out: 100 } }, nodes: { even: EVEN, gen: { ...EVEN, records_in: 200, records_out: 200 } } });
    const gen = renderNode('gen');
    expect(gen.getByTestId('records-out').dataset.count).toBe('200');  // the source's output, not the chain's 100
    const even = within(screen.getByTestId('node-even'));
    expect(even.getByTestId('vertex-metrics').dataset.source).toBe('operator');
    expect(even.getByTestId('records-in').textContent).toContain('200');
    expect(even.getByTestId('records-out').textContent).toContain('100');
    expect(even.getByTestId('node-watermark').textContent).toBe('wm 1,000');
  });

  it("falls back to the vertex's counts for a run that reports none per operator", () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, vertices: { gen: { records_in: 7, records_out: 5 } } });
    const even = renderNode('even');
    expect(even.getByTestId('vertex-metrics').dataset.source).toBe('vertex');
    expect(even.getByTestId('records-out').dataset.count).toBe('5');
  });

  it('opens the drill-down of a node clicked in the run graph, with one row per subtask', () => {
    vi.stubGlobal('ResizeObserver', NoResizeObserver);
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, nodes: { even: EVEN } });
    render(
      <div style={{ width: 800, height: 400 }}>
        <RunGraph definition={DEFINITION} plan={null} />
      </div>,
    );
    render(<NodeDrillDown />);
    expect(screen.queryByTestId('node-drilldown')).toBeNull();
    fireEvent.click(screen.getByTestId('node-even'));
    expect(useRunStore.getState().selectedNode).toBe('even');
    const panel = screen.getByTestId('node-drilldown');
    expect(panel.dataset.node).toBe('even');
    const rows = within(panel).getAllByTestId('subtask-row');
    expect(rows.map((row) => row.dataset.subtask)).toEqual(['0', '1']);
    expect(within(rows[0]).getByTestId('subtask-records-in').textContent).toBe('100');
    expect(within(rows[0]).getByTestId('subtask-records-out').textContent).toBe('50');
    expect(within(rows[0]).getByTestId('subtask-watermark').textContent).toBe('1,000');
    expect(within(rows[0]).getByTestId('subtask-checkpoint').textContent).toContain('#4 · 2.0 KiB');
    expect(within(rows[1]).getByTestId('subtask-checkpoint').textContent).toBe('–');
    expect(within(rows[1]).getByTestId('subtask-backpressured').textContent).toBe('80%');
    expect(within(panel).getByTestId('node-totals').textContent).toContain('200');

    fireEvent.click(within(panel).getByLabelText('Close the drill-down'));
    expect(screen.queryByTestId('node-drilldown')).toBeNull();
    vi.unstubAllGlobals();
  });

  it('says when the clicked node has no per-subtask figures yet, and opens from the keyboard', () => {
    renderNode('even');
    render(<NodeDrillDown />);
    fireEvent.keyDown(screen.getByTestId('node-even'), { key: 'Enter' });
    expect(screen.getByTestId('node-drilldown-empty')).toBeTruthy();
  });

  it('shows the end-of-input watermark as the end', () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, selectedNode: 'even', nodes: { even: { ...EVEN, subtasks: [subtask(0, { watermark: 2 ** 63 - 1 })] } } });
    render(<NodeDrillDown />);
    expect(screen.getByTestId('subtask-watermark').textContent).toBe('end');
  });

  it('shows the chain in one box, coloured while the run is live, and only totals once it ended', () => {
    const busy = { ...EVEN, busy_ratio: 0.8, idle_ratio: 0.2, backpressured_ratio: 0 };
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING', vertices: { gen: { records_in: 200, records_out: 100, busy_ratio: 0.8, idle_ratio: 0.2, backpressured_ratio: 0 } }, nodes: { even: busy, gen: busy } });
    const even = renderNode('even');
    const box = screen.getByTestId('node-gen').closest<HTMLElement>('.run-vertex')!;
    expect([...box.querySelectorAll<HTMLElement>('[data-node]')].map((cell) => cell.dataset.node)).toEqual(['gen', 'even']);
    expect(box.dataset.activity).toBe('busy');
    expect(screen.getByTestId('node-even').dataset.activity).toBe('busy');
    expect(even.getByTestId('records-out').textContent).toContain('/s');
    cleanup();

    useRunStore.setState({ status: 'FINISHED' });
    const ended = renderNode('even');
    expect(ended.getByTestId('records-out').textContent).toBe('out 100 ');
    expect(screen.getByTestId('node-gen').closest<HTMLElement>('.run-vertex')!.dataset.activity).toBeUndefined();
    expect(screen.queryByTestId('activity')).toBeNull();
  });
});
