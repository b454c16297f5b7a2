import { formatBytes, formatDuration } from '../state/shared/format';
import { formatWatermark } from '../state/run/nodeMetrics';
import { isRunEnded } from '../state/run/runStatus';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { formatPercent, formatRate } from '../state/run/vertexMetrics';
import { violationRate } from '../state/shared/expectations';
import type { ExpectationCounts } from '../api/types';
import { LagTable } from './LagTable';
import { LatencyTable } from './LatencyTable';

const selectNodeId = (state: RunStoreState) => state.selectedNode;
const selectClose = (state: RunStoreState) => state.selectNode;
const selectLive = (state: RunStoreState) => !isRunEnded(state.status);

function count(value: number | null | undefined): string {
  return typeof value === 'number' ? value.toLocaleString() : '–';
}

/**
 * The drill-down of the run-graph node the user clicked: its totals, then one row per subtask
 * (records in/out and rates, busy / idle / backpressured time, input watermark, and the
 * subtask's part of the latest completed checkpoint, which is its whole chain's state), a source's lag
 * per split and a window's emit delay while the run is live, what latency markers measured at it, and
 * its expectations. Rates and
 * time shares are the run's present: an ended run shows its totals without them.
 */
export function NodeDrillDown() {
  const id = useRunStore(selectNodeId);
  const metrics = useRunStore((state) => (id === null ? undefined : state.nodes[id]));
  const quality = useRunStore((state) => (id === null ? undefined : state.expectations[`node:${id}`]));
  const close = useRunStore(selectClose);
  const live = useRunStore(selectLive);
  if (id === null) return null;
  return (
    <section className="node-drilldown" aria-label={`Subtasks of ${id}`} data-testid="node-drilldown" data-node={id}>
      <div className="node-drilldown__heading">
        Node <code>{id}</code>
        {metrics && (
          <span className="muted">
            {' '}in vertex <code>{metrics.vertex}</code> ×{metrics.parallelism ?? metrics.subtasks.length}
          </span>
        )}
        <button type="button" className="link-button node-drilldown__close" onClick={() => close(null)} aria-label="Close the drill-down">
          ×
        </button>
      </div>
      {!metrics ? (
        <p className="muted panel-empty" data-testid="node-drilldown-empty">
          No per-subtask figures for this node yet (they arrive with the next metrics report).
        </p>
      ) : (
        <div className="node-drilldown__scroll">
        <table className="data-table node-drilldown__table">
          <thead>
            <tr>
              <th scope="col">subtask</th>
              <th scope="col">records in</th>
              <th scope="col">records out</th>
              {live && (
                <>
                  <th scope="col">in/s</th>
                  <th scope="col">out/s</th>
                  <th scope="col">busy</th>
                  <th scope="col">idle</th>
                  <th scope="col">backpressured</th>
                </>
              )}
              <th scope="col">watermark</th>
              <th scope="col" title="The subtask's part of the latest completed checkpoint (its chain's state)">checkpoint</th>
            </tr>
          </thead>
          <tbody>
            {metrics.subtasks.map((subtask) => (
              <tr key={subtask.subtask} data-testid="subtask-row" data-subtask={subtask.subtask}>
                <td>#{subtask.subtask}</td>
                <td data-testid="subtask-records-in">{count(subtask.records_in)}</td>
                <td data-testid="subtask-records-out">{count(subtask.records_out)}</td>
                {live && (
                  <>
                    <td>{formatRate(subtask.records_in_per_second)}</td>
                    <td>{formatRate(subtask.records_out_per_second)}</td>
                    <td>{formatPercent(subtask.busy_ratio)}</td>
                    <td>{formatPercent(subtask.idle_ratio)}</td>
                    <td data-testid="subtask-backpressured">{formatPercent(subtask.backpressured_ratio)}</td>
                  </>
                )}
                <td data-testid="subtask-watermark">{formatWatermark(subtask.watermark)}</td>
                <td
                  data-testid="subtask-checkpoint"
                  title={subtask.checkpoint ? `sync ${formatDuration(subtask.checkpoint.sync_duration)} · async ${formatDuration(subtask.checkpoint.async_duration)} · alignment ${formatDuration(subtask.checkpoint.alignment_duration)}` : undefined}
                >
                  {subtask.checkpoint ? `#${subtask.checkpoint.id} · ${formatBytes(subtask.checkpoint.state_size)}` : '–'}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="node-totals">
              <th scope="row">all</th>
              <td>{count(metrics.records_in)}</td>
              <td>{count(metrics.records_out)}</td>
              {live && (
                <>
                  <td>{formatRate(metrics.records_in_per_second)}</td>
                  <td>{formatRate(metrics.records_out_per_second)}</td>
                  <td>{formatPercent(metrics.busy_ratio)}</td>
                  <td>{formatPercent(metrics.idle_ratio)}</td>
                  <td>{formatPercent(metrics.backpressured_ratio)}</td>
                </>
              )}
              <td>{formatWatermark(metrics.watermark)}</td>
              <td />
            </tr>
          </tfoot>
        </table>
        </div>
      )}
      {metrics && live && <LagTable metrics={metrics} />}
      {metrics && <LatencyTable metrics={metrics} />}
      {quality && <ExpectationTable counts={quality} />}
    </section>
  );
}

/** The node's expectations: per rule its action and the records violating it, of those checked. */
function ExpectationTable({ counts }: { counts: ExpectationCounts }) {
  return (
    <div className="node-drilldown__scroll" data-testid="expectation-table">
      <table className="data-table node-drilldown__table">
        <caption className="muted">
          Expectations: {counts.records.toLocaleString()} records checked · {counts.dropped.toLocaleString()} dropped ·{' '}
          {counts.quarantined.toLocaleString()} quarantined (exact across restarts: kept in the checkpoints)
        </caption>
        <thead>
          <tr>
            <th scope="col">rule</th>
            <th scope="col">action</th>
            <th scope="col">violated</th>
            <th scope="col">rate</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(counts.rules).map(([name, rule]) => (
            <tr key={name} data-testid="expectation-row" data-rule={name}>
              <td>
                <code>{name}</code>
              </td>
              <td>{rule.action}</td>
              <td data-testid="expectation-violated">{rule.violated.toLocaleString()}</td>
              <td>{violationRate(rule.violated, counts.records)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
