import { Handle, Position, useStore, type NodeProps, type ReactFlowState } from '@xyflow/react';
import { memo, useCallback, type CSSProperties, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Operator } from '../api/types';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import type { ChainedOperator, VertexNode } from '../state/shared/graph';
import { formatCount, formatDuration } from '../state/shared/format';
import { failureIsCurrent, failureOfNode } from '../state/run/runFailures';
import { CELL_WIDTH, outputHandle } from '../state/run/runGraph';
import { isRunEnded } from '../state/run/runStatus';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { formatWatermark, nodeFigures } from '../state/run/nodeMetrics';
import { activityColour, activityOf, activityRatios, activityTextColour, formatPercent, formatRate, ratesOf, type ActivityRatios } from '../state/run/vertexMetrics';
import { violatedTotal } from '../state/shared/expectations';
import { classNames } from '../ui/classNames';
import NodeLag from './NodeLag';
import NodeLatency from './NodeLatency';
import PortHandles from './PortHandles';
import SideHandles from './SideHandles';

const selectOperators = (state: CatalogState) => state.byType;
/** What the run graph's boxes and cells read; each indexes it by its own vertex and node id. */
const selectRunGraph = (state: RunStoreState) => ({
  vertices: state.vertices,
  nodes: state.nodes,
  expectations: state.expectations,
  derivedRates: state.rates,
  exceptions: state.exceptions,
  selectedNode: state.selectedNode,
  runFailed: failureIsCurrent(state.status),
  ended: isRunEnded(state.status),
  toggleNode: state.toggleNode,
});

/** The output handles of a box that edges leave from, as one string " out:a out:b " (compared by value). */
function sendersOf(state: ReactFlowState, vertexId: string): string {
  const handles = state.edges.filter((edge) => edge.source === vertexId && edge.sourceHandle).map((edge) => edge.sourceHandle);
  return ` ${[...new Set(handles)].sort().join(' ')} `;
}

function activityTitle(ratios: ActivityRatios): string {
  return `busy ${formatPercent(ratios.busy)} · idle ${formatPercent(ratios.idle)} · backpressured ${formatPercent(ratios.backpressured)}`;
}

function countTitle(what: string, count: unknown, rate: number | null, ended: boolean, partials?: number): string {
  const total = typeof count === 'number' ? count.toLocaleString() : 'no';
  const arrived = partials === undefined ? '' : `, arriving as ${partials.toLocaleString()} partial aggregates (pre-aggregated before the exchange)`;
  return `${total} records ${what}${ended || rate === null ? '' : ` (${formatRate(rate)})`}${arrived}`;
}

function lateTitle(late: number): string {
  return `${late.toLocaleString()} record${late === 1 ? '' : 's'} came after the watermark had closed their window and ${late === 1 ? 'was' : 'were'} dropped (counted in "in", in no output); an edge from the late port keeps them`;
}

/**
 * One operator of the box: its id and type, its own records in and out with their rates while the
 * run is live (its vertex's counts for runs that report none per operator), its input watermark
 * when it has one, and its failures. Clicking it, or Enter on it, opens its subtasks.
 */
