import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, type CSSProperties } from 'react';
import { useCatalogStore, type CatalogState } from '../state/catalogStore';
import type { VertexNode } from '../state/graph';
import PortHandles from './PortHandles';
import SideHandles from './SideHandles';
import { failureIsCurrent, failureOfNode } from '../state/runFailures';
import { useRunStore } from '../state/runStore';
import { activityColour, activityOf, activityRatios, activityTextColour, formatPercent, formatRate, ratesOf } from '../state/vertexMetrics';
import { classNames } from '../ui/classNames';

const selectOperators = (state: CatalogState) => state.byType;

function formatCount(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString() : '–';
}

/**
 * A node of a run's read-only graph with its job vertex's live metrics: records in/out and
 * rates, and Flink's colouring by busy / idle / backpressured time. Nodes chained into one
 * vertex show the same numbers and say which chain they belong to.
 */
function RunVertexNode({ id, data }: NodeProps<VertexNode>) {
  const operator = useCatalogStore(selectOperators)[data.type];
  const vertexId = data.vertex ?? id;
  const metrics = useRunStore((state) => state.vertices[vertexId]);
  const derived = useRunStore((state) => state.rates[vertexId]);
  const exceptions = useRunStore((state) => state.exceptions);
  const runFailed = useRunStore((state) => failureIsCurrent(state.status));
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
      className={classNames('operator-node', 'is-readonly', 'run-node', `category-${category}`, activity && `activity-${activity}`, chain.length > 1 && 'is-chained', failedNow && 'is-failed')}
      style={style}
      title={operator?.description}
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
        <div className="chain-label" title="Operators chained into one task share its metrics">
          chain {chain.indexOf(id) + 1}/{chain.length}: {chain.join(' → ')}
        </div>
      )}
      {metrics && (
        <div className="operator-node__metrics" data-testid="vertex-metrics">
          <span title="records in (per second)">
            in {formatCount(metrics.records_in)} <em>{formatRate(rates.inRate)}</em>
          </span>
          <span title="records out (per second)">
            out {formatCount(metrics.records_out)} <em>{formatRate(rates.outRate)}</em>
          </span>
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
