import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { TaskException } from '../api/types';
import { formatClock } from '../state/shared/format';
import { useRunStore, type RunStoreState } from '../state/run/runStore';

const selectFailures = (state: RunStoreState) => ({
  exceptions: state.exceptions,
  restarts: state.restarts,
  root: state.status === 'FAILED' ? state.failureCause : null,
});

function ExceptionRow({ entry }: { entry: TaskException }) {
  const [open, setOpen] = useState(false);
  return (
    <li className="exception" data-testid="exception" data-vertex={entry.vertex ?? undefined} data-subtask={entry.subtask ?? undefined}>
      <div className="exception__head">
        <span className="numeric">{formatClock(entry.ts)}</span>
        <code>{entry.operator ?? entry.vertex ?? 'slot'}</code>
        <span>subtask {entry.subtask ?? '?'}</span>
        <span>attempt {entry.attempt ?? '?'}</span>
        {entry.region && <span className="muted">{entry.region}</span>}
      </div>
      <div className="exception__message" data-testid="exception-message">
        {entry.message}
      </div>
      {entry.record && (
        <div className="exception__record" data-testid="exception-record">
          <span className="muted">Record:</span> <code>{entry.record}</code>
        </div>
      )}
      {entry.traceback && (
        <>
          <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide traceback' : 'Traceback'}
          </button>
          {open && <pre className="exception__traceback" data-testid="exception-traceback">{entry.traceback}</pre>}
        </>
      )}
    </li>
  );
}

/** Flink's exceptions history: why the run failed, every subtask failure (newest first) and the restarts. */
export function ExceptionsPanel() {
  const { exceptions, restarts, root } = useRunStore(useShallow(selectFailures));
  return (
    <div className="exceptions-panel" data-testid="exceptions">
      {root && (
        <p className="error-text" data-testid="exceptions-root">
          <strong>Root cause:</strong> {root.split('\n')[0]}
        </p>
      )}
      {exceptions.length === 0 ? <p className="muted panel-empty">No subtask has failed.</p> : <ol className="exception-list">{exceptions.map((entry) => <ExceptionRow key={entry.seq} entry={entry} />)}</ol>}
      {restarts.length > 0 && (
        <>
          <div className="exceptions-panel__subheading">Restarts ({restarts.length})</div>
          <ul className="restart-list">
            {restarts.map((restart) => (
              <li key={restart.seq} data-testid="restart-entry">
                <span className="numeric">{formatClock(restart.ts)}</span> {restart.regions.length > 0 && <code>{restart.regions.join(', ')}</code>}{' '}
                {restart.delay_ms !== null && <span className="muted">after {restart.delay_ms} ms</span>} {restart.cause}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
