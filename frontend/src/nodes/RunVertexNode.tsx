import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, type CSSProperties } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import type { VertexNode } from '../state/shared/graph';
import PortHandles from './PortHandles';
import SideHandles from './SideHandles';
import { failureIsCurrent, failureOfNode } from '../state/run/runFailures';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { formatWatermark, nodeFigures } from '../state/run/nodeMetrics';
import { activityColour, activityOf, activityRatios, activityTextColour, formatPercent, formatRate, ratesOf } from '../state/run/vertexMetrics';
import { classNames } from '../ui/classNames';

const selectOperators = (state: CatalogState) => state.byType;
/** What every node of the run graph reads; each indexes it by its own id and vertex. */
const selectRunGraph = (state: RunStoreState) => ({
  vertices: state.vertices,
  nodes: state.nodes,
  derivedRates: state.rates,
  exceptions: state.exceptions,
  selectedNode: state.selectedNode,
  runFailed: failureIsCurrent(state.status),
  toggleNode: state.toggleNode,
});

function formatCount(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString() : '–';
}

/**
 * A node of a run's read-only graph with its operator's live metrics: its own records in/out,
 * rates and input watermark (its vertex's counts for runs that report none per operator), and
 * Flink's colouring by busy / idle / backpressured time, which chained nodes share (one thread
 * runs the chain). Clicking it opens the drill-down of its subtasks.
 */
function RunVertexNode({ id, data }: NodeProps<VertexNode>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const vertexId = data.vertex ?? id;
  const { vertices, nodes, derivedRates, exceptions, selectedNode, runFailed, toggleNode } = useRunStore(useShallow(selectRunGraph));
  const vertexMetrics = vertices[vertexId];
  const nodeMetrics = nodes[id];
  const selected = selectedNode === id;
  const metrics = nodeFigures(nodeMetrics, vertexMetrics);
  const derived = nodeMetrics ? undefined : derivedRates[vertexId];
  const failure = failureOfNode(exceptions, id, vertexId);
  const failedNow = failure !== null && runFailed && exceptions[0]?.seq === failure.latest.seq;
  const category = operator?.category ?? data.type.split('.')[0];
  const parallelism = typeof metrics?.parallelism === 'number' ? metrics.parallelism : (data.vertexParallelism ?? data.parallelism ?? 1);
  const ratios = activityRatios(metrics, parallelism);
  const activity = activityOf(ratios);
  const rates = ratesOf(metrics, derived);
  const fill = activityColour(ratios);
  const chain = data.chain ?? [id];
  const style = fill ? ({ '--activity-fill': fill, '--activity-text': activityTextColour(ratios) } as CSSProperties) : undefined;
  return (
    <div
      data-testid={`node-${id}`}
      data-vertex={vertexId}
      data-activity={activity ?? undefined}
      data-failed={failedNow ? 'true' : undefined}
      data-selected={selected ? 'true' : undefined}
      className={classNames('operator-node', 'is-readonly', 'run-node', `category-${category}`, activity && `activity-${activity}`, chain.length > 1 && 'is-chained', failedNow && 'is-failed', selected && 'is-drilled')}
      style={style}
      title={operator?.description}
      role="button"
      tabIndex={0}
      aria-pressed={selected}
      aria-label={`${id}: show its subtasks`}
      onKeyDown={(event) => {
        // a click reaches the graph's onNodeClick (which also gives nodes pointer events)
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          toggleNode(id);
        }
      }}
    >
      {operator?.input_sides?.length ? (
        <SideHandles sides={operator.input_sides} connectable={false} />
      ) : (
        operator?.inputs !== 0 && <Handle type="target" position={Position.Left} isConnectable={false} />
      )}
      <div className="operator-node__header">
        <span className="operator-node__category">{category}</span>
        {(data.vertexParallelism ?? data.parallelism) !== undefined && (
          <span className="operator-node__parallelism">×{data.vertexParallelism ?? data.parallelism}</span>
        )}
        {activity && ratios && (
          <span
            className={`activity-badge activity-badge--${activity}`}
            data-testid="activity"
            title={`busy ${formatPercent(ratios.busy)} · idle ${formatPercent(ratios.idle)} · backpressured ${formatPercent(ratios.backpressured)}`}
          >
            {activity === 'backpressured' ? `backpressured ${formatPercent(ratios.backpressured)}` : activity === 'busy' ? `busy ${formatPercent(ratios.busy)}` : 'idle'}
          </span>
        )}
      </div>
      <div className="operator-node__title">{operator?.title ?? data.type}</div>
      <div className="operator-node__id">{id}</div>
      {failure && (
        <div
          className={classNames('failure-mark', failedNow && 'failure-mark--current')}
          data-testid="failure-mark"
          title={failure.latest.message}
        >
          {failedNow ? 'failed' : `failed ${failure.count}×`}: subtask {failure.subtasks.length ? failure.subtasks.join(', ') : '?'}
          {failure.latest.attempt !== null && ` · attempt ${failure.latest.attempt}`}
        </div>
      )}
      {chain.length > 1 && (
        <div className="chain-label" title="Operators chained into one task share its thread, so its busy / idle / backpressured time">
          chain {chain.indexOf(id) + 1}/{chain.length}: {chain.join(' → ')}
        </div>
      )}
      {metrics && (
        <div className="operator-node__metrics" data-testid="vertex-metrics" data-source={nodeMetrics ? 'operator' : 'vertex'}>
          <span title="records in (per second)" data-testid="records-in" data-count={metrics.records_in}>
            in {formatCount(metrics.records_in)} <em>{formatRate(rates.inRate)}</em>
          </span>
          <span title="records out (per second)" data-testid="records-out" data-count={metrics.records_out}>
            out {formatCount(metrics.records_out)} <em>{formatRate(rates.outRate)}</em>
          </span>
          {nodeMetrics && (
            <span title="input watermark (the lowest of its subtasks')" data-testid="node-watermark">
              wm {formatWatermark(nodeMetrics.watermark)}
            </span>
          )}
        </div>
      )}
      {ratios && (
        <div className="activity-bar" aria-hidden="true">
          <span className="activity-bar__busy" style={{ width: `${ratios.busy * 100}%` }} />
          <span className="activity-bar__backpressured" style={{ width: `${ratios.backpressured * 100}%` }} />
          <span className="activity-bar__idle" style={{ width: `${ratios.idle * 100}%` }} />
        </div>
      )}
      {operator?.outputs !== 0 && <Handle type="source" position={Position.Right} isConnectable={false} />}
      <PortHandles ports={operator?.output_ports} connectable={false} />
    </div>
  );
}

export default memo(RunVertexNode);
