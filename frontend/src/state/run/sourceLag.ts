/** A source node's lag in words that fit a run-graph cell, and in full for its tooltip. */
import type { NodeLag } from '../../api/types';

type Format = (value: number) => string;

/**
 * "1.2k behind" (records), "3.4 MiB behind" (bytes), or both; "+ 5 splits" when its enumerator has not
 * handed out every split; "caught up" when nothing is left. Records first: they are what a user counts.
 */
export function lagSummary(lag: NodeLag, formatCount: Format, formatBytes: Format): string {
  if (isCaughtUp(lag)) return 'caught up';
  const parts: string[] = [];
  if (typeof lag.records_behind === 'number') parts.push(formatCount(lag.records_behind));
  const bytes = (lag.bytes_behind ?? 0) + (lag.bytes_unassigned ?? 0);
  if (typeof lag.bytes_behind === 'number' || typeof lag.bytes_unassigned === 'number') parts.push(formatBytes(bytes));
  const queued = lag.splits_unassigned ? ` +${lag.splits_unassigned} split${lag.splits_unassigned === 1 ? '' : 's'}` : '';
  return `${parts.length ? `${parts.join(' · ')} behind` : 'lag unknown'}${queued}`;
}

/** Whether every figure the source gives says nothing is left (and some figure is given). */
export function isCaughtUp(lag: NodeLag): boolean {
  const figures = [lag.records_behind, lag.bytes_behind, lag.splits_unassigned, lag.bytes_unassigned].filter(
    (value): value is number => typeof value === 'number',
  );
  return figures.length > 0 && figures.every((value) => value === 0);
}

/** One line per figure and per split (the furthest behind first), for the cell's tooltip. */
export function lagTitle(lag: NodeLag): string {
  const lines = ['what the source has left to read, as its system counts it:'];
  if (typeof lag.records_behind === 'number') lines.push(`${lag.records_behind.toLocaleString()} records behind`);
  if (typeof lag.bytes_behind === 'number') lines.push(`${lag.bytes_behind.toLocaleString()} bytes behind`);
  if (typeof lag.pending === 'number') lines.push(`${lag.pending.toLocaleString()} pending (read, no completed checkpoint covers them)`);
  if (typeof lag.splits_unassigned === 'number') {
    lines.push(`${lag.splits_unassigned.toLocaleString()} splits not handed out yet${typeof lag.bytes_unassigned === 'number' ? ` (${lag.bytes_unassigned.toLocaleString()} bytes)` : ''}`);
  }
  for (const split of lag.splits.slice(0, 5)) {
    const figures = [
      typeof split.records_behind === 'number' ? `${split.records_behind.toLocaleString()} records` : null,
      typeof split.bytes_behind === 'number' ? `${split.bytes_behind.toLocaleString()} bytes` : null,
    ].filter(Boolean);
    lines.push(`#${split.subtask} ${split.split}: ${figures.join(', ') || '–'}`);
  }
  if (lag.splits_total > 5) lines.push(`… ${lag.splits_total - 5} more splits in the drill-down`);
  return lines.join('\n');
}
