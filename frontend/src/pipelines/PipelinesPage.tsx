import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { PipelineSummary } from '../api/types';
import { paths } from '../router';
import { useEditorStore } from '../state/editorStore';
import { Link } from '../ui/Link';

type Load = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; pipelines: PipelineSummary[] };

/** Every saved pipeline, newest change first. */
export function PipelinesPage() {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  useEffect(() => {
    let cancelled = false;
    api.listPipelines().then(
      (pipelines) => {
        const sorted = [...pipelines].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
        if (!cancelled) setLoad({ state: 'ready', pipelines: sorted });
      },
      (error: unknown) => {
        if (!cancelled) setLoad({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, []);

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
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {load.pipelines.map((pipeline) => (
              <tr key={pipeline.id} data-testid="pipeline-row">
                <td>
                  <Link to={paths.pipeline(pipeline.id)}>{pipeline.name}</Link>
                </td>
                <td className="numeric">v{pipeline.version}</td>
                <td>{new Date(pipeline.updated_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
