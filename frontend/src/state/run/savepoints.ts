/**
 * The savepoint requests of a run (trigger savepoint, stop with savepoint), newest first,
 * from GET /api/runs/<id>/savepoints and the WebSocket's "savepoint" events. Like
 * checkpoints, a request never moves back: once COMPLETED or FAILED it stays so.
 */
import type { SavepointEventData, SavepointProgressEventData, SavepointRequest } from '../../api/types';

const FINAL = new Set(['COMPLETED', 'FAILED']);

function normaliseStatus(status: string | undefined): SavepointRequest['status'] {
  const upper = (status ?? 'IN_PROGRESS').toUpperCase();
  return upper === 'COMPLETED' || upper === 'FAILED' ? upper : 'IN_PROGRESS';
}

export function upsertSavepoint(list: SavepointRequest[], update: Partial<SavepointRequest> & { request_id: string }): SavepointRequest[] {
  const index = list.findIndex((request) => request.request_id === update.request_id);
  const incoming = { ...update, status: normaliseStatus(update.status) };
  if (index === -1) return [{ ...incoming } as SavepointRequest, ...list];
  const current = list[index];
  const final = FINAL.has(current.status);
  const merged: SavepointRequest = { ...current };
  for (const [key, value] of Object.entries(incoming)) {
    if (value === undefined || value === null) continue;
    if (final && key === 'status') continue;
    (merged as unknown as Record<string, unknown>)[key] = value;
  }
  const next = list.slice();
  next[index] = merged;
  return next;
}

export function savepointsLoaded(list: SavepointRequest[], loaded: SavepointRequest[]): SavepointRequest[] {
  // Oldest first so that the newest ends up on top.
  return [...loaded].reverse().reduce((current, request) => upsertSavepoint(current, request), list);
}

export function applySavepointEvent(list: SavepointRequest[], data: SavepointEventData): SavepointRequest[] {
  if (!data || typeof data.request_id !== 'string') return list;
  return upsertSavepoint(list, { ...data, status: normaliseStatus(data.status) } as SavepointRequest);
}

/** A checkpoint event said a savepoint's files were deleted: its requests are marked, so nothing offers them. */
export function markSavepointDiscarded(list: SavepointRequest[], event: { id?: number; pk?: number; external_path?: string | null }): SavepointRequest[] {
  const matches = (request: SavepointRequest) =>
    (event.pk !== undefined && request.checkpoint_pk === event.pk) ||
    (!!event.external_path && request.location === event.external_path);
  if (!list.some(matches)) return list;
  return list.map((request) => (matches(request) ? { ...request, discarded: true } : request));
}

export function isSavepointPending(request: SavepointRequest | undefined): boolean {
  return !!request && request.status === 'IN_PROGRESS';
}

/** A "savepoint_progress" event: acknowledged / total subtasks of an open request. */
export function applySavepointProgress(list: SavepointRequest[], data: SavepointProgressEventData): SavepointRequest[] {
  if (!data || typeof data.request_id !== 'string') return list;
  return upsertSavepoint(list, {
    request_id: data.request_id,
    checkpoint_id: data.checkpoint_id,
    acknowledged_subtasks: data.acknowledged,
    total_subtasks: data.total,
    trigger: data.trigger,
    kind: data.kind,
  });
}
