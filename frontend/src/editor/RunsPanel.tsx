import { useEffect, useState } from 'react';
import { api, rowsOf } from '../api/client';
import { closeCodeOf, REFUSED_CODES } from '../api/runSocket';
import type { RunSummary } from '../api/types';
import { paths } from '../router';
import { reconnectDelay } from '../state/run/eventSequence';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { pipelineRunsUrl, runOfMessage, upsertRunSummary } from '../state/run/pipelineRuns';
import { runStatusTone } from '../state/run/runStatus';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';

const selectPipelineId = (state: EditorState) => state.pipelineId;

/** What the panel says once the server refused the pipeline's socket (the user lost access to it). */
export const RUNS_REFUSED = 'This pipeline is no longer visible to you: its runs are not followed any more.';

/** Load the pipeline's runs, then follow ws/pipelines/<id>/ (reconnecting with backoff, except after a
 *  refusal: a close code of REFUSED_CODES ends the stream for good and empties the list). */
function usePipelineRuns(pipelineId: number | null): { runs: RunSummary[]; error: string | null } {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (pipelineId === null) return;
    let stopped = false;
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let attempt = 0;
    setRuns([]);
    // The socket carries changes only: read the list once per (re)connect.
    const load = () =>
      api.listRuns(pipelineId).then(
        (answer) => {
          if (stopped) return;
          setRuns((current) => rowsOf<RunSummary>(answer).reduce<RunSummary[]>((list, run) => upsertRunSummary(list, run), current));
          setError(null);
        },
        (failure: unknown) => !stopped && setError(failure instanceof Error ? failure.message : String(failure)),
      );
    const open = () => {
      socket = new WebSocket(pipelineRunsUrl(pipelineId, window.location));
      socket.onopen = () => {
        attempt = 0;
        void load();
      };
      socket.onmessage = (message) => {
        const run = runOfMessage(message.data);
        if (run) setRuns((current) => upsertRunSummary(current, run));
      };
      socket.onclose = (event) => {
        if (stopped) return;
        const code = closeCodeOf(event);
        if (code !== null && REFUSED_CODES.has(code)) {
          stopped = true;
          setRuns([]);
          setError(RUNS_REFUSED);
          return;
        }
        timer = setTimeout(open, reconnectDelay(attempt));
        attempt += 1;
      };
    };
    void load();
    open();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (socket) {
        socket.onclose = null;
        socket.close();
      }
    };
  }, [pipelineId]);
  return { runs, error };
}

/** Every run of the pipeline, live: status, version, and a link to its page. */
export function RunsPanel() {
  const pipelineId = useEditorStore(selectPipelineId);
  const { runs, error } = usePipelineRuns(pipelineId);
  if (pipelineId === null) {
    return (
      <div className="inspector-body">
        <p className="muted">Runs of a saved pipeline are listed here.</p>
      </div>
    );
  }
  return (
    <div className="inspector-body runs-panel" data-testid="runs-panel">
      {error && <p className="error-text">{error === RUNS_REFUSED ? error : `Could not load runs: ${error}`}</p>}
      {runs.length === 0 && !error && <p className="muted">No run yet.</p>}
      <ol className="version-list">
        {runs.map((run) => (
          <li key={run.id} data-testid="run-row" data-status={run.status}>
            <div className="version-row__head">
              <Link to={paths.run(run.id)}>run #{run.id}</Link>
              <StatusBadge tone={runStatusTone(run.status)}>{run.status}</StatusBadge>
              {run.version !== undefined && <span className="muted version-row__when">v{run.version}</span>}
            </div>
            <div className="muted version-row__by">
              {run.mode && `${run.mode} · `}
              {run.created_at ? new Date(run.created_at).toLocaleString() : ''}
            </div>
          </li>
        ))}
      </ol>
    </div>
  );
}
