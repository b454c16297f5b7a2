// @vitest-environment jsdom
import { ReactFlowProvider, type NodeProps } from '@xyflow/react';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeMetrics, PipelineDefinition, PlanSummary } from '../api/types';
import { runGraph } from '../state/run/runGraph';
import { INITIAL_RUN_STATE } from '../state/run/runState';
import { useRunStore } from '../state/run/runStore';
import { useCatalogStore } from '../state/shared/catalogStore';
import type { VertexNode } from '../state/shared/graph';
import { COLLECT, DATAGEN, FILTER, INTERVAL_JOIN, MAP } from '../testing/fixtures';
import RunVertexNode from './RunVertexNode';
import runCss from '../styles/run.css?raw';

/** events -> event_time -> [clicks, purchases] in one task (fan-out chaining), each filter into one side of a join. */
const FAN_OUT = {
  format: 1, name: 'fan-out-join', parallelism: 2,
  nodes: [
    { id: 'events', type: 'source.datagen', params: {} },
    { id: 'event_time', type: 'transform.map', params: {} },
    { id: 'clicks', type: 'transform.filter', params: {} },
    { id: 'purchases', type: 'transform.filter', params: {} },
    { id: 'pairs', type: 'join.interval', params: {} },
    { id: 'out', type: 'sink.collect', params: {} },
  ],
  edges: [
    { id: 't', from: 'events', to: 'event_time', partitioning: 'forward', exchange: 'pipelined' },
    { id: 'c', from: 'event_time', to: 'clicks', partitioning: 'forward', exchange: 'pipelined' },
    { id: 'p', from: 'event_time', to: 'purchases', partitioning: 'forward', exchange: 'pipelined' },
    { id: 'cj', from: 'clicks', to: 'pairs', partitioning: 'hash', key: 'x["user"]', exchange: 'pipelined', side: 'left' },
    { id: 'pj', from: 'purchases', to: 'pairs', partitioning: 'hash', key: 'x["user"]', exchange: 'pipelined', side: 'right' },
    { id: 'o', from: 'pairs', to: 'out', partitioning: 'forward', exchange: 'pipelined' },
  ],
} as unknown as PipelineDefinition;

const PLAN: Pick<PlanSummary, 'job_vertices'> = {
  job_vertices: [
    { id: 'events', name: 'events -> event_time -> [clicks, purchases]', operators: ['events', 'event_time', 'clicks', 'purchases'], chain_inputs: [-1, 0, 1, 1], parallelism: 2 },
    { id: 'pairs', name: 'pairs -> out', operators: ['pairs', 'out'], chain_inputs: [-1, 0], parallelism: 2 },
  ],
};

function renderVertex(id: string) {
  const node = runGraph(FAN_OUT, PLAN).nodes.find((vertex) => vertex.id === id)!;
  const props = { id, type: 'vertex', data: node.data } as unknown as NodeProps<VertexNode>;
  const { container } = render(
    <ReactFlowProvider>
      <RunVertexNode {...props} />
    </ReactFlowProvider>,
  );
  return container;
}

const cell = (id: string) => screen.getByTestId(`node-${id}`);

/** ms from November 2023's event times to November 2026's clock: a watermark three years behind. */
const YEARS_MS = 1598607 * 60_000 + 27_000;

describe('a job vertex on the run graph', () => {
  beforeEach(() => {
    useCatalogStore.getState().setOperators([DATAGEN, MAP, FILTER, INTERVAL_JOIN, COLLECT]);
    useRunStore.setState({ ...INITIAL_RUN_STATE, runId: 7, status: 'RUNNING' });
  });
  afterEach(cleanup);

  it('draws a chain that fans out as a tree: each branch right of the operator feeding it, with its arrow from there', () => {
    renderVertex('events');
    expect(cell('clicks').dataset.chainedFrom).toBe('event_time');
    expect(cell('purchases').dataset.chainedFrom).toBe('event_time'); // not clicks: purchases never reads clicks' output
    expect(cell('purchases').querySelector('.run-cell__from')?.getAttribute('data-from')).toBe('event_time');
    expect(cell('events').dataset.chainedFrom).toBeUndefined();
    expect(cell('events').querySelector('.run-cell__from')).toBeNull();
    // one column per step from the head, the two branches stacked in the third, event_time spanning both rows
    const place = (id: string) => [cell(id).style.gridColumn, cell(id).style.gridRow];
    expect(place('events')).toEqual(['1 / span 1', '1 / span 2']);
    expect(place('event_time')).toEqual(['2 / span 1', '1 / span 2']);
    expect(place('clicks')).toEqual(['3 / span 1', '1 / span 1']);
    expect(place('purchases')).toEqual(['3 / span 1', '2 / span 1']);
  });

  it('lets each edge out of the box leave the operator that sends it', () => {
    renderVertex('events');
    expect(cell('clicks').querySelector('.react-flow__handle')?.getAttribute('data-handleid')).toBe('out:clicks');
    expect(cell('purchases').querySelector('.react-flow__handle')?.getAttribute('data-handleid')).toBe('out:purchases');
    expect(cell('event_time').querySelector('.react-flow__handle')).toBeNull(); // it sends nothing out of the thread
  });

  it("keeps a join's input names in a gutter of their own, beside its text", () => {
    const container = renderVertex('pairs');
    expect(container.querySelector('.run-vertex')?.classList.contains('has-sides')).toBe(true);
    expect([...container.querySelectorAll('.operator-node__side-name')].map((label) => label.textContent)).toEqual(['left', 'right']);
    expect(container.querySelector('.run-cell .operator-node__side-name')).toBeNull();
    expect(runCss).toMatch(/\.run-vertex\.has-sides\s*\{\s*padding-left:\s*39px/);
  });

  it('says a watermark lag of years in days and hours, the exact figure in its title', () => {
    const lagging = { vertex: 'events', parallelism: 2, records_in: 10, records_out: 10, watermark: 1_700_000_000_000, watermark_lag_ms: YEARS_MS } as unknown as NodeMetrics;
    useRunStore.setState({ nodes: { clicks: lagging } });
    renderVertex('events');
    const lag = within(cell('clicks')).getByTestId('watermark-lag');
    expect(lag.textContent).toBe('lag 1110 d 3 h');
    expect(lag.title).toContain(YEARS_MS.toLocaleString());
    expect(within(cell('clicks')).getByTestId('node-watermark').title).toContain(within(cell('clicks')).getByTestId('node-watermark').textContent!.slice(3));
  });

  it('cuts every line of a cell at its edge with an ellipsis, never letting it spill into the next cell', () => {
    const rule = /\.run-cell :is\(([^)]*)\) > span \{([^}]*)\}/.exec(runCss);
    expect(rule).not.toBeNull();
    const [, holders, body] = rule!;
    for (const holder of ['.run-cell__metrics', '.run-cell__lag', '.run-cell__latency', "[data-testid='emit-delay']"]) expect(holders).toContain(holder);
    for (const declaration of ['overflow: hidden', 'text-overflow: ellipsis', 'white-space: nowrap', 'max-width: 100%']) expect(body).toContain(declaration);
  });
});