const OperatorCell = memo(function OperatorCell(props: { operator: ChainedOperator; vertexId: string; parallelism: number; catalog: Operator | undefined; sends: boolean }) {
  const { operator, vertexId, parallelism, catalog, sends } = props;
  const { vertices, nodes, expectations, derivedRates, exceptions, selectedNode, runFailed, ended, toggleNode } = useRunStore(useShallow(selectRunGraph));
  const { id } = operator;
  const quality = expectations[`node:${id}`];
  const nodeMetrics = nodes[id];
  const metrics = nodeFigures(nodeMetrics, vertices[vertexId]);
  const rates = ratesOf(metrics, nodeMetrics ? undefined : derivedRates[vertexId]);
  const activity = ended ? null : activityOf(activityRatios(metrics, typeof metrics?.parallelism === 'number' ? metrics.parallelism : parallelism));
  const failure = failureOfNode(exceptions, id, vertexId);
  const failedNow = failure !== null && runFailed && exceptions[0]?.seq === failure.latest.seq;
  const selected = selectedNode === id;
  const category = catalog?.category ?? operator.type.split('.')[0];
  const onKeyDown = (event: KeyboardEvent) => {
    // a click reaches the graph's onNodeClick, which finds the cell under it
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      toggleNode(id);
    }
  };
  return (
    <div
      data-testid={`node-${id}`}
      data-node={id}
      data-vertex={vertexId}
      data-activity={activity ?? undefined}
      data-failed={failedNow ? 'true' : undefined}
      data-selected={selected ? 'true' : undefined}
      data-chained-from={operator.feeder}
      className={classNames('run-cell', `category-${category}`, operator.feeder && 'is-chained', failedNow && 'is-failed', selected && 'is-drilled')}
      style={cellPlacement(operator)}
      title={catalog?.description}
      role="button"
      tabIndex={0}
      aria-pressed={selected}
      aria-label={`${id}: show its subtasks`}
      onKeyDown={onKeyDown}
    >
      {operator.feeder && <span className="run-cell__from" data-from={operator.feeder} title={`${operator.feeder} feeds it in the same thread`} aria-hidden="true" />}
      <div className="run-cell__name" title={`${id}: ${catalog?.title ?? operator.type}`}>
        <span className="run-cell__id">{id}</span>
        <span className="run-cell__type">{catalog?.title ?? operator.type}</span>
      </div>
      {metrics && (
        <div className="run-cell__metrics" data-testid="vertex-metrics" data-source={nodeMetrics ? 'operator' : 'vertex'}>
          <span data-testid="records-in" data-count={metrics.records_in} title={countTitle('in', metrics.records_in, rates.inRate, ended, nodeMetrics?.partials_in)}>
            in {formatCount(metrics.records_in)} {!ended && <em>{formatRate(rates.inRate)}</em>}
          </span>
          <span data-testid="records-out" data-count={metrics.records_out} title={countTitle('out', metrics.records_out, rates.outRate, ended)}>
            out {formatCount(metrics.records_out)} {!ended && <em>{formatRate(rates.outRate)}</em>}
          </span>
          {nodeMetrics?.late_records ? (
            <span className="run-cell__late" data-testid="late-records" data-count={nodeMetrics.late_records} title={lateTitle(nodeMetrics.late_records)}>
              late {formatCount(nodeMetrics.late_records)}
            </span>
          ) : null}
          {nodeMetrics && nodeMetrics.watermark !== null && (
            <span title={`input watermark (the lowest of its subtasks'): ${formatWatermark(nodeMetrics.watermark)}`} data-testid="node-watermark">
              wm {formatWatermark(nodeMetrics.watermark)}
            </span>
          )}
          {nodeMetrics && typeof nodeMetrics.watermark_lag_ms === 'number' && !ended && (
            <span title={`watermark lag: processing time minus the input watermark, ${formatDuration(nodeMetrics.watermark_lag_ms)} (${Math.round(nodeMetrics.watermark_lag_ms).toLocaleString()} ms)`} data-testid="watermark-lag" data-ms={nodeMetrics.watermark_lag_ms}>
              lag {formatDuration(nodeMetrics.watermark_lag_ms)}
            </span>
          )}
        </div>
      )}
      <NodeLag metrics={nodeMetrics} ended={ended} />
      <NodeLatency metrics={nodeMetrics} />
      {quality && (
        <div
          className={classNames('run-cell__quality', violatedTotal(quality) > 0 && 'has-violations')}
          data-testid="expectation-counts"
          data-records={quality.records}
          data-violated={violatedTotal(quality)}
          title={Object.entries(quality.rules)
            .map(([name, rule]) => `${name} (${rule.action}): ${rule.violated.toLocaleString()} of ${quality.records.toLocaleString()} violate it`)
            .join('\n')}
        >
          {violatedTotal(quality) > 0 ? `✗ ${formatCount(violatedTotal(quality))} violated` : `✓ ${Object.keys(quality.rules).length} rule${Object.keys(quality.rules).length === 1 ? '' : 's'} met`}
        </div>
      )}
      {failure && (
        <div className={classNames('failure-mark', failedNow && 'failure-mark--current')} data-testid="failure-mark" title={failure.latest.message}>
          {failedNow ? 'failed' : `failed ${failure.count}×`}: subtask {failure.subtasks.length ? failure.subtasks.join(', ') : '?'}
          {failure.latest.attempt !== null && ` · attempt ${failure.latest.attempt}`}
        </div>
      )}
      {(sends || (operator.last && catalog?.outputs !== 0)) && (
        <Handle type="source" id={outputHandle(id)} position={operator.last ? Position.Right : Position.Bottom} isConnectable={false} className="run-cell__out" />
      )}
    </div>
  );
});

