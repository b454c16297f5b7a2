import { memo } from 'react';
import type { NodeMetrics } from '../api/types';
import { formatBytes, formatCount, formatDuration } from '../state/shared/format';
import { lagSummary, lagTitle } from '../state/run/sourceLag';

/**
 * How far behind a run-graph node is, in its cell: a source's lag (records or bytes left to read,
 * the splits not handed out yet) and a window's emit delay (how long after its end a result left).
 * Nothing for nodes that have neither, nor once the run ended.
 */
function NodeLag({ metrics, ended }: { metrics: NodeMetrics | undefined; ended: boolean }) {
  if (!metrics || ended) return null;
  const lag = metrics.lag;
  const emitDelay = metrics.emit_delay_ms;
  if (!lag && typeof emitDelay !== 'number') return null;
  return (
    <div className="run-cell__lag" data-testid="node-lag-line">
      {lag && (
        <span
          data-testid="source-lag"
          data-records={lag.records_behind ?? undefined}
          data-bytes={lag.bytes_behind ?? undefined}
          data-unassigned={lag.splits_unassigned ?? undefined}
          title={lagTitle(lag)}
        >
          {lagSummary(lag, formatCount, formatBytes)}
        </span>
      )}
      {typeof emitDelay === 'number' && (
        <span
          data-testid="emit-delay"
          data-ms={emitDelay}
          title={`results leave on average ${formatDuration(emitDelay)} after their window's end (at most ${formatDuration(metrics.emit_delay_max_ms)}, over ${(metrics.emit_delay_results ?? 0).toLocaleString()} results)`}
        >
          <span>emit</span> <span>+{formatDuration(emitDelay)}</span>
        </span>
      )}
    </div>
  );
}

export default memo(NodeLag);
