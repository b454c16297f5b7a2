/** What a run's status means for the page: whether it has ended and how to colour it. */
import type { CheckpointStatus, RunStatus } from '../../api/types';

const ENDED: ReadonlySet<string> = new Set<RunStatus>(['FINISHED', 'CANCELED', 'FAILED']);

export function isRunEnded(status: string | null | undefined): boolean {
  return !!status && ENDED.has(status);
}

export type Tone = 'neutral' | 'active' | 'success' | 'warning' | 'danger';

const TONE_OF_STATUS: Record<string, Tone> = {
  CREATED: 'neutral',
  SCHEDULING: 'neutral',
  RUNNING: 'active',
  FINISHING: 'active',
  FINISHED: 'success',
  CANCELING: 'warning',
  CANCELED: 'warning',
  RESTARTING: 'warning',
  FAILING: 'danger',
  FAILED: 'danger',
};

export function runStatusTone(status: string): Tone {
  return TONE_OF_STATUS[status] ?? 'neutral';
}

export function checkpointStatusTone(status: CheckpointStatus | string): Tone {
  if (status === 'COMPLETED') return 'success';
  if (status === 'FAILED') return 'danger';
  return 'active';
}
