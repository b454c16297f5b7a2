import '../styles/dataIn.css';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { dataIn, type ConnectionKind, type ConnectionProfile, type ConnectionTestResult } from '../api/dataIn';
import { teams, type Team } from '../api/teams';
import { TopicBrowser } from './TopicBrowser';

const KINDS: Array<{ kind: ConnectionKind; label: string; placeholder: string }> = [
  { kind: 'kafka', label: 'Kafka', placeholder: 'broker1:9092,broker2:9092' },
  { kind: 'postgres', label: 'PostgreSQL', placeholder: 'postgresql://user@host:5432/database' },
  { kind: 'redis', label: 'Redis', placeholder: 'redis://host:6379/0' },
];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function TestResult({ result }: { result: ConnectionTestResult | null }) {
  if (!result) return null;
  return (
    <p className={result.ok ? 'test-result is-ok' : 'test-result is-failed'} data-testid="connection-test-result" role="status">
      {result.ok ? '✓ ' : '✗ '}
      {result.message} <span className="muted">({result.elapsed_ms} ms)</span>
    </p>
  );
}

/** Create a profile: name, kind, address, password; Test connection before saving. */
function ProfileForm({ onSaved }: { onSaved: () => void }) {
  const [name, setName] = useState('');
  const [team, setTeam] = useState('');
  const [adminOf, setAdminOf] = useState<Team[]>([]);
  const [kind, setKind] = useState<ConnectionKind>('kafka');
  const [address, setAddress] = useState('');
  const [password, setPassword] = useState('');
  const [description, setDescription] = useState('');
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    teams.list().then((mine) => setAdminOf(mine.filter((one) => one.role === 'admin')), () => setAdminOf([]));
  }, []);

  async function test() {
    setError(null);
    setResult(null);
    setBusy(true);
    try {
      setResult(await dataIn.testUnsaved({ kind, address, ...(password ? { password } : {}) }));
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await dataIn.createConnection({ name, kind, address, description, ...(password ? { password } : {}), ...(team ? { team: Number(team) } : {}) });
      setName('');
      setAddress('');
      setPassword('');
      setDescription('');
      setResult(null);
      onSaved();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <form className="connection-form" data-testid="connection-form" onSubmit={(event) => void save(event)}>
      <h2>New connection profile</h2>
      <div className="connection-form__row">
        <label className="form-field">
          <span className="form-field__label">Name</span>
          <input className="input" data-testid="connection-name" value={name} placeholder="orders-cluster" onChange={(event) => setName(event.target.value)} />
        </label>
        <label className="form-field">
          <span className="form-field__label">Kind</span>
          <select className="input" data-testid="connection-kind" value={kind} onChange={(event) => setKind(event.target.value as ConnectionKind)}>
            {KINDS.map((option) => (
              <option key={option.kind} value={option.kind}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field connection-form__address">
          <span className="form-field__label">Address</span>
          <input
            className="input is-code"
            data-testid="connection-address"
            value={address}
            placeholder={KINDS.find((option) => option.kind === kind)?.placeholder}
            onChange={(event) => setAddress(event.target.value)}
          />
        </label>
        {adminOf.length > 0 && (
          <label className="form-field" title="A team's profile: its viewers see it, editors and operators use it, admins change it">
            <span className="form-field__label">Owner</span>
            <select className="input" data-testid="connection-team" value={team} onChange={(event) => setTeam(event.target.value)}>
              <option value="">me</option>
              {adminOf.map((one) => (
                <option key={one.id} value={one.id}>
                  team {one.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {kind !== 'kafka' && (
          <label className="form-field">
            <span className="form-field__label">Password</span>
            <input className="input" type="password" data-testid="connection-password" value={password} autoComplete="new-password" onChange={(event) => setPassword(event.target.value)} />
          </label>
        )}
      </div>
      <label className="form-field">
        <span className="form-field__label">Description</span>
        <input className="input" data-testid="connection-description" value={description} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <div className="connection-form__actions">
        <button type="button" className="button" data-testid="connection-test-unsaved" disabled={!address.trim() || busy} onClick={() => void test()}>
          {busy ? 'Testing…' : 'Test connection'}
        </button>
        <button type="submit" className="button button--primary" data-testid="connection-save" disabled={!name.trim() || !address.trim()}>
          Save profile
        </button>
      </div>
      <TestResult result={result} />
      {error && <p className="error-text">{error}</p>}
    </form>
  );
}

function ProfileRow({ profile, onChanged, onBrowse }: { profile: ConnectionProfile; onChanged: () => void; onBrowse: (profile: ConnectionProfile) => void }) {
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [testing, setTesting] = useState(false);
  const [shareWith, setShareWith] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function test() {
    setTesting(true);
    setResult(null);
    try {
      setResult(await dataIn.testConnection(profile.id));
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setTesting(false);
    }
  }

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
    <tr data-testid="connection-row" data-name={profile.name}>
      <td>
        <strong>{profile.name}</strong>
        {profile.description && <div className="muted">{profile.description}</div>}
        <div>
          <code className="muted">{profile.reference}</code>
        </div>
      </td>
      <td>{KINDS.find((option) => option.kind === profile.kind)?.label ?? profile.kind}</td>
      <td>
        <code>{profile.address}</code>
        {profile.has_password && <span className="muted"> · password kept</span>}
        {!profile.granted && (
          <div className="warning-text" data-testid="connection-not-granted">
            Not covered by your grants: {profile.grant_message}
          </div>
        )}
      </td>
      <td data-testid="connection-owner">
        {profile.team_name ? `team ${profile.team_name}` : profile.mine ? 'you' : profile.owner}
        {profile.mine && profile.shares.length > 0 && (
          <div className="muted">shared with {profile.shares.map((share) => String(share.user ?? share.group)).join(', ')}</div>
        )}
      </td>
      <td className="connection-actions">
        <button type="button" className="button" data-testid="connection-test" disabled={testing} onClick={() => void test()}>
          {testing ? 'Testing…' : 'Test connection'}
        </button>
        {profile.kind === 'kafka' && (
          <button type="button" className="button" data-testid="connection-browse" onClick={() => onBrowse(profile)}>
            Browse topics
          </button>
        )}
        {profile.mine && (
          <>
            <span className="connection-share">
              <input className="input" placeholder="user name" data-testid="connection-share-user" value={shareWith} onChange={(event) => setShareWith(event.target.value)} />
              <button type="button" className="link-button" disabled={!shareWith.trim()} onClick={() => void act(() => dataIn.shareConnection(profile.id, { user: shareWith.trim() }))}>
                share
              </button>
            </span>
            <button type="button" className="link-button danger" data-testid="connection-delete" onClick={() => void act(() => dataIn.deleteConnection(profile.id))}>
              delete
            </button>
          </>
        )}
        <TestResult result={result} />
        {error && <p className="error-text">{error}</p>}
      </td>
    </tr>
  );
}

/** Connection profiles: yours, your teams' and those shared with you; create, test, share; browse a Kafka one's topics. */
export function ConnectionsPage() {
  const [profiles, setProfiles] = useState<ConnectionProfile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [browsing, setBrowsing] = useState<ConnectionProfile | null>(null);

  const refresh = useCallback(() => {
    dataIn.listConnections().then(setProfiles, (failure: unknown) => setError(messageOf(failure)));
  }, []);
  useEffect(refresh, [refresh]);

  return (
    <main className="list-page connections-page" data-testid="connections-page">
      <div className="list-page__heading">
        <h1>Connections</h1>
      </div>
      <p className="muted">
        A node names a profile (<code>connection:&lt;name&gt;</code>) instead of repeating its address; the address is checked against the
        grants of whoever runs the pipeline, when it runs. Passwords are kept encrypted and never shown.
      </p>
      <ProfileForm onSaved={refresh} />
      {error && <p className="error-text">{error}</p>}
      {profiles && (
        <table className="data-table connections-table">
          <thead>
            <tr>
              <th>Profile</th>
              <th>Kind</th>
              <th>Address</th>
              <th>Owner</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {profiles.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  No connection profile yet.
                </td>
              </tr>
            )}
            {profiles.map((profile) => (
              <ProfileRow key={profile.id} profile={profile} onChanged={refresh} onBrowse={setBrowsing} />
            ))}
          </tbody>
        </table>
      )}
      {browsing && (
        <section className="connections-browser">
          <h2>
            Topics of <code>{browsing.name}</code>
          </h2>
          <TopicBrowser key={browsing.id} bootstrap={browsing.reference} />
        </section>
      )}
    </main>
  );
}
