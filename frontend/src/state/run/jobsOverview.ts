/** Flink's jobs overview as data: running runs first (newest start first), then the ended ones (newest end first). */
export const JOBS_ORDER = 'Running first, newest start first; then ended, newest end first';
import type { RunSummary } from '../../api/types';
import { isRunEnded } from './runStatus';

function time(iso: string | null | undefined): number {
  return iso ? Date.parse(iso) : 0;
}

export function jobsInOrder(runs: RunSummary[]): RunSummary[] {
  const active = runs.filter((run) => !isRunEnded(run.status));
  const ended = runs.filter((run) => isRunEnded(run.status));
  active.sort((a, b) => time(b.started_at ?? b.created_at) - time(a.started_at ?? a.created_at) || b.id - a.id);
  ended.sort((a, b) => time(b.ended_at) - time(a.ended_at) || b.id - a.id);
  return [...active, ...ended];
}

/** How an ended run ended, in a few words: "rescaled (parallelism 1 -> 2)", "stopped with a savepoint"; null while it runs. */
export function endingOf(run: Pick<RunSummary, 'ended_by'>): string | null {
  const ended = run.ended_by;
  if (!ended) return null;
  const detail = ended.detail ? ` (${ended.detail})` : '';
  switch (ended.how) {
    case 'rescale':
      return `rescaled${detail}`;
    case 'upgrade':
      return `upgraded${detail}`;
    case 'restart':
      return 'restarted';
    case 'stop':
      return 'stopped with a savepoint';
    case 'cancel':
      return 'canceled';
    case 'failure':
      return 'failed';
    default:
      return 'its input ended';
  }
}

/** How long a run has been up (until `now`), or ran; null before it started. */
export function uptimeMs(run: RunSummary, now: number): number | null {
  if (!run.started_at) return null;
  const end = run.ended_at ? time(run.ended_at) : now;
  return Math.max(0, end - time(run.started_at));
}

/** A time in the list: the clock for today, else the date and the clock without seconds; "–" for none. */
export function formatWhen(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (date.toDateString() === new Date(now).toDateString()) return date.toLocaleTimeString();
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** "2 h 05 m", "4 m 12 s", "37 s". */
export function formatUptime(ms: number | null): string {
  if (ms === null) return '–';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} m ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} m`;
}
