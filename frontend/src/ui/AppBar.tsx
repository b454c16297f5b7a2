import { useCallback, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { api } from '../api/client';
import { navigate, paths } from '../router';
import { useAuthStore, type AuthState } from '../state/shared/authStore';
import { useEditorStore } from '../state/editor/editorStore';
import { Link } from './Link';
import { NotificationsBell } from './NotificationsBell';
import { useDismiss } from './useDismiss';

const startNewPipeline = () => useEditorStore.getState().newPipeline();
const selectAuth = (state: AuthState) => ({ status: state.status, user: state.user });

function UserMenu() {
  const { status, user } = useAuthStore(useShallow(selectAuth));
  const [open, setOpen] = useState(false);
  const menu = useDismiss<HTMLDivElement>(open, useCallback(() => setOpen(false), []));
  if (status !== 'authenticated' || !user) return null;
  async function logout() {
    setOpen(false);
    try {
      await api.logout();
    } finally {
      useAuthStore.getState().loggedOut();
      navigate(paths.login());
    }
  }
  return (
    <div className="user-menu" ref={menu}>
      <button type="button" className="user-menu__button" data-testid="user-menu" title={user.username} aria-expanded={open} onClick={() => setOpen(!open)}>
        {user.username} ▾
      </button>
      {open && (
        <div className="user-menu__list" role="menu">
          <Link to={paths.tokens()} role="menuitem" onClick={() => setOpen(false)}>
            API tokens
          </Link>
          <button type="button" role="menuitem" className="link-button" data-testid="logout" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      )}
    </div>
  );
}

/** The thin bar on top of every page: product name, the main places, the user menu. */
export function AppBar() {
  return (
    <header className="app-bar">
      <Link to={paths.newPipeline()} className="brand" beforeNavigate={startNewPipeline}>
        <span className="brand-mark" aria-hidden="true" />
        Pipeline Studio
      </Link>
      <nav className="app-nav">
        <Link to={paths.pipelines()}>Pipelines</Link>
        <Link to={paths.jobs()}>Jobs</Link>
        <Link to={paths.alerts()} data-testid="nav-alert-rules">Alert rules</Link>
        <Link to={paths.connections()}>Connections</Link>
        <Link to={paths.environments()} data-testid="nav-environments">Environments</Link>
        <Link to={paths.files()}>Files</Link>
        <Link to={paths.teams()} data-testid="nav-teams">Teams</Link>
        <Link to={paths.newPipeline()} beforeNavigate={startNewPipeline}>
          New pipeline
        </Link>
      </nav>
      <div className="toolbar-spacer" />
      <NotificationsBell />
      <UserMenu />
    </header>
  );
}
