import { memo } from 'react';
import type { NodeMetrics } from '../api/types';
import { formatDuration } from '../state/shared/format';

function latencyTitle(metrics: NodeMetrics): string {
  const lines: string[] = [];
  if (typeof metrics.latency_p50_ms === 'number') {
    lines.push(`latency markers, source to here: p50 ${formatDuration(metrics.latency_p50_ms)} · p99 ${formatDuration(metrics.latency_p99_ms)} (${(metrics.latency_markers ?? 0).toLocaleString()} markers)`);
  }
  if (typeof metrics.hop_latency_p50_ms === 'number') {
    lines.push(`the hop into it (the channel's queue): p50 ${formatDuration(metrics.hop_latency_p50_ms)} · p99 ${formatDuration(metrics.hop_latency_p99_ms)}`);
  }
  for (const [source, figures] of Object.entries(metrics.latency_sources ?? {})) {
    lines.push(`from ${source}: p50 ${formatDuration(figures.p50_ms)} · p99 ${formatDuration(figures.p99_ms)}`);
  }
  if (typeof metrics.source_visible_latency_p50_ms === 'number') {
    lines.push(`visible to readers (source to the commit of its transaction): p50 ${formatDuration(metrics.source_visible_latency_p50_ms)} · p99 ${formatDuration(metrics.source_visible_latency_p99_ms)}`);
  }
  if (typeof metrics.visible_latency_p50_ms === 'number') {
    lines.push(`a record's wait at this exactly-once sink for its commit: p50 ${formatDuration(metrics.visible_latency_p50_ms)} · p99 ${formatDuration(metrics.visible_latency_p99_ms)} (${(metrics.visible_latency_records ?? 0).toLocaleString()} records)`);
  }
  return lines.join('\n');
}

/** A p50 and a p99 as one short figure, the unit said once when they share it: "12 / 80 ms", "1.23 / 4.12 s". */
export function formatPair(p50: number | null | undefined, p99: number | null | undefined): string {
  const [first, second] = [formatDuration(p50), formatDuration(p99)];
  for (const unit of [' ms', ' s']) {
    const simple = (text: string) => text.endsWith(unit) && !text.includes(' m ');
    if (simple(first) && simple(second)) return `${first.slice(0, -unit.length)} / ${second}`;
  }
  return `${first} / ${second}`;
}

/** What an exactly-once sink's reader sees: from the sources to the commit when markers reach it, else from the sink. */
export function visibleFigures(metrics: NodeMetrics): { p50: number; p99: number | undefined; fromSource: boolean } | null {
  if (typeof metrics.source_visible_latency_p50_ms === 'number') {
    return { p50: metrics.source_visible_latency_p50_ms, p99: metrics.source_visible_latency_p99_ms, fromSource: true };
  }
  if (typeof metrics.visible_latency_p50_ms === 'number') {
    return { p50: metrics.visible_latency_p50_ms, p99: metrics.visible_latency_p99_ms, fromSource: false };
  }
  return null;
}

/**
 * What latency markers measured at a run-graph node, as "lat p50 / p99" (the title says it in
 * words): from the sources to it, for the
 * head of a job vertex the hop into it (a slow operator makes that one grow), and at an exactly-once
 * sink how late its output becomes visible (its commit). Each label and figure is a piece that wraps
 * whole, so a narrow cell puts them on lines of their own instead of cutting them. Nothing before the
 * first figure, nor for runs that do not track latency and write at once.
 */
function NodeLatency({ metrics }: { metrics: NodeMetrics | undefined }) {
  if (!metrics) return null;
  const marked = typeof metrics.latency_p50_ms === 'number';
  const visible = visibleFigures(metrics);
  if (!marked && !visible) return null;
  return (
    <div
      className="run-cell__latency"
      data-testid="node-latency"
      data-p50={metrics.latency_p50_ms ?? undefined}
      data-p99={metrics.latency_p99_ms ?? undefined}
      data-hop={metrics.hop_latency_p50_ms ?? undefined}
      title={latencyTitle(metrics)}
    >
      {marked && (
        <span data-testid="marker-latency">
          <span>lat</span> <span>{formatPair(metrics.latency_p50_ms, metrics.latency_p99_ms)}</span>
        </span>
      )}
      {typeof metrics.hop_latency_p50_ms === 'number' && (
        <>
          {' '}
          <span data-testid="hop-latency">hop {formatDuration(metrics.hop_latency_p50_ms)}</span>
        </>
      )}
      {visible && (
        <>
          {marked && ' '}
          <span className="run-cell__visible" data-testid="visible-latency" data-p50={visible.p50} data-p99={visible.p99} data-from={visible.fromSource ? 'source' : 'sink'}>
            <span>visible</span> <span>{formatPair(visible.p50, visible.p99)}</span>
          </span>
        </>
      )}
    </div>
  );
}

export default memo(NodeLatency);
