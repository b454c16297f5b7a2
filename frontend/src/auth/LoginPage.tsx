import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { navigate, safeNext } from '../router';
import { useAuthStore } from '../state/shared/authStore';
import { useCatalogStore } from '../state/shared/catalogStore';

/** Sign in with the studio's user; then back to the page that asked for it (?next=). */
export function LoginPage() {
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const user = await api.login(username, password);
      useAuthStore.getState().loggedIn(user);
      const catalog = useCatalogStore.getState();
      if (catalog.status === 'failed') {
        useCatalogStore.setState({ status: 'idle' });
        void catalog.load();
      }
      navigate(safeNext(new URLSearchParams(window.location.search).get('next')), { replace: true });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login-page">
      <form className="login-card panel" onSubmit={(event) => void submit(event)} data-testid="login-form">
        <h1>Sign in to Pipeline Studio</h1>
        <label className="form-field">
          <span className="form-field__label">User name</span>
          <input className="input" data-testid="login-username" autoComplete="username" value={username} onChange={(event) => setUsername(event.target.value)} />
        </label>
        <label className="form-field">
          <span className="form-field__label">Password</span>
          <input
            className="input"
            type="password"
            data-testid="login-password"
            autoComplete="current-password"
            autoFocus
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        {error && (
          <p className="error-text" role="alert" data-testid="login-error">
            {error}
          </p>
        )}
        <button type="submit" className="button button--primary" data-testid="login-submit" disabled={busy || !username || !password}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted">
          <code>make up</code> prints the password of the local user <code>admin</code> (kept in <code>var/admin-password</code>).
        </p>
      </form>
    </main>
  );
}
