import { useEffect } from 'react';
import { AlertRulesPage } from './alerts/AlertRulesPage';
import { setUnauthorizedHandler } from './api/client';
import { LoginPage } from './auth/LoginPage';
import { TokensPage } from './auth/TokensPage';
import { ConnectionsPage } from './connections/ConnectionsPage';
import { EnvironmentsPage } from './environments/EnvironmentsPage';
import { FilesPage } from './files/FilesPage';
import { GitBindingPage } from './git/GitBindingPage';
import { EditorPage } from './editor/EditorPage';
import { JobsPage } from './jobs/JobsPage';
import { PipelineAccessPage } from './pipelines/PipelineAccessPage';
import { PipelineFilePage } from './pipelines/PipelineFilePage';
import { PipelinesPage } from './pipelines/PipelinesPage';
import { navigate, parseRoute, paths, usePathname } from './router';
import { RunPage } from './run/RunPage';
import { ShadowPage } from './shadows/ShadowPage';
import { StatePage } from './statebrowser/StatePage';
import { TeamsPage } from './teams/TeamsPage';
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
    case 'alerts':
      return <AlertRulesPage />;
    case 'run':
      return <RunPage key={route.runId} runId={route.runId} />;
    case 'state':
      return <StatePage key={`${route.runId}/${route.checkpointId}`} runId={route.runId} checkpointId={route.checkpointId} />;
    case 'shadow':
      return <ShadowPage key={`${route.runId}/${route.shadowId}`} runId={route.runId} shadowId={route.shadowId} />;
    case 'login':
      return <LoginPage />;
    case 'tokens':
      return <TokensPage />;
    case 'connections':
      return <ConnectionsPage />;
    case 'files':
      return <FilesPage />;
    case 'environments':
      return <EnvironmentsPage />;
    case 'teams':
      return <TeamsPage teamId={route.teamId} />;
    case 'pipeline-access':
      return <PipelineAccessPage key={route.pipelineId} pipelineId={route.pipelineId} />;
    case 'pipeline-file':
      return <PipelineFilePage key={route.pipelineId} pipelineId={route.pipelineId} />;
    case 'pipeline-git':
      return <GitBindingPage key={route.pipelineId} pipelineId={route.pipelineId} />;
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
