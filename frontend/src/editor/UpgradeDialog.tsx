import { useEffect, useState } from 'react';
import { api, rowsOf } from '../api/client';
import type { RunSummary, StateCompatibility, VersionSummary } from '../api/types';
import { navigate, paths } from '../router';
import { ShadowFirstButton } from '../shadows/ShadowFirstButton';
import { upgradeWithState } from './upgradeWithState';
import { TestsFirst } from './TestsFirst';
import { Dialog } from '../ui/Dialog';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function Nodes({ label, ids, testId }: { label: string; ids: string[]; testId: string }) {
  if (ids.length === 0) return null;
  return (
    <li data-testid={testId}>
      {label}: {ids.map((id) => <code key={id}>{id} </code>)}
    </li>
  );
}

/** "a", "a and b", "a, b and c". */
function listOf(ids: string[]): string {
  return ids.length < 2 ? ids.join('') : `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`;
}

/**
 * What the state check means for this deploy, in words. The server's message names the REST
 * flag (allow_non_restored_state) an API user sets; a person needs the consequence.
 */
export function stateVerdict(check: StateCompatibility): string {
  const one = (ids: string[], single: string, many: string) => (ids.length === 1 ? single : many);
  if (check.changed_type.length > 0) {
    const ids = check.changed_type;
    return `${listOf(ids)} changed operator type: ${one(ids, 'its', 'their')} state cannot be restored. Keep the type, or give the node a new id so that it starts empty.`;
  }
  if (check.dropped.length > 0) {
    const ids = check.dropped;
    return `${listOf(ids)} ${one(ids, 'is', 'are')} not in v${check.to}: ${one(ids, 'its', 'their')} state would be dropped.`;
  }
  return 'Every stateful operator of the running version keeps its state.';
}

/** Whose values the deployed run gets: the editor's environment, or (none chosen) the running run's; said when it changes. */
function DeployEnvironment({ run, chosen, running }: { run: RunSummary; chosen: string | null; running: string | null | undefined }) {
  const target = chosen ?? running ?? null;
  const moves = chosen !== null && running !== undefined && running !== chosen;
  return (
    <p className={moves ? 'warning-text' : 'muted'} data-testid="upgrade-environment" data-environment={target ?? ''}>
      {target ? (
        <>
          The new run gets environment <strong>{target}</strong>'s values
          {chosen === null ? `, as run #${run.id} does.` : moves ? ` (chosen in the editor); run #${run.id} runs ${running ? `in ${running}` : 'in no environment'}.` : '.'}
        </>
      ) : running === undefined ? (
        'Looking up the running run’s environment…'
      ) : (
        `The new run gets no environment, as run #${run.id}: the definition as written.`
      )}
    </p>
  );
}

/**
 * Deploy a version onto the pipeline's running run with its state: the state-compatibility
 * check first, then stop with savepoint and restore into the chosen version. Choosing an older
 * version rolls back the same way.
 */
export function UpgradeDialog({ pipelineId, latestVersion, environment = null, onClose }: {
  pipelineId: number;
  latestVersion: number;
  /** The editor's environment: whose values the new run gets (null: the running run's). */
  environment?: string | null;
  onClose: () => void;
}) {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [versions, setVersions] = useState<VersionSummary[]>([]);
  const [version, setVersion] = useState(latestVersion);
  const [check, setCheck] = useState<StateCompatibility | null>(null);
  const [allowDropping, setAllowDropping] = useState(false);
  const [step, setStep] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The running run's environment: undefined until known. */
  const [runEnvironment, setRunEnvironment] = useState<string | null | undefined>(undefined);
  const run = runs?.[0] ?? null;

  useEffect(() => {
    api.searchRuns({ pipeline: pipelineId, status: 'RUNNING' }).then((answer) => setRuns(rowsOf<RunSummary>(answer)), (failure: unknown) => setError(messageOf(failure)));
    api.listVersions(pipelineId).then(setVersions, () => setVersions([]));
  }, [pipelineId]);
  useEffect(() => {
    if (!run) return;
    api.getRun(run.id).then((detail) => setRunEnvironment(detail.environment ?? null), () => setRunEnvironment(undefined));
  }, [run]);
  useEffect(() => {
    if (!run) return;
    setCheck(null);
    api.stateCompatibility(run.id, version).then(setCheck, (failure: unknown) => setError(messageOf(failure)));
  }, [run, version]);

  async function upgrade() {
    if (!run) return;
    setError(null);
    try {
      const started = await upgradeWithState(run, version, allowDropping, setStep, environment);
      navigate(paths.run(started.id));
    } catch (failure) {
      setError(messageOf(failure));
      setStep(null);
    }
  }

  const ready = run !== null && check !== null && check.compatible && (!check.needs_allow_non_restored_state || allowDropping) && step === null;
  return (
    <Dialog label="Upgrade with state" testId="upgrade-dialog" onClose={onClose}>
      <h2>Deploy with state</h2>
      {runs === null && !error && <p className="muted">Looking for the running run…</p>}
      {runs !== null && !run && <p className="muted" data-testid="upgrade-no-run">No run of this pipeline is RUNNING: Run starts one.</p>}
      {run && (
        <>
          <p>
            Stop run <strong>#{run.id}</strong> (v{run.version}) with a savepoint and restore its state into
          </p>
          <label className="form-field">
            <span className="form-field__label">Version</span>
            <select className="input" data-testid="upgrade-version" value={version} onChange={(event) => setVersion(Number(event.target.value))}>
              {(versions.length ? versions.map((entry) => entry.number) : [latestVersion]).map((number) => (
                <option key={number} value={number}>
                  v{number}
                  {number === run.version ? ' (running)' : number < run.version ? ' (rollback)' : ''}
                </option>
              ))}
            </select>
          </label>
          {check === null ? (
            <p className="muted">Checking the state…</p>
          ) : (
            <div className={check.compatible ? 'state-check' : 'state-check error-text'} data-testid="state-check" data-compatible={String(check.compatible)}>
              <p data-testid="state-check-message">{stateVerdict(check)}</p>
              <ul>
                <Nodes label="keep their state" ids={check.kept} testId="state-kept" />
                <Nodes label="start empty" ids={check.added} testId="state-added" />
                <Nodes label="lose their state" ids={check.dropped} testId="state-dropped" />
                <Nodes label="changed type (refused)" ids={check.changed_type} testId="state-changed" />
              </ul>
              {check.needs_allow_non_restored_state && (
                <label className="checkbox-label">
                  <input type="checkbox" data-testid="upgrade-allow-dropping" checked={allowDropping} onChange={(event) => setAllowDropping(event.target.checked)} />
                  Deploy anyway, without the state of {listOf(check.dropped)}
                </label>
              )}
            </div>
          )}
        </>
      )}
      {run && <DeployEnvironment run={run} chosen={environment} running={runEnvironment} />}
      {run && <TestsFirst pipelineId={pipelineId} version={version} environment={environment ?? runEnvironment ?? null} />}
      {step && (
        <p className="muted" data-testid="upgrade-step" role="status">
          <span className="spinner" aria-hidden="true" /> {step}
        </p>
      )}
      {error && <p className="error-text">{error}</p>}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
        <ShadowFirstButton run={run} version={version} disabled={!ready} onError={setError} />
        <button type="button" className="button button--primary" data-testid="upgrade-confirm" disabled={!ready} onClick={() => void upgrade()}>
          {run && version < run.version ? 'Roll back with state' : 'Upgrade with state'}
        </button>
      </div>
    </Dialog>
  );
}
