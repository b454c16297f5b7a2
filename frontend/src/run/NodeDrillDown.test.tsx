// @vitest-environment jsdom
import { ReactFlowProvider, type NodeProps } from '@xyflow/react';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NodeMetrics, PipelineDefinition, RunEvent, SubtaskMetrics } from '../api/types';
import RunVertexNode from '../nodes/RunVertexNode';
import type { VertexNode } from '../state/shared/graph';
import { runGraph } from '../state/run/runGraph';
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
  const [{ data }] = runGraph(DEFINITION, { job_vertices: [{ id: 'gen', name: 'gen -> even', operators: ['gen', 'even'], parallelism: 2 }] }).nodes;
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

  it('shows an ended run\'s totals without the rates and time shares of its last moments', () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING', selectedNode: 'even', nodes: { even: EVEN } });
    render(<NodeDrillDown />);
    expect(screen.getByTestId('node-drilldown').textContent).toContain('20/s');
    cleanup();
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'FINISHED', selectedNode: 'even', nodes: { even: EVEN } });
    render(<NodeDrillDown />);
    const table = screen.getByTestId('node-drilldown');
    expect(table.textContent).not.toMatch(/\/s|busy|25%/);
    expect(screen.getByTestId('node-totals').textContent).toContain('200');
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

  it("shows a source's lag on its node and per split in the drill-down while the run is live, a window's emit delay", () => {
    const lag = {
      records_behind: 12_345, bytes_behind: null, pending: null, splits_unassigned: null, bytes_unassigned: null, splits_total: 2,
      splits: [
        { split: 'events/1', subtask: 1, records_behind: 12_000, bytes_behind: null, pending: null },
        { split: 'events/0', subtask: 0, records_behind: 345, bytes_behind: null, pending: null },
      ],
    };
    const gen = { ...EVEN, lag };
    const even = { ...EVEN, emit_delay_ms: 1520, emit_delay_max_ms: 2000, emit_delay_results: 8 };
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING', selectedNode: 'gen', nodes: { gen, even } });
    const cell = renderNode('gen');
    expect(cell.getByTestId('source-lag').textContent).toBe('12.3k behind');
    expect(within(screen.getByTestId('node-even')).getByTestId('emit-delay').textContent).toBe('emit +1.52 s');
    render(<NodeDrillDown />);
    const rows = within(screen.getByTestId('lag-table')).getAllByTestId('lag-split-row');
    expect(rows.map((row) => row.dataset.split)).toEqual(['events/1', 'events/0']);
    expect(within(rows[0]).getByTestId('lag-split-records').textContent).toBe((12_000).toLocaleString());
    cleanup();

    useRunStore.setState({ status: 'FINISHED' });  // an ended run's lag is no longer news
    renderNode('gen');
    render(<NodeDrillDown />);
    expect(screen.queryByTestId('lag-table')).toBeNull();
    expect(screen.queryByTestId('source-lag')).toBeNull();
  });

  it("shows an exactly-once sink's visible latency on its node and per subtask in the drill-down", () => {
    const latency = { p50_ms: 12, p99_ms: 30, max_ms: 31, markers: 40, sources: { 'gen#0': { p50_ms: 12, p99_ms: 30, markers: 40 } } };
    const even: NodeMetrics = {
      ...EVEN, latency_p50_ms: 12, latency_p99_ms: 30, latency_markers: 80,
      visible_latency_p50_ms: 480, visible_latency_p99_ms: 990, visible_latency_records: 4000,
      source_visible_latency_p50_ms: 520, source_visible_latency_p99_ms: 1010, source_visible_latency_markers: 80,
      subtasks: [0, 1].map((index) => subtask(index, {
        latency,
        visible_latency: { p50_ms: 480, p99_ms: 990, max_ms: 995, records: 2000, commits: 4 },
        source_visible_latency: { ...latency, p50_ms: 520, p99_ms: 1010 },
      })),
    };
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING', selectedNode: 'even', nodes: { even } });
    renderNode('even');
    const visible = within(screen.getByTestId('node-even')).getByTestId('visible-latency');
    expect(visible.textContent).toBe('visible 520 ms / 1.01 s');  // p50 / p99 from the sources to the commit: markers reach it
    expect(within(screen.getByTestId('node-even')).getByTestId('marker-latency').textContent).toBe('lat 12 / 30 ms');
    expect(visible.dataset.from).toBe('source');
    render(<NodeDrillDown />);
    const rows = within(screen.getByTestId('latency-table')).getAllByTestId('visible-latency-row');
    expect(rows.map((row) => `${row.dataset.from}#${row.dataset.subtask}`)).toEqual(['source#0', 'source#1', 'sink#0', 'sink#1']);
    expect(rows[2].textContent).toContain('480 ms');
    expect(screen.getByTestId('visible-latency-caption').textContent).toContain('p50 520 ms');
    cleanup();

    const unmarked = { ...even, latency_p50_ms: undefined, source_visible_latency_p50_ms: undefined };
    useRunStore.setState({ nodes: { even: unmarked } });  // a run without latency markers: the sink's own wait
    renderNode('even');
    const own = within(screen.getByTestId('node-even')).getByTestId('visible-latency');
    expect(own.dataset.from).toBe('sink');
    expect(own.dataset.p50).toBe('480');
  });

  it("shows an operator's watermark lag on its node while the run is live, not once it ended", () => {
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING', nodes: { even: { ...EVEN, watermark_lag_ms: 2500 } } });
    renderNode('even');
    const lag = within(screen.getByTestId('node-even')).getByTestId('watermark-lag');
    expect(lag.dataset.ms).toBe('2500');
    expect(lag.textContent).toBe('lag 2.50 s');
    cleanup();
    useRunStore.setState({ status: 'FINISHED' });
    renderNode('even');
    expect(within(screen.getByTestId('node-even')).queryByTestId('watermark-lag')).toBeNull();
  });
});
