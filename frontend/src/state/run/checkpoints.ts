/**
 * The checkpoint list of a run: starts from the REST history, then follows the WebSocket's
 * checkpoint events. Rows are upserted by id and kept newest first. Replayed or late events
 * never move a checkpoint backwards: a COMPLETED or FAILED checkpoint stays so, and the
 * acknowledged count only grows.
 */
import type { CheckpointCounts, CheckpointEventData, CheckpointHistory, CheckpointStats, CheckpointStatus } from '../../api/types';

export interface CheckpointList {
  counts: CheckpointCounts;
  /** Newest (highest id) first. */
  rows: CheckpointStats[];
}

export const EMPTY_CHECKPOINTS: CheckpointList = {
  counts: { restored: 0, total: 0, in_progress: 0, completed: 0, failed: 0 },
  rows: [],
};

const STATUS_OF_EVENT: Record<string, CheckpointStatus> = {
  triggered: 'IN_PROGRESS',
  acknowledged: 'IN_PROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
};

const STATUSES: ReadonlySet<string> = new Set<CheckpointStatus>(['IN_PROGRESS', 'COMPLETED', 'FAILED']);

/**
 * The status a checkpoint has after an event: from the lifecycle event's name, else from the
 * status the event carries (any case), else null (the event says nothing about status).
 */
export function statusAfterEvent(event: CheckpointEventData): CheckpointStatus | null {
  const byName = STATUS_OF_EVENT[event.event];
  if (byName) return byName;
  const carried = typeof event.status === 'string' ? event.status.toUpperCase() : '';
  return STATUSES.has(carried) ? (carried as CheckpointStatus) : null;
}

const COUNT_OF_STATUS: Record<CheckpointStatus, 'in_progress' | 'completed' | 'failed'> = {
  IN_PROGRESS: 'in_progress',
  COMPLETED: 'completed',
  FAILED: 'failed',
};

export function isFinalCheckpointStatus(status: CheckpointStatus): boolean {
  return status !== 'IN_PROGRESS';
}

function newestFirst(a: CheckpointStats, b: CheckpointStats): number {
  return b.id - a.id;
}

export function checkpointsFromHistory(history: CheckpointHistory): CheckpointList {
  const byId = new Map<number, CheckpointStats>();
  for (const row of history.history) byId.set(row.id, row);
  return { counts: { ...history.counts }, rows: [...byId.values()].sort(newestFirst) };
}

function rowFromEvent(event: CheckpointEventData, status: CheckpointStatus, ts: number): CheckpointStats {
  const row: CheckpointStats = {
    id: event.id,
    kind: event.kind,
    status,
    trigger_timestamp: event.trigger_timestamp ?? ts,
    latest_ack_timestamp: event.latest_ack_timestamp ?? null,
    end_to_end_duration: event.end_to_end_duration ?? null,
    state_size: event.state_size ?? null,
    num_acknowledged_subtasks: event.num_acknowledged_subtasks ?? 0,
    num_subtasks: event.num_subtasks ?? 0,
    external_path: event.external_path ?? null,
    failure_message: event.failure_message ?? null,
  };
  if (event.discarded || event.event === 'discarded') row.discarded = true;
  if (event.subtasks) row.subtasks = event.subtasks;
  if (event.pk !== undefined) row.pk = event.pk;
  if (event.is_savepoint !== undefined) row.is_savepoint = event.is_savepoint;
  return row;
}

/** Fields an event carries override the row's, except where that would go backwards. */
function mergeRow(row: CheckpointStats, event: CheckpointEventData, eventStatus: CheckpointStatus, ts: number): CheckpointStats {
  const status = isFinalCheckpointStatus(row.status) ? row.status : eventStatus;
  const statusChangedByEvent = status === eventStatus;
  const merged: CheckpointStats = { ...row, status };
  const pick = <K extends keyof CheckpointEventData & keyof CheckpointStats>(key: K) => {
    const value = event[key];
    if (value !== undefined && value !== null) (merged as unknown as Record<K, unknown>)[key] = value;
  };
  pick('kind');
  pick('trigger_timestamp');
  pick('num_subtasks');
  pick('pk');
  pick('is_savepoint');
  if (event.subtasks && event.subtasks.length >= (row.subtasks?.length ?? 0)) merged.subtasks = event.subtasks;
  if (statusChangedByEvent) {
    pick('end_to_end_duration');
    pick('state_size');
    pick('external_path');
    pick('failure_message');
    pick('latest_ack_timestamp');
  }
  merged.num_acknowledged_subtasks = Math.max(row.num_acknowledged_subtasks, event.num_acknowledged_subtasks ?? 0);
  if (statusChangedByEvent && event.event === 'acknowledged' && event.latest_ack_timestamp == null) {
    merged.latest_ack_timestamp = Math.max(row.latest_ack_timestamp ?? 0, ts);
  }
  if (event.discarded || event.event === 'discarded') merged.discarded = true;
  return merged;
}

function adjustCounts(counts: CheckpointCounts, before: CheckpointStatus | null, after: CheckpointStatus): CheckpointCounts {
  if (before === after) return counts;
  const next = { ...counts };
  if (before === null) next.total += 1;
  else next[COUNT_OF_STATUS[before]] = Math.max(0, next[COUNT_OF_STATUS[before]] - 1);
  next[COUNT_OF_STATUS[after]] += 1;
  return next;
}

/**
 * Rows a page keeps while it follows a run: the newest plain checkpoints up to this many, and every
 * savepoint. A run checkpointing every 100 ms would otherwise add 36,000 rows an hour to a page left
 * open (the counts still count them all; the server's history keeps as many in detail).
 */
export const MAX_CHECKPOINT_ROWS = 200;

function isSavepointRow(row: Pick<CheckpointStats, 'kind' | 'is_savepoint'>): boolean {
  return row.is_savepoint === true || String(row.kind).includes('savepoint');
}

/** The rows (newest first) without the oldest plain checkpoints beyond MAX_CHECKPOINT_ROWS. */
export function boundedRows(rows: CheckpointStats[]): CheckpointStats[] {
  if (rows.length <= MAX_CHECKPOINT_ROWS) return rows;
  let plain = 0;
  return rows.filter((row) => isSavepointRow(row) || ++plain <= MAX_CHECKPOINT_ROWS);
}

/** Apply one checkpoint event (`ts` is the event's time, used when the data lacks one). */
export function applyCheckpointEvent(list: CheckpointList, event: CheckpointEventData, ts = Date.now()): CheckpointList {
  const index = list.rows.findIndex((row) => row.id === event.id);
  const eventStatus = statusAfterEvent(event);
  if (index === -1) {
    if (eventStatus === null) return list; // nothing to show for a checkpoint we never saw start
    const row = rowFromEvent(event, eventStatus, ts);
    const newest = list.rows.length === 0 || row.id > list.rows[0].id;
    return {
      counts: adjustCounts(list.counts, null, row.status),
      rows: boundedRows(newest ? [row, ...list.rows] : [...list.rows, row].sort(newestFirst)),
    };
  }
  const before = list.rows[index];
  const after = mergeRow(before, event, eventStatus ?? before.status, ts);
  const rows = list.rows.slice();
  rows[index] = after;
  return { counts: adjustCounts(list.counts, before.status, after.status), rows };
}
