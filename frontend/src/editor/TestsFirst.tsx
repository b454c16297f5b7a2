import { useEffect, useState } from 'react';
import { api, withEnvironment } from '../api/client';
import type { SuiteRun } from '../api/operations';
import { valuesText } from '../state/editor/environmentChoice';
import { classNames } from '../ui/classNames';

/** In the Deploy-with-state dialog: run the chosen version's test cases before deploying it. */
export function TestsFirst({ pipelineId, version, environment = null }: { pipelineId: number; version: number; environment?: string | null }) {
  const [state, setState] = useState<{ status: 'idle' | 'running' | 'done' | 'failed'; run?: SuiteRun; message?: string }>({ status: 'idle' });
  useEffect(() => setState({ status: 'idle' }), [version, environment]);

  async function runTests() {
    setState({ status: 'running' });
    try {
      const run = await api.runTestCases(pipelineId, withEnvironment({ version }, environment));
      setState({ status: 'done', run });
    } catch (error) {
      setState({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
    }
  }

  const run = state.run;
  return (
    <div className="tests-first" data-testid="tests-first">
      <button type="button" className="button" data-testid="tests-first-run" disabled={state.status === 'running'} onClick={() => void runTests()}>
        {state.status === 'running' ? `Running v${version}'s test cases…` : `Run v${version}'s test cases first`}
      </button>
      {run && (
        <span className={classNames('status-pill', `status-${run.status}`)} data-testid="tests-first-verdict" data-status={run.status}>
          {run.counts.passed ?? 0} passed, {run.counts.failed ?? 0} failed, {run.counts.error ?? 0} errors
        </span>
      )}
      {run && (
        <span className="muted values-note" data-testid="tests-first-environment" data-environment={run.environment ?? ''}>
          {' '}
          {valuesText(run.environment)}
        </span>
      )}
      {run && run.status !== 'passed' && <p className="error-text">Some test cases of v{version} do not pass: deploying it anyway is your call.</p>}
      {state.message && <p className="muted">{state.message}</p>}
    </div>
  );
}
