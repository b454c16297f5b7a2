/**
 * Which environment the run runs in (its parameters, ${param:name}, came from there), beside its status: a
 * chip that opens the environments page, and on click the parameters it was started with (a secret stays
 * its ${secret:name}: no value of one ever reaches the browser). Nothing for a run in no environment.
 */
import { useState } from 'react';
import { request } from '../api/client';
import { parameterText, type ParameterValue } from '../api/environments';
import type { components } from '../api/schema.gen';
import type { Run } from '../api/types';
import { paths } from '../router';
import { Link } from '../ui/Link';

type RunEnvironmentAnswer = components['schemas']['RunEnvironment'];

export function RunEnvironment({ run }: { run: Run }) {
  const [parameters, setParameters] = useState<Record<string, ParameterValue> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  if (!run.environment) return null;

  async function toggle() {
    setOpen((was) => !was);
    if (parameters !== null) return;
    try {
      setParameters((await request<RunEnvironmentAnswer>('GET', `/api/runs/${run.id}/environment`)).parameters as Record<string, ParameterValue>);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }

  return (
    <span className="run-environment" data-testid="run-environment" data-environment={run.environment}>
      <span className="run-environment__label">environment</span>
      <Link to={paths.environments()} className="run-environment__name" title={`Run #${run.id} runs in ${run.environment}: open the environments`}>
        {run.environment}
      </Link>
      <button type="button" className="button button--quiet run-environment__toggle" data-testid="run-environment-parameters-toggle" aria-expanded={open} onClick={() => void toggle()}>
        {open ? 'hide parameters' : 'parameters'}
      </button>
      {open && (
        <span className="run-environment__parameters" role="status" data-testid="run-environment-parameters">
          {error && <span className="error-text">{error}</span>}
          {!error && parameters === null && 'loading…'}
          {parameters !== null && Object.keys(parameters).length === 0 && 'none'}
          {parameters !== null &&
            Object.entries(parameters)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, value]) => (
                <code key={name} data-testid="run-environment-parameter" data-name={name}>
                  {name} = {parameterText(value)}
                </code>
              ))}
        </span>
      )}
    </span>
  );
}
