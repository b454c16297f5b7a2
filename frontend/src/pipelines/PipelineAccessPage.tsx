import '../styles/teams.css';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { messageOf, teams, type Team, type TeamShare, type TeamShareRole } from '../api/teams';
import type { Pipeline } from '../api/types';
import { paths } from '../router';
import { Link } from '../ui/Link';
import { PipelineAsideNav } from './PipelineAsideNav';

const SHARE_ROLES: TeamShareRole[] = ['viewer', 'editor', 'operator'];

/** Who owns the pipeline: its creator alone, or one of your teams (moving it needs own, and editor in the team). */
function Ownership({ pipeline, mine, onMoved }: { pipeline: Pipeline; mine: Team[]; onMoved: (pipeline: Pipeline) => void }) {
  const [target, setTarget] = useState<string>(pipeline.team ? String(pipeline.team) : '');
  const [error, setError] = useState<string | null>(null);
  const owner = pipeline.permissions.includes('own');
  async function move(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      onMoved(await teams.movePipeline(pipeline.id, target ? Number(target) : null));
    } catch (failure) {
      setError(messageOf(failure));
    }
  }
  return (
    <section className="access-section" data-testid="pipeline-ownership">
      <h2>Owner</h2>
      <p data-testid="pipeline-owned-by">
        {pipeline.team_name ? (
          <>
            Team <Link to={paths.team(pipeline.team ?? 0)}>{pipeline.team_name}</Link> (made by {pipeline.owner ?? 'someone gone'})
          </>
        ) : (
          <>{pipeline.owner ?? 'nobody'} alone</>
        )}
      </p>
      <p className="muted">
        {pipeline.role && pipeline.role_team && (
          <>
            Your role: <span data-testid="pipeline-role">{pipeline.role} in team {pipeline.role_team}</span>.{' '}
          </>
        )}
        You may: <span data-testid="pipeline-permissions">{pipeline.permissions.join(', ')}</span>
      </p>
      {owner && (
        <form className="team-form" onSubmit={(event) => void move(event)}>
          <label className="form-field">
            <span className="form-field__label">Move to</span>
            <select className="input" data-testid="pipeline-move-target" value={target} onChange={(event) => setTarget(event.target.value)}>
              <option value="">me alone</option>
              {mine.map((team) => (
                <option key={team.id} value={team.id}>
                  team {team.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button" data-testid="pipeline-move" disabled={target === (pipeline.team ? String(pipeline.team) : '')}>
            Move
          </button>
          {error && <p className="error-text">{error}</p>}
        </form>
      )}
    </section>
  );
}

/** The teams the pipeline is shared with: each member gets the share's role or their own, whichever is less. */
function TeamShares({ pipeline, mine }: { pipeline: Pipeline; mine: Team[] }) {
  const [shares, setShares] = useState<TeamShare[]>([]);
  const [team, setTeam] = useState('');
  const [role, setRole] = useState<TeamShareRole>('viewer');
  const [error, setError] = useState<string | null>(null);
  const owner = pipeline.permissions.includes('own');
  const load = useCallback(() => teams.shares(pipeline.id).then(setShares, (failure: unknown) => setError(messageOf(failure))), [pipeline.id]);
  useEffect(() => {
    void load();
  }, [load]);
  async function act(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
      await load();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }
  const candidates = mine.filter((one) => one.id !== pipeline.team && !shares.some((share) => share.team === one.name));
  return (
    <section className="access-section" data-testid="pipeline-team-shares">
      <h2>Shared with teams</h2>
      {shares.length === 0 ? (
        <p className="muted">With no team.</p>
      ) : (
        <table className="data-table">
          <thead>
            <tr>
              <th>Team</th>
              <th>At most</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {shares.map((share) => (
              <tr key={share.id} data-testid={`team-share-${share.team}`}>
                <td>{share.team}</td>
                <td>{share.role}</td>
                <td>
                  {owner && (
                    <button type="button" className="link-button" data-testid={`team-unshare-${share.team}`} onClick={() => void act(() => teams.unshare(pipeline.id, share.id))}>
                      stop sharing
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {owner && (
        <form
          className="team-form"
          onSubmit={(event) => {
            event.preventDefault();
            void act(() => teams.share(pipeline.id, team, role));
          }}
        >
          <label className="form-field">
            <span className="form-field__label">Team</span>
            <select className="input" data-testid="share-team" value={team} onChange={(event) => setTeam(event.target.value)}>
              <option value="">choose one of your teams</option>
              {candidates.map((one) => (
                <option key={one.id} value={one.name}>
                  {one.name}
                </option>
              ))}
            </select>
          </label>
          <label className="form-field">
            <span className="form-field__label">At most</span>
            <select className="input" data-testid="share-role" value={role} onChange={(event) => setRole(event.target.value as TeamShareRole)}>
              {SHARE_ROLES.map((one) => (
                <option key={one} value={one}>
                  {one}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button button--primary" data-testid="share-add" disabled={!team}>
            Share
          </button>
        </form>
      )}
      {error && <p className="error-text">{error}</p>}
    </section>
  );
}

/** Who owns a pipeline and which teams it is shared with. */
export function PipelineAccessPage({ pipelineId }: { pipelineId: number }) {
  const [pipeline, setPipeline] = useState<Pipeline | null>(null);
  const [mine, setMine] = useState<Team[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([api.getPipeline(pipelineId), teams.list()]).then(
      ([found, listed]) => {
        setPipeline(found);
        setMine(listed);
      },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, [pipelineId]);
  return (
    <main className="list-page access-page">
      <PipelineAsideNav pipelineId={pipelineId} name={pipeline?.name} current="access" />
      {error && <p className="error-text">{error}</p>}
      {pipeline && (
        <>
          <Ownership pipeline={pipeline} mine={mine} onMoved={setPipeline} />
          <TeamShares key={`${pipeline.id}-${pipeline.team ?? 'me'}`} pipeline={pipeline} mine={mine} />
        </>
      )}
    </main>
  );
}
