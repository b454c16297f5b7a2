import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { RestoreFrom, RestorePoint, Run } from '../api/types';
import { formatBytes } from '../state/shared/format';
import { restartFrom } from './runActions';
import { Dialog } from '../ui/Dialog';

const TRIGGER_LABELS: Record<string, string> = { manual: 'taken by hand', scheduled: 'scheduled', stop: 'stop with savepoint' };

/** "Savepoint #12 · stop with savepoint". */
function labelOf(point: RestorePoint): string {
  const what = `${point.kind === 'savepoint' ? 'Savepoint' : 'Checkpoint'} #${point.checkpoint_id}`;
  return point.trigger ? `${what} · ${TRIGGER_LABELS[point.trigger] ?? point.trigger}` : what;
}

/** "12/05/2025, 14:03:27 · 1.2 KiB · file:///…/savepoint-12". */
function detailOf(point: RestorePoint): string {
  return `${new Date(point.completed_timestamp).toLocaleString()} · ${formatBytes(point.state_size)} · ${point.location}`;
}

/** Pick a checkpoint or savepoint that still exists, newest first (or type a path), and start the pipeline again from it. */
export function RestartDialog({ run, onClose }: { run: Run; onClose: () => void }) {
  const [points, setPoints] = useState<RestorePoint[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [choice, setChoice] = useState<string>('path');
  const [path, setPath] = useState('');
  const [allowNonRestored, setAllowNonRestored] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // What exists now, asked when the dialog opens: retention or a user may have deleted what the page once showed.
  useEffect(() => {
    let current = true;
    api.listRestorePoints(run.id).then(
      (loaded) => {
        if (!current) return;
        setPoints(loaded);
        setChoice((chosen) => (chosen === 'path' && loaded.length ? `p${loaded[0].pk}` : chosen));
      },
      (failure: unknown) => current && setLoadError(failure instanceof Error ? failure.message : String(failure)),
    );
    return () => {
      current = false;
    };
  }, [run.id]);

  const chosen = points?.find((point) => `p${point.pk}` === choice);
  const restore: RestoreFrom | null = choice === 'path' ? (path.trim() ? { path: path.trim() } : null) : chosen ? { pk: chosen.pk } : null;

  async function submit() {
    if (!restore) return;
    setBusy(true);
    setError(null);
    try {
      await restartFrom(run, restore, allowNonRestored);
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setBusy(false);
    }
  }

  return (
    <Dialog label="Restart from a checkpoint" testId="restart-dialog" onClose={onClose}>
      <h2>Restart from…</h2>
      <p className="muted">
        Starts a new run of v{run.version} ({run.mode}) with its state restored from the chosen snapshot
        {run.environment ? (
          <>
            , in environment <strong data-testid="restart-environment">{run.environment}</strong> as this run (its parameters as they are now)
          </>
        ) : null}
        .
      </p>
      <div className="restore-options" data-testid="restore-options" aria-busy={points === null}>
        {points === null && !loadError && <p className="muted">Looking for checkpoints and savepoints…</p>}
        {loadError && <p className="error-text">Could not list them: {loadError}</p>}
        {points?.length === 0 && <p className="muted">This run has no checkpoint or savepoint left to restart from.</p>}
        {points?.map((point) => (
          <label key={point.pk} className="restore-option" data-testid="restore-option" data-kind={point.kind} data-id={point.checkpoint_id}>
            <input type="radio" name="restore" checked={choice === `p${point.pk}`} onChange={() => setChoice(`p${point.pk}`)} />
            <span>
              <strong>{labelOf(point)}</strong>
              <span className="muted restore-option__detail">{detailOf(point)}</span>
            </span>
          </label>
        ))}
        <label className="restore-option">
          <input type="radio" name="restore" checked={choice === 'path'} onChange={() => setChoice('path')} />
          <span>
            <strong>A path</strong>
            <input
              className="input is-code"
              data-testid="restore-path"
              placeholder="file:///…/savepoint-…"
              value={path}
              onFocus={() => setChoice('path')}
              onChange={(event) => setPath(event.target.value)}
            />
          </span>
        </label>
      </div>
      <label className="checkbox-label">
        <input type="checkbox" checked={allowNonRestored} onChange={(event) => setAllowNonRestored(event.target.checked)} />
        Allow state that no operator of this version takes (skip it)
      </label>
      {error && <p className="error-text">{error}</p>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
        <button type="button" className="button button--primary" data-testid="restart-confirm" disabled={!restore || busy} onClick={() => void submit()}>
          {busy ? 'Starting…' : 'Restart'}
        </button>
      </div>
    </Dialog>
  );
}
