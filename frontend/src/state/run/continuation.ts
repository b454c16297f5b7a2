/**
 * Where the job of an ended run went: a rescale, an upgrade (Deploy with state) or a restart
 * stopped it with a savepoint and started a later run from it. The server says so in the run's
 * `ended_by`; while the run page is open, the run's "rescale" events say it first.
 */
import type { Rescale, Run } from '../../api/types';

export interface Continuation {
  /** The run the job goes on as. */
  run: number;
  how: 'rescale' | 'upgrade' | 'restart';
  /** "parallelism 1 -> 2", "v3 -> v4", or empty. */
  detail: string;
}

const FOLLOWED: ReadonlySet<Rescale['status']> = new Set(['STARTING', 'COMPLETED', 'ROLLED_BACK']);

export function continuationOf(run: Run | null, rescale: Rescale | null): Continuation | null {
  const ended = run?.ended_by;
  if (ended?.continued_as != null && (ended.how === 'rescale' || ended.how === 'upgrade' || ended.how === 'restart')) {
    return { run: ended.continued_as, how: ended.how, detail: ended.detail };
  }
  const next = rescale && FOLLOWED.has(rescale.status) ? (rescale.rollback_run ?? rescale.new_run) : null;
  if (rescale && next != null) return { run: next, how: 'rescale', detail: rescale.message.split(';')[0].replace(/^rescale: /, '') };
  return null;
}

/** The run a rescale this page started leads to, once it runs there (or the old parallelism runs again). */
export function rescaleDestination(rescale: Rescale | null): number | null {
  if (rescale?.status === 'COMPLETED') return rescale.new_run ?? null;
  if (rescale?.status === 'ROLLED_BACK') return rescale.rollback_run ?? null;
  return null;
}

/** "Rescaled (parallelism 1 -> 2): this job continues as run #12." */
export function describeContinuation(continuation: Continuation): string {
  const what = { rescale: 'Rescaled', upgrade: 'Upgraded', restart: 'Restarted' }[continuation.how];
  return `${what}${continuation.detail ? ` (${continuation.detail})` : ''}: this job continues as run #${continuation.run}.`;
}
