import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { api, ApiError } from '../api/client';
import type { Problem } from '../api/types';
import { currentDefinition, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore, type EditorViewState } from '../state/editor/editorViewStore';
import { chosenEnvironment, useEnvironmentChoice, valuesText } from '../state/editor/environmentChoice';
import { problemLocation } from '../state/editor/problems';
import { formatRecord } from '../state/shared/format';
import { clampedWhole } from '../state/shared/numberInput';
import { classNames } from '../ui/classNames';

const selectPreview = (state: EditorViewState) => ({
  status: state.previewStatus,
  preview: state.preview,
  error: state.previewError,
  problems: state.previewProblems,
  previewRevision: state.previewRevision,
  asked: state.previewEnvironment,
});
const selectEditor = (state: EditorState) => ({
  revision: state.revision,
  nodes: state.nodes,
  selectedId: state.nodes.find((node) => node.selected)?.id ?? null,
  problemCount: state.problems.all.length,
});
const SHOWN = 50;
/** The server's largest preview (studio/api/serializers/definitions.py). */
const PREVIEW_LIMIT_MAX = 1000;

async function runPreview(limit: number) {
  const state = useEditorStore.getState();
  const revision = state.revision;
  const environment = chosenEnvironment();
  useEditorViewStore.getState().previewStarted(environment);
  try {
    const result = await api.preview(currentDefinition(state), limit, state.pipelineId, environment);
    useEditorViewStore.getState().previewFinished(revision, result);
  } catch (error) {
    const problems = error instanceof ApiError ? error.problems : [];
    useEditorViewStore.getState().previewFailed(revision, error instanceof Error ? error.message : String(error), problems);
  }
}

/** Why the studio refused to run the preview, each problem where it is (a parameter the environment lacks, say). */
function Refusal({ asked, error, problems }: { asked: string | null; error: string | null; problems: Problem[] }) {
  if (problems.length === 0) return <p className="error-text">{error}</p>;
  return (
    <div className="error-text preview-refusal" role="alert" data-testid="preview-refusal">
      <p>The preview did not run {valuesText(asked)}:</p>
      <ul>
        {problems.map((problem, index) => (
          <li key={index} data-testid="preview-problem">
            <span className="problem-location">{problemLocation(problem)}</span> {problem.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The first line of a failure, the rest (a traceback) folded away. */
function FailureText({ text }: { text: string }) {
  const [first, ...rest] = text.split('\n');
  return (
    <div className="error-text preview-failure" data-testid="preview-failure">
      {first}
      {rest.length > 0 && (
        <details>
          <summary>details</summary>
          <pre>{rest.join('\n')}</pre>
        </details>
      )}
    </div>
  );
}

/** Run the pipeline on a small bounded sample and show what comes out of each node. */
export function PreviewPanel() {
  const { status, preview, error, problems, previewRevision, asked } = useEditorViewStore(useShallow(selectPreview));
  const chosen = useEnvironmentChoice((state) => state.selected);
  const { revision, nodes, selectedId, problemCount } = useEditorStore(useShallow(selectEditor));
  const [limit, setLimit] = useState(100);
  const ordered = [...nodes].sort((a, b) => (a.id === selectedId ? -1 : b.id === selectedId ? 1 : a.position.x - b.position.x));
  return (
    <div className="inspector-body preview-panel" data-testid="preview-panel">
      <p className="muted">
        Runs the pipeline in batch mode on a bounded sample (unbounded sources stop after the limit) and shows the records
        leaving every node: a running aggregate shows each key&apos;s final value once, as batch mode emits it, not every
        update. Nothing is saved.
      </p>
      <p className="muted" data-testid="preview-will-use">
        Runs {valuesText(chosen)} (the header's Environment).
      </p>
      <div className="preview-controls">
        <label className="toolbar-field">
          <span>Limit</span>
          <input
            className="input input--narrow"
            type="number"
            min={1}
            max={PREVIEW_LIMIT_MAX}
            value={limit}
            onChange={(event) => setLimit(clampedWhole(event.target.value, 1, PREVIEW_LIMIT_MAX))}
          />
        </label>
        <button
          type="button"
          data-testid="preview-run"
          className="button button--primary"
          disabled={status === 'loading' || nodes.length === 0}
          title={problemCount > 0 ? 'The pipeline has problems; the preview will report them' : undefined}
          onClick={() => void runPreview(limit)}
        >
          {status === 'loading' ? 'Running…' : 'Run preview'}
        </button>
      </div>
      {status === 'failed' && <Refusal asked={asked} error={error} problems={problems} />}
      {preview && (
        <>
          <p className={classNames('muted', (previewRevision !== revision || (preview.environment ?? null) !== chosen) && 'is-stale')} data-testid="preview-status">
            {preview.status}{' '}
            <span data-testid="preview-environment" data-environment={preview.environment ?? ''}>
              {valuesText(preview.environment)}
            </span>
            {previewRevision !== revision && ' · the pipeline changed since'}
            {(preview.environment ?? null) !== chosen && ' · another environment is chosen now'}
          </p>
          {preview.failure && <FailureText text={preview.failure} />}
          {ordered.map((node) => {
            const output = preview.nodes?.[node.id];
            if (!output) return null;
            return (
              <section key={node.id} className={classNames('preview-node', node.id === selectedId && 'is-selected')} data-testid={`preview-node-${node.id}`}>
                <div className="preview-node__heading">
                  <code>{node.id}</code>
                  <span className="count-pill">{output.count}</span>
                </div>
                <ol className="record-list">
                  {output.records.slice(0, SHOWN).map((record, index) => (
                    <li key={index} data-testid="preview-record">
                      {formatRecord(record)}
                    </li>
                  ))}
                </ol>
              </section>
            );
          })}
        </>
      )}
    </div>
  );
}
