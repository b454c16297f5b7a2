import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { Problem } from '../api/types';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEnvironmentChoice, valuesText } from '../state/editor/environmentChoice';
import { problemLocation, problemsOfLiveElements } from '../state/editor/problems';

const selectProblemsPanel = (state: EditorState) => ({
  problems: state.problems.all,
  warnings: state.warnings,
  nodes: state.nodes,
  edges: state.edges,
  stale: state.validatedRevision !== state.revision,
  select: state.select,
  notice: state.notice,
  dismissNotice: state.dismissNotice,
});

/** The bottom panel: every validation problem; clicking one selects what it is about. */
export function ProblemsPanel() {
  const { problems: all, warnings: allWarnings, nodes, edges, stale, select, notice, dismissNotice } = useEditorStore(
    useShallow(selectProblemsPanel),
  );
  const environment = useEnvironmentChoice((state) => state.selected);
  const [problems, warnings] = useMemo(() => {
    const nodeIds = new Set(nodes.map((node) => node.id));
    const edgeIds = new Set(edges.map((edge) => edge.id));
    return [problemsOfLiveElements(all, nodeIds, edgeIds), problemsOfLiveElements(allWarnings, nodeIds, edgeIds)];
  }, [all, allWarnings, nodes, edges]);

  function reveal(problem: Problem) {
    if (problem.node) select({ node: problem.node });
    else if (problem.edge) select({ edge: problem.edge });
  }

  return (
    <section className={stale ? 'problems is-stale' : 'problems'} data-testid="problems" aria-label="Problems">
      <div className="panel-heading">
        Problems <span className="count-pill">{problems.length}</span>
        {environment && (
          <span className="muted values-note" data-testid="problems-environment">
            checked {valuesText(environment)}
          </span>
        )}
        {notice && (
          <span className="notice" role="status">
            {notice}
            <button type="button" className="link-button" onClick={dismissNotice} aria-label="Dismiss">
              ×
            </button>
          </span>
        )}
      </div>
      {warnings.length > 0 && (
        <ul className="problem-list" aria-label="Warnings">
          {warnings.map((warning, index) => (
            <li key={index} data-testid="warning" className="problem is-warning">
              <button type="button" className="problem-button" onClick={() => reveal(warning)}>
                <span className="problem-location">{problemLocation(warning)}</span>
                <span className="problem-message">{warning.message}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {problems.length === 0 ? (
        <p className="muted problems-empty">{warnings.length === 0 ? 'No problems.' : 'No problems; the run may fail for the warnings above.'}</p>
      ) : (
        <ul className="problem-list">
          {problems.map((problem, index) => (
            <li key={index} data-testid="problem" className="problem">
              <button type="button" className="problem-button" onClick={() => reveal(problem)}>
                <span className="problem-location">{problemLocation(problem)}</span>
                <span className="problem-message">{problem.message}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
