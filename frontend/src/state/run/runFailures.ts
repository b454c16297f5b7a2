/**
 * A run's failures as the run page shows them: each `task_failed` event as an exceptions-history
 * entry (the same shape GET /api/runs/<id>/exceptions answers), each RESTARTING status as a restart,
 * and which graph nodes failed.
 */
import type { RestartEntry, RunStatus, StatusEventData, TaskException, TaskFailedEventData } from '../../api/types';

const FAILING_OPERATOR = /operator '([^']+)'/;
/** Entries kept on the page; the REST history has up to 500. */
export const MAX_FAILURES = 200;

const RECORD_PREFIX = 'record: ';

export function exceptionOf(seq: number, ts: number, data: TaskFailedEventData): TaskException {
  const task = typeof data.task === 'string' ? data.task : null;
  const hash = task ? task.lastIndexOf('#') : -1;
  const vertex = task && hash >= 0 ? task.slice(0, hash) : null;
  const index = task && hash >= 0 ? Number(task.slice(hash + 1)) : NaN;
  const error = String(data.error ?? '');
  const newline = error.indexOf('\n');
  const message = newline >= 0 ? error.slice(0, newline) : error;
  let traceback = newline >= 0 ? error.slice(newline + 1) : '';
  let record: string | null = null;
  if (traceback.startsWith(RECORD_PREFIX)) {
    // the record an expression failed on (the server's studio.runs.exception_history reads it alike)
    const end = traceback.indexOf('\n');
    record = (end >= 0 ? traceback.slice(0, end) : traceback).slice(RECORD_PREFIX.length);
    traceback = end >= 0 ? traceback.slice(end + 1) : '';
  }
  traceback = traceback.trimEnd();
  return {
    seq,
    ts,
    task,
    vertex,
    subtask: Number.isInteger(index) ? index : null,
    operator: FAILING_OPERATOR.exec(message)?.[1] ?? null,
    region: data.region ?? null,
    attempt: data.attempt ?? null,
    message,
    record,
    traceback: traceback || null,
  };
}

export function restartOf(seq: number, ts: number, data: StatusEventData): RestartEntry {
  return { seq, ts, cause: data.cause ? data.cause.split('\n')[0] : null, regions: data.regions ?? [], delay_ms: data.delay_ms ?? null };
}

/** Newest first, each seq once (a replay after a reconnect repeats events). */
export function prependOnce<T extends { seq: number }>(list: T[], entry: T): T[] {
  if (list.some((item) => item.seq === entry.seq)) return list;
  return [entry, ...list].sort((a, b) => b.seq - a.seq).slice(0, MAX_FAILURES);
}

export interface NodeFailure {
  /** How many times a subtask of this node failed. */
  count: number;
  /** The subtasks that failed, lowest first. */
  subtasks: number[];
  latest: TaskException;
}

/**
 * The failures that concern graph node `nodeId` of job vertex `vertexId`: those whose error
 * names this operator, or, when the error names none, every failure of its vertex.
 */
export function failureOfNode(exceptions: TaskException[], nodeId: string, vertexId: string): NodeFailure | null {
  const mine = exceptions.filter((entry) => entry.vertex === vertexId && (entry.operator === null || entry.operator === nodeId));
  if (mine.length === 0) return null;
  const subtasks = [...new Set(mine.map((entry) => entry.subtask).filter((index): index is number => index !== null))].sort((a, b) => a - b);
  return { count: mine.length, subtasks, latest: mine[0] };
}

/** Whether the latest failure still stands: the run failed, or is restarting because of it. */
export function failureIsCurrent(status: RunStatus | null): boolean {
  return status === 'FAILED' || status === 'FAILING' || status === 'RESTARTING';
}
