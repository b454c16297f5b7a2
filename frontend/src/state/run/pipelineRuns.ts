/**
 * The runs of one pipeline, newest first: from GET /api/runs?pipeline=<id>, then kept current
 * by ws/pipelines/<id>/, which sends a run's summary whenever one is created or changes status.
 * An ended run never changes status again, whatever arrives late.
 */
import type { RunSummary } from '../../api/types';
import { isRunEnded } from './runStatus';

/** What upsertRunSummary needs of a run: any summary with an id and a status. */
type Summary = Pick<RunSummary, 'id' | 'status'>;

export function upsertRunSummary<T extends Summary>(list: T[], update: T): T[] {
  const index = list.findIndex((run) => run.id === update.id);
  if (index === -1) return [...list, update].sort((a, b) => b.id - a.id);
  const current = list[index];
  const merged = { ...current, ...update, status: isRunEnded(current.status) ? current.status : update.status };
  const next = list.slice();
  next[index] = merged;
  return next;
}

/** A ws/pipelines/<id>/ message's run summary, or null for anything else (pongs). */
export function runOfMessage(raw: unknown): RunSummary | null {
  if (typeof raw !== 'string') return null;
  try {
    const message = JSON.parse(raw) as { type?: string; data?: RunSummary };
    if (message.type !== 'run' || !message.data || typeof message.data.id !== 'number') return null;
    return message.data;
  } catch {
    return null;
  }
}

export function pipelineRunsUrl(pipelineId: number, origin: { protocol: string; host: string }): string {
  const scheme = origin.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${origin.host}/ws/pipelines/${pipelineId}/`;
}
