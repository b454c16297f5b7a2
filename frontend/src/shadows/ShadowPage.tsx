/**
 * A shadow run: the candidate version beside production from one snapshot, in a sandbox, and
 * the diff per sink (GET /api/runs/{id}/shadows/{shadow_id}); promote deploys the candidate with
 * production's state (stop with a savepoint, start from it), discard deletes the shadow's outputs.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { shadowApi, type Shadow, type SinkDiff } from '../api/stateAndShadows';
import type { RunSummary } from '../api/types';
import type { Tone } from '../state/run/runStatus';
import { upgradeWithState } from '../editor/upgradeWithState';
import { navigate, paths } from '../router';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';

const POLL_MS = 1000;
const ENDED = ['COMPLETED', 'FAILED', 'DISCARDED', 'PROMOTED'];
const ENDED_BY: Record<string, string> = {
  input_end: 'its input ended',
  time_budget: 'its time budget was spent',
  output_cap: 'its output reached the cap',
};

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function tone(status: string): Tone {
  if (status === 'COMPLETED' || status === 'PROMOTED') return 'success';
  if (status === 'FAILED') return 'danger';
  if (status === 'DISCARDED') return 'neutral';
  return 'active';
}

export function ShadowPage({ runId, shadowId }: { runId: number; shadowId: number }) {
  const [shadow, setShadow] = useState<Shadow | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [step, setStep] = useState<string | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current = true;
    const load = () =>
      shadowApi.get(runId, shadowId).then(
        (answer) => {
          if (!current) return;
          setShadow(answer);
          if (!ENDED.includes(answer.status)) timer = setTimeout(load, POLL_MS);
        },
        (failure) => current && setError(message(failure)),
      );
    void load();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [runId, shadowId]);

  async function promote() {
    if (!shadow) return;
    setError(null);
    try {
      const production = (await api.getRun(runId)) as unknown as RunSummary;
      const started = await upgradeWithState(production, shadow.candidate_version, false, setStep);
      await shadowApi.promote(runId, shadowId, started.id);
      navigate(paths.run(started.id));
    } catch (failure) {
      setError(message(failure));
      setStep(null);
    }
  }

  async function discard() {
    setError(null);
    try {
      setShadow(await shadowApi.discard(runId, shadowId));
    } catch (failure) {
      setError(message(failure));
    }
  }

  return (
    <main className="list-page shadow-page" data-testid="shadow-page">
      <div className="list-page__heading">
        <h1>Shadow run #{shadowId}</h1>
        <Link to={paths.run(runId)}>Production run #{runId}</Link>
      </div>
      {error && <p className="error-text" role="alert" data-testid="shadow-error">{error}</p>}
      {shadow && (
        <>
          <p data-testid="shadow-summary">
            <StatusBadge tone={tone(shadow.status)} data-testid="shadow-status">
              {shadow.status}
            </StatusBadge>{' '}
            v{shadow.candidate_version} beside production's v{shadow.production_version}
            {shadow.checkpoint_id != null && (
              <>
                , both from{' '}
                <Link to={paths.state(runId, shadow.checkpoint_id)} data-testid="shadow-snapshot">
                  {shadow.snapshot === 'take' ? 'savepoint' : 'checkpoint'} #{shadow.checkpoint_id}
                </Link>
              </>
            )}
            {shadow.ended_by && <span className="muted"> · ended because {ENDED_BY[shadow.ended_by] ?? shadow.ended_by}</span>}
            <span className="muted">
              {' '}· caps: {shadow.max_seconds} s, {shadow.max_slots} slots, {Math.round(shadow.max_output_bytes / 2 ** 20)} MiB of output
            </span>
          </p>
          {shadow.shared.length > 0 && (
            <p className="muted">
              Run once for both (alike in both versions): {shadow.shared.map((node) => <code key={node}>{node} </code>)}
            </p>
          )}
          {shadow.failure && <p className="error-text" data-testid="shadow-failure">{shadow.failure}</p>}
          {!ENDED.includes(shadow.status) && (
            <p className="muted" role="status">
              <span className="spinner" aria-hidden="true" /> {shadow.status === 'SNAPSHOTTING' ? 'Production takes a savepoint…' : shadow.status === 'RUNNING' ? 'Both versions run in the sandbox…' : 'Starting…'}
            </p>
          )}
          {(shadow.diff ?? []).map((sink) => <SinkDiffView key={sink.node} sink={sink} />)}
          {step && (
            <p className="muted" role="status" data-testid="shadow-step">
              <span className="spinner" aria-hidden="true" /> {step}
            </p>
          )}
          <div className="dialog-actions">
            <button type="button" className="button" data-testid="shadow-discard" disabled={shadow.status === 'DISCARDED'} onClick={() => void discard()}>
              Discard
            </button>
            <button type="button" className="button button--primary" data-testid="shadow-promote" disabled={shadow.status !== 'COMPLETED' || step !== null}
                    title="Stop production with a savepoint and start the candidate from it" onClick={() => void promote()}>
              Promote v{shadow.candidate_version} with state
            </button>
          </div>
        </>
      )}
    </main>
  );
}

function SinkDiffView({ sink }: { sink: SinkDiff }) {
  const counts = sink.counts;
  return (
    <section className="panel shadow-sink" data-testid="shadow-sink" data-node={sink.node}>
      <div className="panel-heading">
        Sink <code>{sink.node}</code> <span className="muted">{sink.type}</span>
        {sink.keyed ? <span className="muted">compared by {sink.key}</span> : <span className="muted">compared as rows</span>}
      </div>
      <table className="data-table shadow-counts" data-testid="shadow-counts">
        <thead>
          <tr>
            <th className="numeric">Production</th>
            <th className="numeric">Shadow</th>
            <th className="numeric">Only in production</th>
            <th className="numeric">Only in shadow</th>
            <th className="numeric">Changed</th>
            <th className="numeric">Same</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td className="numeric" data-testid="count-production">{counts.production}</td>
            <td className="numeric" data-testid="count-candidate">{counts.candidate}</td>
            <td className="numeric" data-testid="count-only-production">{counts.only_production}</td>
            <td className="numeric" data-testid="count-only-candidate">{counts.only_candidate}</td>
            <td className="numeric" data-testid="count-changed">{counts.changed}</td>
            <td className="numeric" data-testid="count-same">{counts.same}</td>
          </tr>
        </tbody>
      </table>
      <div className="shadow-samples">
        <Samples title="Only in production" testId="samples-only-production" rows={sink.samples.only_production} />
        <Samples title="Only in shadow" testId="samples-only-candidate" rows={sink.samples.only_candidate} />
        {sink.keyed && <Samples title="Changed (production → shadow)" testId="samples-changed" rows={sink.samples.changed} />}
      </div>
    </section>
  );
}

function Samples({ title, testId, rows }: { title: string; testId: string; rows: unknown[] }) {
  return (
    <div className="shadow-sample-list" data-testid={testId}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul>
          {rows.map((row, index) => (
            <li key={index} data-testid="sample">
              <code>{JSON.stringify(row)}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
