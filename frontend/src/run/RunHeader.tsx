import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { SavepointRequest } from '../api/types';
import { navigate, paths } from '../router';
import { continuationOf, describeContinuation, rescaleDestination, type Continuation } from '../state/run/continuation';
import { useRunStore, type RunStoreState } from '../state/run/runStore';
import { isRunEnded, runStatusTone } from '../state/run/runStatus';
import { startingNotice, startupNote, startupReason } from '../state/run/startup';
import { Dialog } from '../ui/Dialog';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';
import { RescaleDialog, RescaleProgress } from './RescaleDialog';
import { RestartDialog } from './RestartDialog';
import { RunEnvironment } from './RunEnvironment';
import { RunPlacement } from './RunPlacement';
import { RunDiskUse } from './RunDiskUse';
import { cancelRun, stopWithSavepoint, triggerSavepoint } from './runActions';

const selectHeader = (state: RunStoreState) => ({
  run: state.run,
  status: state.status,
  failureCause: state.failureCause,
  savepoints: state.savepoints,
  rescale: state.rescale,
  followedRescale: state.followedRescale,
  startup: state.startup,
  slotWait: state.slotWait,
});

function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

/** A time in the header, short: the clock alone on the day it happened ("01:46:20"), else with the date ("Nov 28, 01:46"). */
export function formatHeaderTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '–';
  const date = new Date(iso);
  const sameDay = date.toDateString() === now.toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The newest savepoint request: in progress, then where it was written or why it failed; nothing once
 * its files were deleted (retention, or a user): the page names no savepoint that is gone. */
function SavepointStatus({ request }: { request: SavepointRequest | undefined }) {
  if (!request || request.discarded) return null;
  const stop = request.stop || request.trigger === 'stop' || request.kind === 'sync-savepoint';
  const what = stop ? `Stop with savepoint${request.drain ? ' (drain)' : ''}` : request.trigger === 'scheduled' ? 'Scheduled savepoint' : 'Savepoint';
  return (
    <div
      className={`savepoint-status tone-${request.status === 'COMPLETED' ? 'success' : request.status === 'FAILED' ? 'danger' : 'active'}`}
      data-testid="savepoint-status"
      data-status={request.status}
      data-kind={request.stop ? 'stop' : 'savepoint'}
      role="status"
    >
      {request.status === 'IN_PROGRESS' && (
        <>
          <span className="spinner" aria-hidden="true" /> {what} in progress…
          {request.total_subtasks != null && (
            <span className="savepoint-progress" data-testid="savepoint-progress">
              {' '}
              {request.acknowledged_subtasks ?? 0}/{request.total_subtasks} subtasks acknowledged
            </span>
          )}
        </>
      )}
      {request.status === 'COMPLETED' && (
        <>
          {what} completed{request.checkpoint_id != null && ` (#${request.checkpoint_id})`}: <code data-testid="savepoint-location">{request.location ?? 'location unknown'}</code>
        </>
      )}
      {request.status === 'FAILED' && (
        <>
          {what} failed: {request.failure_cause ?? 'unknown cause'}
        </>
      )}
    </div>
  );
}

