import { useEffect, useState, type FormEvent } from 'react';
import { api, rowsOf } from '../api/client';
import type { ApiToken } from '../api/types';

type Load = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; tokens: ApiToken[] };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** API tokens for scripts: create one (its key is shown once), list them, revoke. */
export function TokensPage() {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiToken | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function refresh() {
    try {
      setLoad({ state: 'ready', tokens: rowsOf(await api.listTokens()) });
    } catch (failure) {
      setLoad({ state: 'failed', message: messageOf(failure) });
    }
  }

  useEffect(() => {
    void refresh();
  }, []);

  async function create(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      setCreated(await api.createToken(name.trim()));
      setName('');
      await refresh();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  async function revoke(token: ApiToken) {
    setError(null);
    try {
      await api.revokeToken(token.id);
      if (created?.id === token.id) setCreated(null);
      await refresh();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <main className="list-page tokens-page">
      <div className="list-page__heading">
        <h1>API tokens</h1>
      </div>
      <p className="muted">
        Scripts call the REST API with <code>Authorization: Token &lt;key&gt;</code>. A key is shown once, when it is created.
      </p>
      <form className="token-form" onSubmit={(event) => void create(event)}>
        <input className="input" data-testid="token-name" placeholder="what the token is for" value={name} onChange={(event) => setName(event.target.value)} />
        <button type="submit" className="button button--primary" data-testid="token-create" disabled={!name.trim()}>
          Create token
        </button>
      </form>
      {error && <p className="error-text">{error}</p>}
      {created?.key && (
        <div className="token-created" role="status">
          New token <strong>{created.name}</strong>: copy the key now, it is not shown again.
          <code data-testid="token-key">{created.key}</code>
        </div>
      )}
      {load.state === 'loading' && <p className="muted">Loading…</p>}
      {load.state === 'failed' && <p className="error-text">Could not load tokens: {load.message}</p>}
      {load.state === 'ready' && (
        <table className="data-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Created</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {load.tokens.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  No token yet.
                </td>
              </tr>
            )}
            {load.tokens.map((token) => (
              <tr key={token.id} data-testid="token-row">
                <td>{token.name}</td>
                <td>
                  <code>{token.prefix ? `${token.prefix}…` : '–'}</code>
                </td>
                <td>{new Date(token.created_at).toLocaleString()}</td>
                <td>{token.last_used_at ? new Date(token.last_used_at).toLocaleString() : '–'}</td>
                <td>
                  <button type="button" className="link-button danger" data-testid="token-revoke" onClick={() => void revoke(token)}>
                    revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
