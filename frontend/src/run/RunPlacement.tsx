/**
 * Where the run's job runs: in the studio's shared session (one Spark application many runs share) or in
 * a driver and application of its own, and why. Beside it, the pipeline's setting for its next runs:
 * an editor marks the pipeline isolated (runs with Python code always are, whatever the setting). A run in
 * the session also shows how full the session is (its runs, slots, executors, memory): why it may wait.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { Run } from '../api/types';
import { SessionUseLine } from '../jobs/SessionUseLine';

const SESSION_REFRESH_MS = 5000;

const LABELS: Record<string, string> = { session: 'the shared session', own_driver: 'its own driver' };

export function RunPlacement({ run }: { run: Run }) {
  const [isolated, setIsolated] = useState(run.pipeline_isolated);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setIsolated(run.pipeline_isolated), [run.pipeline_isolated]);

  async function change(next: boolean) {
    setBusy(true);
    setError(null);
    try {
      setIsolated((await api.setIsolation(run.pipeline, next)).isolated);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <span className="run-placement muted">
      {run.placement && (
        <span data-testid="run-placement" data-placement={run.placement} title={run.placement_reason}>
          runs in {LABELS[run.placement] ?? run.placement}
          {run.placement_reason && `: ${run.placement_reason}`}
        </span>
      )}
      {run.placement === 'session' && <SessionUseLine refreshMs={SESSION_REFRESH_MS} />}
      <label className="checkbox-label" title="Runs started from now on get a driver and Spark application of their own instead of sharing the studio's session">
        <input type="checkbox" data-testid="pipeline-isolated" checked={isolated} disabled={busy} onChange={(event) => void change(event.target.checked)} />
        isolate next runs
      </label>
      {error && <span className="error-text">{error}</span>}
    </span>
  );
}
