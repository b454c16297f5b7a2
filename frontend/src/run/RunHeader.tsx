import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { api } from '../api/client';
import { paths } from '../router';
import { useRunStore, type RunStoreState } from '../state/runStore';
import { runLoaded } from '../state/runState';
import { isRunEnded, runStatusTone } from '../state/runStatus';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';

const selectHeader = (state: RunStoreState) => ({
  run: state.run,
  status: state.status,
  failureCause: state.failureCause,
  update: state.update,
});

function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

/** Which run this is, its live status, and Cancel. */
export function RunHeader({ runId }: { runId: number }) {
  const { run, status, failureCause, update } = useRunStore(useShallow(selectHeader));
  const [canceling, setCanceling] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const ended = isRunEnded(status);

  async function cancel() {
    setCanceling(true);
    setCancelError(null);
    try {
      const updated = await api.cancelRun(runId);
      update((state) => runLoaded(state, updated));
    } catch (error) {
      setCancelError(error instanceof Error ? error.message : String(error));
      api.getRun(runId).then((fresh) => update((state) => runLoaded(state, fresh)), () => undefined);
    } finally {
      setCanceling(false);
    }
  }

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
        </span>
      </div>
      <StatusBadge data-testid="run-status" tone={status ? runStatusTone(status) : 'neutral'} className="run-status">
        {status ?? 'LOADING'}
      </StatusBadge>
      {run && (
        <span className="run-times muted">
          started {formatDate(run.started_at ?? run.created_at)}
          {run.ended_at && ` · ended ${formatDate(run.ended_at)}`}
        </span>
      )}
      <div className="toolbar-spacer" />
      {cancelError && <span className="error-text">{cancelError}</span>}
      <button
        type="button"
        data-testid="cancel"
        className="button button--danger"
        disabled={ended || canceling || status === 'CANCELING' || status === null}
        onClick={() => void cancel()}
      >
        {status === 'CANCELING' || canceling ? 'Canceling…' : 'Cancel'}
      </button>
      {failureCause && (
        <div className="failure-cause" role="alert">
          <strong>Failure:</strong> {failureCause}
        </div>
      )}
    </div>
  );
}
