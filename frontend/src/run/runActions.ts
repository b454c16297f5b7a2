/**
 * The run page's commands: trigger a savepoint, stop with a savepoint, cancel, restart from a
 * checkpoint or savepoint. The page never decides an outcome itself: requests it starts are
 * followed through the server (the WebSocket's "savepoint" events and, to be sure, polling
 * GET /api/runs/<id>/savepoints/<request id>), and the run's status only ever comes from the
 * server too.
 */
import { api } from '../api/client';
import type { RestoreFrom, Run, SavepointRequest } from '../api/types';
import { navigate, paths } from '../router';
import { useRunStore } from '../state/run/runStore';
import { runLoaded } from '../state/run/runState';
import { upsertSavepoint } from '../state/run/savepoints';

const POLL_MS = 1000;
const POLL_LIMIT = 600;

function upsert(runId: number, request: Partial<SavepointRequest> & { request_id: string }) {
  const store = useRunStore.getState();
  if (store.runId !== runId) return;
  store.update((state) => ({ ...state, savepoints: upsertSavepoint(state.savepoints, request) }));
}

async function follow(runId: number, requestId: string): Promise<void> {
  for (let attempt = 0; attempt < POLL_LIMIT; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const store = useRunStore.getState();
    if (store.runId !== runId) return;
    const known = store.savepoints.find((request) => request.request_id === requestId);
    if (known && known.status !== 'IN_PROGRESS') return;
    try {
      upsert(runId, await api.getSavepoint(runId, requestId));
    } catch {
      // The WebSocket may still deliver the outcome; keep trying until the limit.
    }
  }
}

export async function refreshRun(runId: number): Promise<Run | null> {
  try {
    const run = await api.getRun(runId);
    useRunStore.getState().update((state) => runLoaded(state, run));
    return run;
  } catch {
    return null;
  }
}

export async function triggerSavepoint(runId: number, targetDirectory?: string): Promise<string> {
  const { request_id } = await api.triggerSavepoint(runId, targetDirectory || undefined);
  upsert(runId, { request_id, status: 'IN_PROGRESS', kind: 'savepoint', triggered_at: new Date().toISOString() });
  void follow(runId, request_id);
  return request_id;
}

export async function stopWithSavepoint(runId: number, drain: boolean, targetDirectory?: string): Promise<string> {
  const { request_id } = await api.stopRun(runId, drain, targetDirectory || undefined);
  upsert(runId, { request_id, status: 'IN_PROGRESS', kind: 'sync-savepoint', stop: true, drain, triggered_at: new Date().toISOString() });
  void follow(runId, request_id);
  void refreshRun(runId);
  return request_id;
}

export async function cancelRun(runId: number): Promise<void> {
  try {
    const run = await api.cancelRun(runId);
    useRunStore.getState().update((state) => runLoaded(state, run));
  } finally {
    void refreshRun(runId);
  }
}

/** Start a new run of the same pipeline version from a checkpoint or savepoint, and open it. */
export async function restartFrom(run: Run, restoreFrom: RestoreFrom, allowNonRestoredState: boolean): Promise<Run> {
  const started = await api.startRun(run.pipeline, {
    version: run.version,
    mode: run.mode,
    restore_from: restoreFrom,
    ...(allowNonRestoredState ? { allow_non_restored_state: true } : {}),
  });
  navigate(paths.run(started.id));
  return started;
}
