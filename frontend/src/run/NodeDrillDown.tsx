import { formatBytes, formatDuration } from '../state/shared/format';
import { formatWatermark } from '../state/run/nodeMetrics';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { formatPercent, formatRate } from '../state/run/vertexMetrics';

const selectNodeId = (state: RunStoreState) => state.selectedNode;
const selectClose = (state: RunStoreState) => state.selectNode;

function count(value: number | null | undefined): string {
  return typeof value === 'number' ? value.toLocaleString() : '–';
}

/**
 * The drill-down of the run-graph node the user clicked: its totals, then one row per subtask
 * (records in/out and rates, busy / idle / backpressured time, input watermark, and the
 * subtask's part of the latest completed checkpoint, which is its whole chain's state).
 */
export function NodeDrillDown() {
  const id = useRunStore(selectNodeId);
  const metrics = useRunStore((state) => (id === null ? undefined : state.nodes[id]));
  const close = useRunStore(selectClose);
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
              <th scope="col">in/s</th>
              <th scope="col">out/s</th>
              <th scope="col">busy</th>
              <th scope="col">idle</th>
              <th scope="col">backpressured</th>
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
                <td>{formatRate(subtask.records_in_per_second)}</td>
                <td>{formatRate(subtask.records_out_per_second)}</td>
                <td>{formatPercent(subtask.busy_ratio)}</td>
                <td>{formatPercent(subtask.idle_ratio)}</td>
                <td data-testid="subtask-backpressured">{formatPercent(subtask.backpressured_ratio)}</td>
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
              <td>{formatRate(metrics.records_in_per_second)}</td>
              <td>{formatRate(metrics.records_out_per_second)}</td>
              <td>{formatPercent(metrics.busy_ratio)}</td>
              <td>{formatPercent(metrics.idle_ratio)}</td>
              <td>{formatPercent(metrics.backpressured_ratio)}</td>
              <td>{formatWatermark(metrics.watermark)}</td>
              <td />
            </tr>
          </tfoot>
        </table>
        </div>
      )}
    </section>
  );
}
