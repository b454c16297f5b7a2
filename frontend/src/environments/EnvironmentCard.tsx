import { memo, useEffect, useState } from 'react';
import { environments, parameterText, parseParameterValue, type Environment, type EnvironmentRun } from '../api/environments';
import { paths } from '../router';
import { Link } from '../ui/Link';
import { messageOf } from './messages';

interface Row {
  name: string;
  value: string;
}

function rowsOf(environment: Environment): Row[] {
  return Object.entries(environment.parameters ?? {}).map(([name, value]) => ({ name, value: parameterText(value) }));
}

/** One environment: its parameters (editable by its owner, or a team's by the team's admins), who approves promotions
 * into it, what runs in it. */
function EnvironmentCard({ environment, onChanged }: { environment: Environment; onChanged: () => void }) {
  const [rows, setRows] = useState<Row[]>(() => rowsOf(environment));
  const [runs, setRuns] = useState<EnvironmentRun[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => setRows(rowsOf(environment)), [environment]);
  useEffect(() => {
    environments.runs(environment.id).then(setRuns, () => setRuns([]));
  }, [environment.id, environment.updated_at]);

  function change(index: number, patch: Partial<Row>) {
    setSaved(false);
    setRows((current) => current.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  }

  async function save() {
    setError(null);
    const parameters = Object.fromEntries(rows.filter((row) => row.name.trim()).map((row) => [row.name.trim(), parseParameterValue(row.value)]));
    try {
      await environments.update(environment.id, { name: environment.name, parameters });
      setSaved(true);
      onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <section className="environment-card" data-testid="environment-card" data-name={environment.name}>
      <header className="environment-card__head">
        <h3>{environment.name}</h3>
        <span className="muted">#{environment.position}</span>
        {environment.requires_approval ? (
          <span className="badge badge--warning" data-testid="environment-approval" data-role={environment.approval_role} title="A promotion into it waits for a user holding this team role (or a stronger one) on the pipeline, never the user who asked">
            approval by {withArticle(environment.approval_role ?? 'operator')} of the pipeline
          </span>
        ) : (
          <span className="badge">no approval</span>
        )}
        {environment.team_name ? (
          <span className="badge" data-testid="environment-team" title="Used with the team's pipelines by its editors, operators and admins; changed by its admins">
            team {environment.team_name}
          </span>
        ) : (
          !environment.mine && <span className="muted">owned by {environment.owner}</span>
        )}
      </header>
      {environment.description && <p className="muted">{environment.description}</p>}
      <table className="data-table parameters-table">
        <thead>
          <tr>
            <th>Parameter</th>
            <th>Value</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index} data-testid="parameter-row">
              <td>
                <input className="input is-code" aria-label="parameter name" data-testid="parameter-name" value={row.name} disabled={!environment.can_change} onChange={(event) => change(index, { name: event.target.value })} />
              </td>
              <td>
                <input className="input is-code" aria-label="parameter value" data-testid="parameter-value" value={row.value} disabled={!environment.can_change} onChange={(event) => change(index, { value: event.target.value })} />
              </td>
              <td>
                {environment.can_change && (
                  <button type="button" className="link-button danger" onClick={() => setRows((current) => current.filter((_, at) => at !== index))}>
                    remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {environment.can_change && (
        <div className="connection-form__actions">
          <button type="button" className="button" data-testid="parameter-add" onClick={() => setRows((current) => [...current, { name: '', value: '' }])}>
            Add parameter
          </button>
          <button type="button" className="button button--primary" data-testid="parameters-save" onClick={() => void save()}>
            Save parameters
          </button>
          {saved && <span className="muted" role="status">saved</span>}
          <button type="button" className="link-button danger" onClick={() => void environments.remove(environment.id).then(onChanged, (failure: unknown) => setError(messageOf(failure)))}>
            delete environment
          </button>
        </div>
      )}
      {error && <p className="error-text">{error}</p>}
      {runs.length > 0 && (
        <div className="environment-card__runs" data-testid="environment-runs">
          <span className="muted">Runs here: </span>
          {runs.slice(0, 5).map((run) => (
            <Link key={run.run} to={paths.run(run.run)}>
              {run.pipeline_name} v{run.version} · run {run.run} ({run.status})
            </Link>
          ))}
        </div>
      )}
    </section>
  );
}

export default memo(EnvironmentCard);

function withArticle(role: string): string {
  return `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;
}
