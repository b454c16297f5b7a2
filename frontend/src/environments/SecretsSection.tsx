import { memo, useCallback, useEffect, useState, type FormEvent } from 'react';
import { environments, type Secret } from '../api/environments';
import { messageOf } from './messages';
import { OwnerSelect } from './OwnerSelect';

/** Replace a secret's value: typed into a password field, sent once, never shown again (by its owner, or an admin of
 * the team that owns it; the team's other members see its name only). */
function SecretRow({ secret, onChanged }: { secret: Secret; onChanged: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function act(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
      setValue('');
      onChanged();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <tr data-testid="secret-row" data-name={secret.name}>
      <td>
        <strong>{secret.name}</strong>
        {secret.team_name && (
          <span className="badge" data-testid="secret-team" title="The team's editors, operators and admins use it in the team's pipelines; its admins replace or delete it">
            team {secret.team_name}
          </span>
        )}
        {secret.description && <div className="muted">{secret.description}</div>}
      </td>
      <td>
        <code>{secret.reference}</code>
      </td>
      <td className="secret-value" data-testid="secret-value">
        ●●●●●●●● <span className="muted">(kept encrypted, never shown)</span>
      </td>
      <td className="muted">{new Date(secret.updated_at).toLocaleString()}</td>
      <td className="connection-actions">
        {secret.can_change ? (
          <>
            <input className="input" type="password" autoComplete="new-password" aria-label={`new value of ${secret.name}`} placeholder="new value" value={value} onChange={(event) => setValue(event.target.value)} />
            <button type="button" className="link-button" disabled={!value} onClick={() => void act(() => environments.replaceSecret(secret.id, value))}>
              replace
            </button>
            <button type="button" className="link-button danger" onClick={() => void act(() => environments.removeSecret(secret.id))}>
              delete
            </button>
          </>
        ) : (
          <span className="muted" data-testid="secret-read-only">
            only an admin of team {secret.team_name} changes it
          </span>
        )}
        {error && <p className="error-text">{error}</p>}
      </td>
    </tr>
  );
}

/** Your secrets and your teams', write-only: names and references to use in definitions and parameters, never values. */
function SecretsSection() {
  const [secrets, setSecrets] = useState<Secret[]>([]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [team, setTeam] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(() => {
    environments.secrets().then(setSecrets, (failure: unknown) => setError(messageOf(failure)));
  }, []);
  useEffect(refresh, [refresh]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await environments.createSecret({ name: name.trim(), value, team });
      setName('');
      setValue('');
      refresh();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <section className="environments-section" data-testid="secrets-section">
      <h2>Secrets</h2>
      <p className="muted">
        A definition or a parameter names a secret as <code>{'${secret:name}'}</code>. Its value is kept encrypted, filled in only inside the
        run&apos;s driver, and masked in events, logs and errors. Nobody can read it back, you included. A team&apos;s secret is filled into
        the team&apos;s pipelines (before a member&apos;s own of the same name) for its editors, operators and admins.
      </p>
      <form className="connection-form" data-testid="secret-form" onSubmit={(event) => void save(event)}>
        <div className="connection-form__row">
          <label className="form-field">
            <span className="form-field__label">Name</span>
            <input className="input" data-testid="secret-name" value={name} placeholder="pg_password" onChange={(event) => setName(event.target.value)} />
          </label>
          <label className="form-field">
            <span className="form-field__label">Value</span>
            <input className="input" type="password" autoComplete="new-password" data-testid="secret-new-value" value={value} onChange={(event) => setValue(event.target.value)} />
          </label>
          <OwnerSelect value={team} onChange={setTeam} testId="secret-owner" what="secret" />
          <div className="connection-form__actions">
            <button type="submit" className="button button--primary" data-testid="secret-save" disabled={!name.trim() || !value}>
              Keep secret
            </button>
          </div>
        </div>
        {error && <p className="error-text">{error}</p>}
      </form>
      <table className="data-table">
        <thead>
          <tr>
            <th>Secret</th>
            <th>Reference</th>
            <th>Value</th>
            <th>Changed</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {secrets.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No secret yet.
              </td>
            </tr>
          )}
          {secrets.map((secret) => (
            <SecretRow key={secret.id} secret={secret} onChanged={refresh} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

export default memo(SecretsSection);