function StopDialog({ runId, onClose }: { runId: number; onClose: () => void }) {
  const [drain, setDrain] = useState(false);
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function stop() {
    setBusy(true);
    setError(null);
    try {
      await stopWithSavepoint(runId, drain, target.trim() || undefined);
      onClose();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  }
  return (
    <Dialog label="Stop with savepoint" testId="stop-dialog" onClose={onClose}>
      <h2>Stop with savepoint</h2>
      <p className="muted">Takes a savepoint, then stops the run. Restart from the savepoint later to continue exactly there.</p>
      <label className="checkbox-label">
        <input type="checkbox" data-testid="stop-drain" checked={drain} onChange={(event) => setDrain(event.target.checked)} />
        Drain: end the input first (sources emit end of data and the max watermark, so windows fire)
      </label>
      <label className="form-field">
        <span className="form-field__label">Target directory (optional)</span>
        <input className="input is-code" data-testid="stop-target" placeholder="the run's savepoint directory" value={target} onChange={(event) => setTarget(event.target.value)} />
      </label>
      {error && <p className="error-text">{error}</p>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
        <button type="button" className="button button--danger" data-testid="stop-confirm" disabled={busy} onClick={() => void stop()}>
          {busy ? 'Stopping…' : drain ? 'Drain and stop' : 'Stop'}
        </button>
      </div>
    </Dialog>
  );
}

/** Cancel ends the run without a savepoint: it asks first, and names the way that keeps the state. */
function CancelDialog({ runId, onCancel, onClose }: { runId: number; onCancel: () => void; onClose: () => void }) {
  return (
    <Dialog label="Cancel the run?" testId="cancel-dialog" onClose={onClose}>
      <h2>Cancel run #{runId}?</h2>
      <p>
        The run stops at once, without a savepoint. To stop at a point you can continue from exactly, choose{' '}
        <strong>Stop with savepoint</strong> instead.
      </p>
      <div className="dialog-actions">
        <button type="button" className="button" autoFocus onClick={onClose}>
          Keep running
        </button>
        <button
          type="button"
          className="button button--danger"
          data-testid="cancel-confirm"
          onClick={() => {
            onClose();
            onCancel();
          }}
        >
          Cancel the run
        </button>
      </div>
    </Dialog>
  );
}

/** An ended run whose job went on as another run says so first, with the way there as its main action. */
function ContinuedAs({ continuation }: { continuation: Continuation }) {
  return (
    <div className="continued-as" role="status" data-testid="continued-as" data-run={continuation.run}>
      <span>{describeContinuation(continuation)}</span>
      <Link to={paths.run(continuation.run)} className="button button--primary" data-testid="continued-as-link">
        Open run #{continuation.run} →
      </Link>
    </div>
  );
}

/** Which run this is, its live status, and its commands: savepoint, stop with savepoint, cancel, restart. */
export function RunHeader({ runId }: { runId: number }) {
  const { run, status, failureCause, savepoints, rescale, followedRescale, startup, slotWait } = useRunStore(useShallow(selectHeader));
  const starting = startingNotice(status, startup, slotWait);
  const startedLate = startupNote(status, startup);
  const [busy, setBusy] = useState<'savepoint' | 'cancel' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'stop' | 'restart' | 'rescale' | 'cancel' | null>(null);
  const ended = isRunEnded(status);
  // Savepoints and stop-with-savepoint need a running streaming run (a batch run answers 409).
  const running = status === 'RUNNING' && run?.mode !== 'batch';
  const pending = savepoints.find((request) => request.status === 'IN_PROGRESS');
  const continuation = ended ? continuationOf(run, rescale) : null;

  // The rescale this page started: once the job runs at its new parallelism, show it there.
  useEffect(() => {
    const destination = rescale && rescale.id === followedRescale ? rescaleDestination(rescale) : null;
    if (destination !== null) navigate(paths.run(destination));
  }, [rescale, followedRescale]);

  async function act(which: 'savepoint' | 'cancel', action: () => Promise<unknown>) {
    setBusy(which);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(null);
    }
  }

  const restoredFrom = run?.restored_from;
  return (
    <div className="toolbar run-header">
      <div className="run-title">
        {run ? (
          <Link to={paths.pipeline(run.pipeline)} className="run-title__pipeline" title="Open in the editor">
            {run.pipeline_name}
          </Link>
        ) : (
          <span className="run-title__pipeline">Run</span>
        )}
        <span className="run-title__id">
          run #{runId}
          {run && ` · v${run.version} · ${run.mode}`}
          {restoredFrom && (
            <span data-testid="restored-from" className="run-title__restored" title={restoredFrom.path || undefined}>
              {' '}
              · restored from {restoredFrom.path || (restoredFrom.checkpoint_id != null ? `#${restoredFrom.checkpoint_id}` : 'a checkpoint')}
              {restoredFrom.run != null && ` of run #${restoredFrom.run}`}
            </span>
          )}
        </span>
      </div>
      <StatusBadge data-testid="run-status" tone={status ? runStatusTone(status) : 'neutral'} className="run-status">
        {status ?? 'LOADING'}
      </StatusBadge>
      {run && (
        // when it started and where it runs, one above the other: as tall as the title beside them, so the buttons keep
        // their row (a 30-operator graph needs the height at 1280x720) and neither line is squeezed to a letter
        <div className="run-meta">
          <span className="run-times muted" data-testid="run-times"
            title={`started ${formatDate(run.started_at ?? run.created_at)}${run.ended_at ? `, ended ${formatDate(run.ended_at)}` : ''}`}>
            started {formatHeaderTime(run.started_at ?? run.created_at)}
            {startedLate && (
              <span data-testid="run-started-late" title={startupReason(startup) ?? undefined}>
                {' '}
                · {startedLate}
              </span>
            )}
            {run.ended_at && ` · ended ${formatHeaderTime(run.ended_at)}`}
            <RunDiskUse runId={runId} live={!ended} />
          </span>
          <RunPlacement run={run} />
        </div>
      )}
      {run && <RunEnvironment run={run} />}
      <div className="toolbar-spacer" />
      {error && <span className="error-text">{error}</span>}
      <button
        type="button"
        data-testid="trigger-savepoint"
        className="button"
        disabled={!running || busy !== null || !!pending}
        title="Take a savepoint and keep running"
        onClick={() => void act('savepoint', () => triggerSavepoint(runId))}
      >
        {busy === 'savepoint' || (pending && !pending.stop) ? 'Savepoint…' : 'Savepoint'}
      </button>
      <button
        type="button"
        data-testid="stop-with-savepoint"
        className="button"
        disabled={!running || !!pending}
        title="Take a savepoint, then stop"
        onClick={() => setDialog('stop')}
      >
        Stop with savepoint
      </button>
      <button
        type="button"
        data-testid="rescale"
        className="button"
        disabled={!running || !!pending || rescale?.status === 'STOPPING' || rescale?.status === 'STARTING'}
        title="Stop with a savepoint and start again from it at another parallelism"
        onClick={() => setDialog('rescale')}
      >
        Rescale…
      </button>
      <button
        type="button"
        data-testid="cancel"
        className="button button--danger"
        disabled={ended || busy !== null || status === 'CANCELING' || status === null}
        title="Stop the run at once, without a savepoint (asks first)"
        onClick={() => setDialog('cancel')}
      >
        {status === 'CANCELING' || busy === 'cancel' ? 'Canceling…' : 'Cancel'}
      </button>
      <button
        type="button"
        data-testid="restart"
        className={continuation || !ended ? 'button' : 'button button--primary'}
        disabled={!run || !ended}
        title={ended ? 'Start again from a checkpoint or savepoint' : 'Stop or cancel the run first'}
        onClick={() => setDialog('restart')}
      >
        Restart from…
      </button>
      {starting && (
        <div className="run-starting" role="status" data-testid="run-starting">
          <span className="spinner" aria-hidden="true" /> {starting}
        </div>
      )}
      {continuation && <ContinuedAs continuation={continuation} />}
      <SavepointStatus request={savepoints[0]} />
      {!continuation && <RescaleProgress rescale={rescale} />}
      {failureCause && (
        <div className="failure-cause" role="alert">
          <strong>Failure:</strong> {failureCause.split('\n')[0]}
          {failureCause.includes('\n') && <span className="muted"> (traceback in the Exceptions tab)</span>}
        </div>
      )}
      {dialog === 'stop' && <StopDialog runId={runId} onClose={() => setDialog(null)} />}
      {dialog === 'cancel' && <CancelDialog runId={runId} onCancel={() => void act('cancel', () => cancelRun(runId))} onClose={() => setDialog(null)} />}
      {dialog === 'rescale' && run && <RescaleDialog run={run} onClose={() => setDialog(null)} />}
      {dialog === 'restart' && run && <RestartDialog run={run} onClose={() => setDialog(null)} />}
    </div>
  );
}
