import type { NodeMetrics } from '../api/types';
import { lagSummary } from '../state/run/sourceLag';
import { formatBytes, formatCount, formatDuration } from '../state/shared/format';

function figure(value: number | null | undefined): string {
  return typeof value === 'number' ? value.toLocaleString() : '–';
}

/**
 * The drill-down's lag of a node: a source's splits (the furthest behind first) with the records and
 * bytes each has left and what its system holds as pending, and what its enumerator has not handed out;
 * a window's emit delay. Nothing for a node with neither.
 */
export function LagTable({ metrics }: { metrics: NodeMetrics }) {
  const lag = metrics.lag;
  if (!lag) {
    if (typeof metrics.emit_delay_ms !== 'number') return null;
    return (
      <p className="muted" data-testid="emit-delay-note">
        Emit delay: results leave {formatDuration(metrics.emit_delay_ms)} after their window's end on average, at most{' '}
        {formatDuration(metrics.emit_delay_max_ms)} (over the last {(metrics.emit_delay_results ?? 0).toLocaleString()} results)
      </p>
    );
  }
  return (
    <div className="node-drilldown__scroll" data-testid="lag-table">
      <table className="data-table node-drilldown__table">
        <caption className="muted">
          Source lag: {lagSummary(lag, formatCount, formatBytes)}
          {typeof lag.splits_unassigned === 'number' && ` · ${lag.splits_unassigned.toLocaleString()} splits not handed out yet`}
          {lag.splits_total > lag.splits.length && ` · the ${lag.splits.length} of ${lag.splits_total} splits furthest behind`}
        </caption>
        <thead>
          <tr>
            <th scope="col">split</th>
            <th scope="col">subtask</th>
            <th scope="col">records behind</th>
            <th scope="col">bytes behind</th>
            <th scope="col" title="Read but not covered by a completed checkpoint, as the source's system keeps it">pending</th>
          </tr>
        </thead>
        <tbody>
          {lag.splits.map((split) => (
            <tr key={`${split.subtask}-${split.split}`} data-testid="lag-split-row" data-split={split.split}>
              <td>
                <code>{split.split}</code>
              </td>
              <td>#{split.subtask}</td>
              <td data-testid="lag-split-records">{figure(split.records_behind)}</td>
              <td>{figure(split.bytes_behind)}</td>
              <td>{figure(split.pending)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr data-testid="lag-totals">
            <th scope="row">all</th>
            <td />
            <td>{figure(lag.records_behind)}</td>
            <td>{figure(lag.bytes_behind)}</td>
            <td>{figure(lag.pending)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
