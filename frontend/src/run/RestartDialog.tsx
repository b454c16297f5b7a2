import { useMemo, useState } from 'react';
import type { CheckpointStats, RestoreFrom, Run, SavepointRequest } from '../api/types';
import { isSavepoint, restorePoints } from '../state/run/checkpointTimeline';
import { formatBytes, formatClock } from '../state/shared/format';
import { restartFrom } from './runActions';
import { Dialog } from '../ui/Dialog';

interface Option {
  key: string;
  label: string;
  detail: string;
  kind: string;
  checkpointId: number | null;
  restore: RestoreFrom;
}

function optionsOf(rows: CheckpointStats[], savepoints: SavepointRequest[]): Option[] {
  const options: Option[] = restorePoints(rows).map((row) => ({
    key: `c${row.id}`,
    label: `${isSavepoint(row) ? 'Savepoint' : 'Checkpoint'} #${row.id}`,
    detail: `${formatClock(row.trigger_timestamp)} · ${formatBytes(row.state_size)}${row.external_path ? ` · ${row.external_path}` : ''}`,
    kind: isSavepoint(row) ? 'savepoint' : 'checkpoint',
    checkpointId: row.id,
    restore: row.pk !== undefined ? { pk: row.pk } : { path: row.external_path ?? '' },
  }));
  const known = new Set(rows.map((row) => row.external_path).filter(Boolean));
  for (const request of savepoints) {
    if (request.status !== 'COMPLETED' || !request.location || known.has(request.location)) continue;
    options.unshift({
      key: `s${request.request_id}`,
      label: `Savepoint${request.checkpoint_id != null ? ` #${request.checkpoint_id}` : ''}`,
      detail: request.location,
      kind: 'savepoint',
      checkpointId: request.checkpoint_id ?? null,
      restore: request.checkpoint_pk != null ? { pk: request.checkpoint_pk } : { path: request.location },
    });
  }
  return options.filter((option) => !('path' in option.restore) || option.restore.path);
}

/** Pick a retained checkpoint or a savepoint (or type a path) and start the pipeline again from it. */
export function RestartDialog({ run, rows, savepoints, onClose }: { run: Run; rows: CheckpointStats[]; savepoints: SavepointRequest[]; onClose: () => void }) {
  const options = useMemo(() => optionsOf(rows, savepoints), [rows, savepoints]);
  const [choice, setChoice] = useState<string>(() => options.find((option) => option.kind === 'savepoint')?.key ?? options[0]?.key ?? 'path');
  const [path, setPath] = useState('');
  const [allowNonRestored, setAllowNonRestored] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const restore: RestoreFrom | null = choice === 'path' ? (path.trim() ? { path: path.trim() } : null) : (options.find((option) => option.key === choice)?.restore ?? null);

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
        Starts a new run of v{run.version} ({run.mode}) with its state restored from the chosen snapshot.
      </p>
      <div className="restore-options">
        {options.length === 0 && <p className="muted">This run has no retained checkpoint or savepoint yet.</p>}
        {options.map((option) => (
          <label key={option.key} className="restore-option" data-testid="restore-option" data-kind={option.kind} data-id={option.checkpointId ?? undefined}>
            <input type="radio" name="restore" checked={choice === option.key} onChange={() => setChoice(option.key)} />
            <span>
              <strong>{option.label}</strong>
              <span className="muted restore-option__detail">{option.detail}</span>
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
