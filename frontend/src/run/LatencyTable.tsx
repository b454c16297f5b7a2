import type { NodeMetrics } from '../api/types';
import { formatDuration } from '../state/shared/format';

/**
 * The drill-down's latency markers of a node: from the sources to it (p50, p99, markers), per source
 * subtask, and per subtask of the node with the hop into it where it is a job vertex's head. An
 * exactly-once sink adds its visible latency per subtask: from the sources to the commit of the
 * transaction (markers), and a record's wait at the sink for that commit. Shown once a marker
 * arrived or a commit happened; a run without latency tracking has only the latter.
 */
export function LatencyTable({ metrics }: { metrics: NodeMetrics }) {
  const marked = typeof metrics.latency_p50_ms === 'number';
  const visible = typeof metrics.visible_latency_p50_ms === 'number' || typeof metrics.source_visible_latency_p50_ms === 'number';
  if (!marked && !visible) return null;
  const sources = Object.entries(metrics.latency_sources ?? {});
  const hasHops = metrics.subtasks.some((subtask) => subtask.hop_latency);
  return (
    <div className="node-drilldown__scroll" data-testid="latency-table">
      <table className="data-table node-drilldown__table">
        <caption className="muted">
          {marked && (
            <>
              Latency markers, source to here: p50 {formatDuration(metrics.latency_p50_ms)} · p99 {formatDuration(metrics.latency_p99_ms)} ·{' '}
              {(metrics.latency_markers ?? 0).toLocaleString()} markers
              {typeof metrics.hop_latency_p50_ms === 'number' &&
                ` · the hop into it: p50 ${formatDuration(metrics.hop_latency_p50_ms)}, p99 ${formatDuration(metrics.hop_latency_p99_ms)}`}
            </>
          )}
          {typeof metrics.source_visible_latency_p50_ms === 'number' && (
            <span data-testid="visible-latency-caption">
              {marked && '. '}Visible to readers (source to commit): p50 {formatDuration(metrics.source_visible_latency_p50_ms)} · p99{' '}
              {formatDuration(metrics.source_visible_latency_p99_ms)}
            </span>
          )}
          {typeof metrics.visible_latency_p50_ms === 'number' &&
            `${marked || typeof metrics.source_visible_latency_p50_ms === 'number' ? '. ' : ''}A record's wait here for its commit: p50 ${formatDuration(metrics.visible_latency_p50_ms)} · p99 ${formatDuration(metrics.visible_latency_p99_ms)} · ${(metrics.visible_latency_records ?? 0).toLocaleString()} records`}
        </caption>
        <thead>
          <tr>
            <th scope="col">from</th>
            <th scope="col">at</th>
            <th scope="col">p50</th>
            <th scope="col">p99</th>
            <th scope="col">count</th>
          </tr>
        </thead>
        <tbody>
          {sources.map(([source, figures]) => (
            <tr key={`source-${source}`} data-testid="latency-source-row" data-source={source}>
              <td>
                <code>{source}</code>
              </td>
              <td>all subtasks</td>
              <td>{formatDuration(figures.p50_ms)}</td>
              <td>{formatDuration(figures.p99_ms)}</td>
              <td>{figures.markers.toLocaleString()}</td>
            </tr>
          ))}
          {metrics.subtasks.map((subtask) =>
            subtask.latency ? (
              <tr key={`subtask-${subtask.subtask}`} data-testid="latency-subtask-row" data-subtask={subtask.subtask}>
                <td>every source</td>
                <td>#{subtask.subtask}</td>
                <td>{formatDuration(subtask.latency.p50_ms)}</td>
                <td title={`max ${formatDuration(subtask.latency.max_ms)}`}>{formatDuration(subtask.latency.p99_ms)}</td>
                <td>{subtask.latency.markers.toLocaleString()}</td>
              </tr>
            ) : null,
          )}
          {hasHops &&
            metrics.subtasks.map((subtask) =>
              subtask.hop_latency ? (
                <tr key={`hop-${subtask.subtask}`} data-testid="latency-hop-row" data-subtask={subtask.subtask}>
                  <td>the hop into it</td>
                  <td>#{subtask.subtask}</td>
                  <td>{formatDuration(subtask.hop_latency.p50_ms)}</td>
                  <td>{formatDuration(subtask.hop_latency.p99_ms)}</td>
                  <td>{subtask.hop_latency.markers.toLocaleString()}</td>
                </tr>
              ) : null,
            )}
          {metrics.subtasks.map((subtask) =>
            subtask.source_visible_latency ? (
              <tr key={`visible-source-${subtask.subtask}`} data-testid="visible-latency-row" data-from="source" data-subtask={subtask.subtask}>
                <td>source to commit</td>
                <td>#{subtask.subtask}</td>
                <td>{formatDuration(subtask.source_visible_latency.p50_ms)}</td>
                <td title={`max ${formatDuration(subtask.source_visible_latency.max_ms)}`}>{formatDuration(subtask.source_visible_latency.p99_ms)}</td>
                <td>{subtask.source_visible_latency.markers.toLocaleString()} markers</td>
              </tr>
            ) : null,
          )}
          {metrics.subtasks.map((subtask) =>
            subtask.visible_latency ? (
              <tr key={`visible-${subtask.subtask}`} data-testid="visible-latency-row" data-from="sink" data-subtask={subtask.subtask}>
                <td>arrival to commit</td>
                <td>#{subtask.subtask}</td>
                <td>{formatDuration(subtask.visible_latency.p50_ms)}</td>
                <td title={`max ${formatDuration(subtask.visible_latency.max_ms)}`}>{formatDuration(subtask.visible_latency.p99_ms)}</td>
                <td>
                  {subtask.visible_latency.records.toLocaleString()} records, {subtask.visible_latency.commits.toLocaleString()} commits
                </td>
              </tr>
            ) : null,
          )}
        </tbody>
      </table>
    </div>
  );
}