/** The cell's place in the box's grid (see ChainedOperator.cell). */
function cellPlacement({ cell }: ChainedOperator): CSSProperties {
  return { gridColumn: `${cell.column + 1} / span ${cell.columns}`, gridRow: `${cell.row + 1} / span ${cell.rows}`, width: cell.columns * CELL_WIDTH };
}

/**
 * A job vertex of a run's read-only graph: its chained operators side by side (a tree's branches
 * stacked, each right of the operator that feeds it), coloured as Flink colours a vertex by how
 * its thread spends its time (busy / idle / backpressured), while the run is live. Inputs enter
 * its first operator; each output leaves the operator that sends it.
 */
function RunVertexNode({ id, data }: NodeProps<VertexNode>) {
  const catalog = useCatalogStore(selectOperators);
  const { vertices, nodes, ended } = useRunStore(useShallow(selectRunGraph));
  const head = data.operators[0];
  const headOperator = head ? catalog[head.type] : undefined;
  const senders = useStore(useCallback((state: ReactFlowState) => sendersOf(state, id), [id]));
  const metrics = vertices[id] ?? (head ? nodes[head.id] : undefined);
  const parallelism = typeof metrics?.parallelism === 'number' ? metrics.parallelism : (data.parallelism ?? 1);
  const ratios = ended ? null : activityRatios(metrics, parallelism);
  const activity = activityOf(ratios);
  const fill = activityColour(ratios);
  const style = fill ? ({ '--activity-fill': fill, '--activity-text': activityTextColour(ratios) } as CSSProperties) : undefined;
  return (
    <div
      className={classNames('run-vertex', activity && `activity-${activity}`, headOperator?.input_sides?.length && 'has-sides')}
      data-vertex={id}
      data-activity={activity ?? undefined}
      style={style}
      title={ratios ? `${data.operators.length > 1 ? 'One thread runs these operators: ' : ''}${activityTitle(ratios)}` : undefined}
    >
      {headOperator?.input_sides?.length ? (
        <SideHandles sides={headOperator.input_sides} connectable={false} />
      ) : (
        headOperator?.inputs !== 0 && <Handle type="target" position={Position.Left} isConnectable={false} />
      )}
      <div className="run-vertex__head">
        <span className="run-vertex__parallelism" title={`${parallelism} parallel subtasks`}>
          ×{parallelism}
        </span>
        {activity && ratios && (
          <span className={`activity-badge activity-badge--${activity}`} data-testid="activity">
            {activity === 'backpressured' ? `backpressured ${formatPercent(ratios.backpressured)}` : activity === 'busy' ? `busy ${formatPercent(ratios.busy)}` : 'idle'}
          </span>
        )}
      </div>
      <div className="run-vertex__cells" style={{ gridTemplateColumns: `repeat(${data.grid.columns}, ${CELL_WIDTH}px)` }}>
        {data.operators.map((operator) => (
          <OperatorCell key={operator.id} operator={operator} vertexId={id} parallelism={parallelism} catalog={catalog[operator.type]} sends={senders.includes(` ${outputHandle(operator.id)} `)} />
        ))}
      </div>
      {ratios && (
        <div className="activity-bar" aria-hidden="true">
          <span className="activity-bar__busy" style={{ width: `${ratios.busy * 100}%` }} />
          <span className="activity-bar__backpressured" style={{ width: `${ratios.backpressured * 100}%` }} />
          <span className="activity-bar__idle" style={{ width: `${ratios.idle * 100}%` }} />
        </div>
      )}
      <PortHandles
        ports={data.operators.flatMap((operator) => [
          // a read-only graph names the ports records leave by: those with an edge
          ...(catalog[operator.type]?.output_ports ?? []).filter((port) => senders.includes(` ${port.name} `)),
          ...(operator.quarantinePorts ?? []).map((name) => ({ name, description: 'Records its expectations quarantine' })),
        ])}
        connectable={false}
      />
    </div>
  );
}

export default memo(RunVertexNode);
