/**
 * Upgrade (or roll back) a running pipeline with its state, as Nussknacker deploys: stop the
 * run with a savepoint, then start the chosen version restored from that savepoint.
 */
import { api, withEnvironment } from '../api/client';
import type { RestoreFrom, Run, RunSummary, SavepointRequest } from '../api/types';

const POLL_MS = 500;
const SAVEPOINT_TIMEOUT_MS = 180_000;

async function savepointOutcome(runId: number, requestId: string): Promise<SavepointRequest> {
  const deadline = Date.now() + SAVEPOINT_TIMEOUT_MS;
  for (;;) {
    const request = await api.getSavepoint(runId, requestId);
    if (request.status !== 'IN_PROGRESS') return request;
    if (Date.now() > deadline) throw new Error(`the savepoint of run #${runId} did not complete in ${SAVEPOINT_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Where the new run restores from: the savepoint's checkpoint row, or its directory. */
export function restoreOf(request: SavepointRequest): RestoreFrom | null {
  if (request.checkpoint_pk != null) return { pk: request.checkpoint_pk };
  return request.location ? { path: request.location } : null;
}

/**
 * ``environment``: whose values the new run gets (the editor's choice); null: it goes on in the stopped
 * run's environment, as a restore does unless it names one.
 */
export async function upgradeWithState(run: RunSummary, version: number, allowNonRestoredState: boolean, onStep: (step: string) => void = () => {},
  environment: string | null = null): Promise<Run> {
  onStep(`Stopping run #${run.id} with a savepoint…`);
  const { request_id: requestId } = await api.stopRun(run.id, false);
  const request = await savepointOutcome(run.id, requestId);
  const restore = request.status === 'COMPLETED' ? restoreOf(request) : null;
  if (!restore) throw new Error(`the stop with savepoint failed: ${request.failure_cause ?? 'no savepoint was written'}`);
  onStep(`Starting v${version} from savepoint${request.checkpoint_id != null ? ` #${request.checkpoint_id}` : ''}…`);
  return api.startRun(run.pipeline, withEnvironment({ version, mode: run.mode, restore_from: restore, allow_non_restored_state: allowNonRestoredState }, environment));
}
