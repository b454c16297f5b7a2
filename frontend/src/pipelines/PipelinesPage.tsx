import { useEffect, useState } from 'react';
import { api, rowsOf } from '../api/client';
import { runStatusTone } from '../state/run/runStatus';
import { StatusBadge } from '../ui/StatusBadge';
import type { PipelineSummary } from '../api/types';
import { paths } from '../router';
import { useEditorStore } from '../state/editor/editorStore';
import { Link } from '../ui/Link';

type Load = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; pipelines: PipelineSummary[] };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Delete, after a second click; the server refuses while a run of the pipeline has not ended. */
function DeleteButton({ pipeline, onDeleted }: { pipeline: PipelineSummary; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function remove() {
    setError(null);
    try {
      await api.deletePipeline(pipeline.id);
      onDeleted();
    } catch (failure) {
      setError(messageOf(failure));
      setConfirming(false);
    }
  }
  return (
    <>
      {confirming ? (
        <>
          <button type="button" className="link-button danger" data-testid="pipeline-delete-confirm" onClick={() => void remove()}>
            delete with its versions and runs
          </button>{' '}
          <button type="button" className="link-button" onClick={() => setConfirming(false)}>
            keep
          </button>
        </>
      ) : (
        <button type="button" className="link-button" data-testid="pipeline-delete" onClick={() => setConfirming(true)}>
          delete…
        </button>
      )}
      {error && <span className="error-text"> {error}</span>}
    </>
  );
}

/** Every pipeline the user may see, newest change first. */
export function PipelinesPage() {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let cancelled = false;
    api.listPipelines().then(
      (answer) => {
        const sorted = [...rowsOf<PipelineSummary>(answer)].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
        if (!cancelled) setLoad({ state: 'ready', pipelines: sorted });
      },
      (error: unknown) => {
        if (!cancelled) setLoad({ state: 'failed', message: messageOf(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [generation]);

  const showOwner = load.state === 'ready' && load.pipelines.some((pipeline) => pipeline.owner || pipeline.team_name);
  return (
    <main className="list-page">
      <div className="list-page__heading">
        <h1>Pipelines</h1>
        <Link to={paths.newPipeline()} className="button button--primary" beforeNavigate={() => useEditorStore.getState().newPipeline()}>
          New pipeline
        </Link>
      </div>
      {load.state === 'loading' && <p className="muted">Loading…</p>}
      {load.state === 'failed' && <p className="error-text">Could not load pipelines: {load.message}</p>}
      {load.state === 'ready' && load.pipelines.length === 0 && <p className="muted">No pipeline saved yet.</p>}
      {load.state === 'ready' && load.pipelines.length > 0 && (
        <table className="data-table pipelines-table">
          <thead>
            <tr>
              <th>Name</th>
              <th className="numeric">Version</th>
              <th>Latest run</th>
              {showOwner && <th>Owner</th>}
              <th>Updated</th>
              <th />
              <th />
            </tr>
          </thead>
          <tbody>
            {load.pipelines.map((pipeline) => (
              <tr key={pipeline.id} data-testid="pipeline-row">
                <td>
                  <Link to={paths.pipeline(pipeline.id)}>{pipeline.name}</Link>
                </td>
                <td className="numeric">v{pipeline.version}</td>
                <td data-testid="pipeline-latest-run">
                  {pipeline.latest_run ? (
                    <Link to={paths.run(pipeline.latest_run.id)} title={`run #${pipeline.latest_run.id}`}>
                      <StatusBadge tone={runStatusTone(pipeline.latest_run.status)}>{pipeline.latest_run.status}</StatusBadge>
                    </Link>
                  ) : (
                    <span className="muted">never run</span>
                  )}
                </td>
                {showOwner && <td data-testid="pipeline-owner">{pipeline.team_name ? `team ${pipeline.team_name}` : (pipeline.owner ?? '–')}</td>}
                <td>{new Date(pipeline.updated_at).toLocaleString()}</td>
                <td className="pipeline-asides">
                  <Link to={paths.pipelineAccess(pipeline.id)} data-testid="pipeline-access">access</Link> ·{' '}
                  <Link to={paths.pipelineFile(pipeline.id)} data-testid="pipeline-file">file</Link> ·{' '}
                  <Link to={paths.pipelineGit(pipeline.id)} data-testid="pipeline-git">Git</Link>
                </td>
                <td>
                  <DeleteButton pipeline={pipeline} onDeleted={() => setGeneration((value) => value + 1)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
