import '../styles/teams.css';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, rowsOf } from '../api/client';
import { messageOf, ROLES, teams, type Member, type Team, type TeamLocation, type TeamRole } from '../api/teams';
import type { PipelineSummary } from '../api/types';
import { navigate, paths } from '../router';
import { useAuthStore } from '../state/shared/authStore';
import { Link } from '../ui/Link';

function RoleLegend() {
  return (
    <dl className="role-legend" data-testid="role-legend">
      {ROLES.map(({ role, meaning }) => (
        <div key={role}>
          <dt>{role}</dt>
          <dd>{meaning}</dd>
        </div>
      ))}
    </dl>
  );
}

function RoleSelect({ value, onChange, testId }: { value: TeamRole; onChange: (role: TeamRole) => void; testId: string }) {
  return (
    <select className="input" data-testid={testId} value={value} onChange={(event) => onChange(event.target.value as TeamRole)}>
      {ROLES.map(({ role }) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}

/** Start a team: the one who starts it is its admin. */
function NewTeamForm({ onCreated }: { onCreated: (team: Team) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function create(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      const team = await teams.create(name.trim(), description);
      setName('');
      setDescription('');
      onCreated(team);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }
  return (
    <form className="team-form" data-testid="team-form" onSubmit={(event) => void create(event)}>
      <label className="form-field">
        <span className="form-field__label">New team</span>
        <input className="input" data-testid="team-name" value={name} placeholder="payments" onChange={(event) => setName(event.target.value)} />
      </label>
      <label className="form-field team-form__description">
        <span className="form-field__label">Description</span>
        <input className="input" data-testid="team-description" value={description} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <button type="submit" className="button button--primary" data-testid="team-create" disabled={!name.trim()}>
        Start team
      </button>
      {error && <p className="error-text">{error}</p>}
    </form>
  );
}

function AddMemberForm({ team, onAdded }: { team: Team; onAdded: () => void }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<TeamRole>('viewer');
  const [error, setError] = useState<string | null>(null);
  async function add(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await teams.addMember(team.id, username.trim(), role);
      setUsername('');
      onAdded();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }
  return (
    <form className="team-form" data-testid="member-form" onSubmit={(event) => void add(event)}>
      <label className="form-field">
        <span className="form-field__label">User name</span>
        <input className="input" data-testid="member-username" value={username} onChange={(event) => setUsername(event.target.value)} />
      </label>
      <label className="form-field">
        <span className="form-field__label">Role</span>
        <RoleSelect value={role} onChange={setRole} testId="member-role" />
      </label>
      <button type="submit" className="button button--primary" data-testid="member-add" disabled={!username.trim()}>
        Add member
      </button>
      {error && <p className="error-text" data-testid="member-error">{error}</p>}
    </form>
  );
}

function MemberRow({ team, member, admin, me, onChanged }: { team: Team; member: Member; admin: boolean; me: string | undefined; onChanged: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const leaving = member.username === me;
  async function act(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
      onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }
  return (
    <tr data-testid={`member-${member.username}`}>
      <td>{member.username}</td>
      <td>
        {admin ? (
          <RoleSelect value={member.role} testId={`member-role-${member.username}`} onChange={(role) => void act(() => teams.changeRole(team.id, member.id, role))} />
        ) : (
          member.role
        )}
      </td>
      <td>
        {(admin || leaving) && (
          <button type="button" className="link-button" data-testid={`member-remove-${member.username}`} onClick={() => void act(() => teams.removeMember(team.id, member.id))}>
            {leaving ? 'leave' : 'remove'}
          </button>
        )}
        {error && <span className="error-text"> {error}</span>}
      </td>
    </tr>
  );
}

/** The storage locations granted to the team (by an administrator): where its editors and up may read and write. */
function TeamLocations({ locations }: { locations: TeamLocation[] }) {
  return (
    <>
      <h3>Storage locations granted to the team</h3>
      {locations.length === 0 ? (
        <p className="muted" data-testid="team-locations-none">
          None: an administrator grants them (Django admin, or the locations API with a team).
        </p>
      ) : (
        <table className="data-table" data-testid="team-locations">
          <thead>
            <tr>
              <th>Location</th>
              <th>Kind</th>
              <th>Prefix</th>
              <th>Access</th>
            </tr>
          </thead>
          <tbody>
            {locations.map((location) => (
              <tr key={location.id} data-testid={`team-location-${location.name}`}>
                <td>
                  <strong>{location.name}</strong>
                  {location.description && <div className="muted">{location.description}</div>}
                </td>
                <td>{location.kind}</td>
                <td>
                  <code>{location.prefix}</code>
                </td>
                <td>{location.can_write ? 'read and write' : 'read only'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted">Editors, operators and admins of the team get them in every validation, preview and run, checked at each use; viewers do not, and a member who leaves loses them at once.</p>
    </>
  );
}

/** One team: its members and their roles (admins change them), the pipelines it owns, the locations granted to it. */
function TeamDetail({ teamId, onChanged }: { teamId: number; onChanged: () => void }) {
  const me = useAuthStore((state) => state.user?.username);
  const [team, setTeam] = useState<Team | null>(null);
  const [members, setMembers] = useState<Member[]>([]);
  const [pipelines, setPipelines] = useState<PipelineSummary[]>([]);
  const [locations, setLocations] = useState<TeamLocation[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const [found, listed, all, granted] = await Promise.all([teams.get(teamId), teams.members(teamId), api.listPipelines(), teams.locations(teamId)]);
      setTeam(found);
      setMembers(listed);
      setLocations(granted);
      setPipelines(rowsOf<PipelineSummary>(all).filter((pipeline) => pipeline.team === teamId));
      setError(null);
    } catch (failure) {
      setTeam(null);
      setError(messageOf(failure));
    }
  }, [teamId]);
  useEffect(() => {
    void load();
  }, [load]);
  const changed = () => {
    void load();
    onChanged();
  };
  if (error) return <p className="error-text" data-testid="team-error">{error}</p>;
  if (!team) return <p className="muted">Loading…</p>;
  const admin = team.role === 'admin';
  return (
    <section className="team-detail" data-testid="team-detail">
      <h2>{team.name}</h2>
      {team.description && <p className="muted">{team.description}</p>}
      <p>
        Your role: <strong data-testid="team-my-role">{team.role ?? 'none'}</strong>
      </p>
      <table className="data-table" data-testid="members-table">
        <thead>
          <tr>
            <th>Member</th>
            <th>Role</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <MemberRow key={member.id} team={team} member={member} admin={admin} me={me} onChanged={changed} />
          ))}
        </tbody>
      </table>
      {admin && <AddMemberForm team={team} onAdded={changed} />}
      <h3>Pipelines of the team</h3>
      {pipelines.length === 0 ? (
        <p className="muted">None yet: move one here from its Access page.</p>
      ) : (
        <ul className="team-pipelines" data-testid="team-pipelines">
          {pipelines.map((pipeline) => (
            <li key={pipeline.id}>
              <Link to={paths.pipeline(pipeline.id)}>{pipeline.name}</Link>
              <span className="muted">v{pipeline.version}</span>
              <Link to={paths.pipelineAccess(pipeline.id)}>Access</Link> · <Link to={paths.pipelineFile(pipeline.id)}>File</Link> ·{' '}
              <Link to={paths.pipelineGit(pipeline.id)}>Git</Link>
            </li>
          ))}
        </ul>
      )}
      <TeamLocations locations={locations} />
    </section>
  );
}

/** The teams one belongs to; one of them in detail. */
export function TeamsPage({ teamId }: { teamId: number | null }) {
  const [mine, setMine] = useState<Team[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let cancelled = false;
    teams.list().then(
      (listed) => !cancelled && setMine(listed),
      (failure: unknown) => !cancelled && setError(messageOf(failure)),
    );
    return () => {
      cancelled = true;
    };
  }, [generation]);
  const refresh = () => setGeneration((value) => value + 1);
  return (
    <main className="list-page teams-page">
      <div className="list-page__heading">
        <h1>Teams</h1>
      </div>
      <RoleLegend />
      {error && <p className="error-text">{error}</p>}
      {mine && mine.length === 0 && <p className="muted">You are in no team yet.</p>}
      {mine && mine.length > 0 && (
        <table className="data-table" data-testid="teams-table">
          <thead>
            <tr>
              <th>Team</th>
              <th>Your role</th>
              <th className="numeric">Members</th>
            </tr>
          </thead>
          <tbody>
            {mine.map((team) => (
              <tr key={team.id} data-testid={`team-row-${team.name}`} className={team.id === teamId ? 'is-selected' : undefined}>
                <td>
                  <Link to={paths.team(team.id)}>{team.name}</Link>
                </td>
                <td>{team.role}</td>
                <td className="numeric">{team.members}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NewTeamForm
        onCreated={(team) => {
          refresh();
          navigate(paths.team(team.id));
        }}
      />
      {teamId !== null && <TeamDetail key={teamId} teamId={teamId} onChanged={refresh} />}
    </main>
  );
}
