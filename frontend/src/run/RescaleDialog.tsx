import { useState } from 'react';
import { api } from '../api/client';
import type { Rescale, Run } from '../api/types';
import { paths } from '../router';
import { useRunStore } from '../state/run/runStore';
import { readNumber } from '../state/shared/numberInput';
import { Dialog } from '../ui/Dialog';
import { Link } from '../ui/Link';

function messageOf(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}

/** The new parallelism (job-wide); the server validates it and answers 400 naming a node or edge. */
export function RescaleDialog({ run, onClose }: { run: Run; onClose: () => void }) {
  const current = Number(run.definition?.parallelism ?? 1);
  const [parallelism, setParallelism] = useState(String(current + 1));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function rescale() {
    const { value, problem } = readNumber(parallelism, { integer: true, min: 1, max: 1024 });
    if (value === null) {
      setError(`parallelism must be ${problem}`);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const started = await api.rescaleRun(run.id, { parallelism: value });
      const store = useRunStore.getState();
      store.update((state) => ({ ...state, rescale: started }));
      store.followRescale(started.id);
      onClose();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  }
  return (
    <Dialog label="Rescale" testId="rescale-dialog" onClose={onClose}>
      <h2>Rescale</h2>
      <p className="muted">
        Stops the run with a savepoint, saves the new parallelism as a new version and starts it from the savepoint; this page
        then takes you to the new run. If the new run fails, the old parallelism starts again from the same savepoint.
      </p>
      <label className="form-field">
        <span className="form-field__label">Parallelism</span>
        <input className="input" type="number" min={1} max={1024} data-testid="rescale-parallelism" value={parallelism}
          onChange={(event) => setParallelism(event.target.value)} />
      </label>
      {error && <p className="error-text" data-testid="rescale-error">{error}</p>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
        <button type="button" className="button button--primary" data-testid="rescale-confirm" disabled={busy} onClick={() => void rescale()}>
          {busy ? 'Rescaling…' : 'Rescale'}
        </button>
      </div>
    </Dialog>
  );
}

const STEP_LABELS: Record<Rescale['status'], string> = {
  STOPPING: 'stopping with a savepoint…',
  STARTING: 'starting from the savepoint…',
  COMPLETED: 'running at the new parallelism',
  ROLLED_BACK: 'rolled back to the old parallelism',
  FAILED: 'failed',
};

/** Where the latest rescale is, live from the run's "rescale" events, with a link to the run it started. */
export function RescaleProgress({ rescale }: { rescale: Rescale | null }) {
  if (!rescale) return null;
  const next = rescale.rollback_run ?? rescale.new_run;
  return (
    <span className="rescale-progress" data-testid="rescale-progress" data-status={rescale.status} title={rescale.message}>
      {rescale.message.split(';')[0]}: {STEP_LABELS[rescale.status]}
      {next != null && (
        <>
          {' '}
          <Link to={paths.run(next)} data-testid="rescale-next-run">
            run #{next}
          </Link>
        </>
      )}
    </span>
  );
}
