import { useShallow } from 'zustand/react/shallow';
import { canRun, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore, type EditorViewState } from '../state/editor/editorViewStore';
import { chainLabel } from '../state/shared/chains';
import { foldedSchedule, REGION_COLOURS, regionLabel, scheduleSteps } from '../state/shared/planOverlay';

const selectPlanPanel = (state: EditorViewState) => ({
  enabled: state.planEnabled,
  status: state.planStatus,
  plan: state.plan,
  error: state.planError,
  planRevision: state.planRevision,
  setPlanEnabled: state.setPlanEnabled,
});
const selectEditor = (state: EditorState) => ({ valid: canRun(state), revision: state.revision, select: state.select });

/** The plan before running: pipelined regions (colours on the canvas) in the order they are scheduled. */
export function PlanPanel() {
  const { enabled, status, plan, error, planRevision, setPlanEnabled } = useEditorViewStore(useShallow(selectPlanPanel));
  const { valid, revision } = useEditorStore(useShallow(selectEditor));
  if (!enabled) {
    return (
      <div className="inspector-body">
        <p>
          The plan shows how the pipeline will run: operators chained into tasks, tasks grouped into pipelined regions
          (each one Spark barrier stage), and the order the regions are scheduled in.
        </p>
        <button type="button" className="button button--primary" data-testid="plan-show" onClick={() => setPlanEnabled(true)}>
          Show the plan on the canvas
        </button>
      </div>
    );
  }
  const stale = planRevision !== revision;
  const steps = plan ? foldedSchedule(scheduleSteps(plan)) : [];
  return (
    <div className="inspector-body plan-panel" data-testid="plan-panel">
      {!valid && <p className="muted">Fix the problems first: only a valid pipeline has a plan.</p>}
      {status === 'loading' && <p className="muted">Planning…</p>}
      {status === 'failed' && <p className="error-text">Could not plan: {error}</p>}
      {plan && (
        <>
          <p className={stale ? 'muted is-stale' : 'muted'}>
            {plan.counts?.job_vertices ?? plan.job_vertices.length} tasks (chains) in {plan.regions.length} pipelined region
            {plan.regions.length === 1 ? '' : 's'}
            {plan.counts?.execution_vertices !== undefined && `, ${plan.counts.execution_vertices} subtasks`}.
          </p>
          <div className="inspector-section">Schedule order</div>
          <ol className="schedule-list">
            {steps.map((step) => (
              <li key={step.region} data-testid="plan-step" data-region={step.region}>
                <span className="schedule-swatch" style={{ background: REGION_COLOURS[step.colour] }} />
                <div>
                  <strong>{regionLabel(step.regions)}</strong>{' '}
                  <span className="muted">
                    {step.size} slot{step.size === 1 ? '' : 's'}
                    {step.dependsOn.length > 0 && ` · after ${regionLabel(step.dependsOn)}`}
                  </span>
                  <div className="schedule-nodes">{step.nodes.join(', ')}</div>
                </div>
              </li>
            ))}
          </ol>
          <div className="inspector-section">Chains</div>
          <ul className="chain-list">
            {plan.job_vertices.map((vertex) => (
              <li key={vertex.id}>
                <code data-testid="plan-chain">{chainLabel(vertex)}</code> <span className="muted">×{vertex.parallelism}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <button type="button" className="link-button" onClick={() => setPlanEnabled(false)}>
        Hide the plan
      </button>
    </div>
  );
}
