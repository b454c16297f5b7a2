import { memo, useEffect, useState } from 'react';
import { api } from '../api/client';
import { environments, parameterText, type Environment, type Promotion, type PromotionDiff } from '../api/environments';
import type { PipelineSummary } from '../api/types';
import { navigate, paths } from '../router';
import { readNumber } from '../state/shared/numberInput';
import { messageOf } from './messages';

interface Counted {
  added?: unknown[];
  removed?: unknown[];
  changed?: unknown[];
}

/** How many nodes, edges and settings a promotion changes, in words. */
function definitionSummary(diff: PromotionDiff): string {
  const parts = diff.definition as Record<string, Counted> | null;
  if (!parts) return 'no change';
  const count = (part?: Counted) => (part?.added?.length ?? 0) + (part?.removed?.length ?? 0) + (part?.changed?.length ?? 0);
  const words = [
    [count(parts.nodes), 'node'],
    [count(parts.edges), 'edge'],
    [count(parts.settings), 'setting'],
  ]
    .filter(([n]) => Number(n) > 0)
    .map(([n, what]) => `${n} ${what}${n === 1 ? '' : 's'}`);
  return words.length ? `${words.join(', ')} changed` : 'no logic change';
}

function DiffView({ diff }: { diff: PromotionDiff }) {
  return (
    <div className="promotion-diff" data-testid="promotion-diff">
      <p>
        Definition: v{diff.from_version ?? '—'} → v{diff.to_version}: {definitionSummary(diff)}
      </p>
      {diff.parameters.length > 0 && (
        <table className="data-table">
          <thead>
            <tr>
              <th>Parameter</th>
              <th>Before</th>
              <th>Here</th>
            </tr>
          </thead>
          <tbody>
            {diff.parameters.map((change) => (
              <tr key={change.name} className={change.changes ? 'is-changed' : undefined} data-testid="promotion-parameter">
                <td>
                  <code>{change.name}</code>
                </td>
                <td>
                  <code>{change.source === null ? '—' : parameterText(change.source)}</code>
                </td>
                <td>
                  <code>{change.missing ? 'missing!' : parameterText(change.target)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function PromotionRow({ promotion, mine, onChanged }: { promotion: Promotion; mine: Set<number>; onChanged: () => void }) {
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function act(action: () => Promise<unknown>, then?: (result: unknown) => void) {
    setError(null);
    try {
      const result = await action();
      onChanged();
      then?.(result);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  const runHere = () =>
    act(
      () => api.startRun(promotion.pipeline, { version: promotion.version, environment: promotion.target }),
      (run) => navigate(paths.run((run as { id: number }).id)),
    );

  return (
    <li className="promotion" data-testid="promotion" data-status={promotion.status}>
      <div className="promotion__head">
        <span className={`badge status-${(promotion.status ?? '').toLowerCase()}`} data-testid="promotion-status">
          {promotion.status}
        </span>
        <strong>
          {promotion.pipeline_name} v{promotion.version}
        </strong>
        <span>
          {promotion.source ?? '(new)'} → {promotion.target}
        </span>
        <span className="muted">
          asked by {promotion.requested_by} {new Date(promotion.requested_at).toLocaleString()}
          {promotion.message && `: “${promotion.message}”`}
        </span>
      </div>
      {promotion.status === 'PENDING' && (
        <div className="muted" data-testid="promotion-waits-for">
          waits for a user holding the {promotion.approval_role ?? 'operator'} role (or a stronger one) on {promotion.pipeline_name}, not {promotion.requested_by ?? 'who asked'}
        </div>
      )}
      {promotion.decided_by && (
        <div data-testid="promotion-decision">
          {promotion.status === 'REJECTED' ? 'rejected' : 'approved'} by <strong>{promotion.decided_by}</strong>
          {promotion.decided_at && ` ${new Date(promotion.decided_at).toLocaleString()}`}
          {promotion.comment && `: “${promotion.comment}”`}
        </div>
      )}
      <DiffView diff={promotion.diff} />
      <div className="connection-form__actions">
        {promotion.can_decide && (
          <>
            <input className="input" placeholder="comment" aria-label="comment" data-testid="promotion-comment" value={comment} onChange={(event) => setComment(event.target.value)} />
            <button type="button" className="button button--primary" data-testid="promotion-approve" onClick={() => void act(() => environments.approve(promotion.id, comment))}>
              Approve
            </button>
            <button type="button" className="button" data-testid="promotion-reject" onClick={() => void act(() => environments.reject(promotion.id, comment))}>
              Reject
            </button>
          </>
        )}
        {promotion.status === 'APPLIED' && mine.has(promotion.target_id) && (
          <button type="button" className="button" data-testid="promotion-run" onClick={() => void runHere()}>
            Run v{promotion.version} in {promotion.target}
          </button>
        )}
      </div>
      {error && <p className="error-text">{error}</p>}
    </li>
  );
}

/** Promote a version into one of your environments (with its diff first); decide what waits for you. */
function PromotionsSection({ environmentList, onChanged }: { environmentList: Environment[]; onChanged: () => void }) {
  const [pipelines, setPipelines] = useState<PipelineSummary[]>([]);
  const [promotions, setPromotions] = useState<Promotion[]>([]);
  const [pipelineId, setPipelineId] = useState<number | null>(null);
  const [version, setVersion] = useState('');
  const [target, setTarget] = useState<number | null>(null);
  const [message, setMessage] = useState('');
  const [preview, setPreview] = useState<PromotionDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  // your own environments, and the team's for a pipeline of a team (the server checks your role in it)
  const pipelineTeam = pipelines.find((pipeline) => pipeline.id === pipelineId)?.team ?? null;
  const owned = environmentList.filter((environment) => environment.mine || (environment.team != null && environment.team === pipelineTeam));
  const mine = new Set(environmentList.filter((environment) => environment.mine || environment.team != null).map((environment) => environment.id));

  const refresh = () => {
    environments.promotions().then(setPromotions, (failure: unknown) => setError(messageOf(failure)));
  };
  useEffect(refresh, []);
  useEffect(() => {
    api.listPipelines().then(
      (answer) => setPipelines(Array.isArray(answer) ? answer : answer.results),
      () => setPipelines([]),
    );
  }, []);

  const versionNumber = readNumber(version, { integer: true, min: 1, max: 2 ** 31 - 1 }).value;
  const chosen = pipelineId !== null && target !== null && versionNumber !== null ? { pipeline: pipelineId, version: versionNumber, environment: target } : null;

  async function act(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setPreview(null);
      setError(messageOf(failure));
    }
  }

  return (
    <section className="environments-section" data-testid="promotions-section">
      <h2>Promotions</h2>
      <div className="connection-form" data-testid="promotion-form">
        <div className="connection-form__row">
          <label className="form-field">
            <span className="form-field__label">Pipeline</span>
            <select
              className="input"
              data-testid="promotion-pipeline"
              value={pipelineId ?? ''}
              onChange={(event) => {
                const id = event.target.value ? Number(event.target.value) : null;
                setPipelineId(id);
                setVersion(String(pipelines.find((pipeline) => pipeline.id === id)?.version ?? ''));
                setPreview(null);
              }}
            >
              <option value="">choose…</option>
              {pipelines.map((pipeline) => (
                <option key={pipeline.id} value={pipeline.id}>
                  {pipeline.name}
                </option>
              ))}
            </select>
          </label>
          <label className="form-field">
            <span className="form-field__label">Version</span>
            <input className="input" type="number" min={1} data-testid="promotion-version" value={version} onChange={(event) => setVersion(event.target.value)} />
          </label>
          <label className="form-field">
            <span className="form-field__label">Into</span>
            <select className="input" data-testid="promotion-target" value={target ?? ''} onChange={(event) => setTarget(event.target.value ? Number(event.target.value) : null)}>
              <option value="">choose…</option>
              {owned.map((environment) => (
                <option key={environment.id} value={environment.id}>
                  {environment.team_name ? `${environment.name} (team ${environment.team_name})` : environment.name}
                </option>
              ))}
            </select>
          </label>
          <label className="form-field connection-form__address">
            <span className="form-field__label">Message</span>
            <input className="input" data-testid="promotion-message" value={message} onChange={(event) => setMessage(event.target.value)} />
          </label>
        </div>
        <div className="connection-form__actions">
          <button type="button" className="button" data-testid="promotion-preview" disabled={!chosen} onClick={() => chosen && void act(async () => setPreview(await environments.preview({ ...chosen, message })))}>
            Show diff
          </button>
          <button
            type="button"
            className="button button--primary"
            data-testid="promotion-promote"
            disabled={!chosen}
            onClick={() =>
              chosen &&
              void act(async () => {
                await environments.promote({ ...chosen, message });
                setPreview(null);
                refresh();
                onChanged();
              })
            }
          >
            Promote
          </button>
        </div>
        {preview && <DiffView diff={preview} />}
        {error && <p className="error-text" data-testid="promotion-error">{error}</p>}
      </div>
      <ul className="promotion-list">
        {promotions.length === 0 && <li className="muted">No promotion yet.</li>}
        {promotions.map((promotion) => (
          <PromotionRow key={promotion.id} promotion={promotion} mine={mine} onChanged={() => (refresh(), onChanged())} />
        ))}
      </ul>
    </section>
  );
}

export default memo(PromotionsSection);
