import { useEffect } from 'react';
import { setUnauthorizedHandler } from './api/client';
import { LoginPage } from './auth/LoginPage';
import { TokensPage } from './auth/TokensPage';
import { EditorPage } from './editor/EditorPage';
import { JobsPage } from './jobs/JobsPage';
import { PipelinesPage } from './pipelines/PipelinesPage';
import { navigate, parseRoute, paths, usePathname } from './router';
import { RunPage } from './run/RunPage';
import { useAuthStore } from './state/shared/authStore';
import { useCatalogStore } from './state/shared/catalogStore';
import { AppBar } from './ui/AppBar';
import { Link } from './ui/Link';

function CurrentPage() {
  const route = parseRoute(usePathname());
  switch (route.page) {
    case 'editor':
      return <EditorPage pipelineId={route.pipelineId} />;
    case 'pipelines':
      return <PipelinesPage />;
    case 'jobs':
      return <JobsPage />;
    case 'run':
      return <RunPage key={route.runId} runId={route.runId} />;
    case 'login':
      return <LoginPage />;
    case 'tokens':
      return <TokensPage />;
    default:
      return (
        <main className="page-message">
          <h1>Nothing here</h1>
          <p>
            No page at <code>{route.path}</code>. <Link to="/">Start a new pipeline</Link>.
          </p>
        </main>
      );
  }
}

/** A request needed a login: show /login and come back here afterwards. */
function toLogin() {
  const here = window.location.pathname + window.location.search;
  if (window.location.pathname === '/login') return;
  useAuthStore.getState().loggedOut();
  navigate(paths.login(here));
}

export default function App() {
  useEffect(() => {
    setUnauthorizedHandler(toLogin);
    void useAuthStore.getState().check();
    void useCatalogStore.getState().load();
    return () => setUnauthorizedHandler(null);
  }, []);
  return (
    <div className="app">
      <AppBar />
      <CurrentPage />
    </div>
  );
}
