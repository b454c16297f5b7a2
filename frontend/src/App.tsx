import { useEffect } from 'react';
import { EditorPage } from './editor/EditorPage';
import { PipelinesPage } from './pipelines/PipelinesPage';
import { parseRoute, usePathname } from './router';
import { RunPage } from './run/RunPage';
import { useCatalogStore } from './state/catalogStore';
import { AppBar } from './ui/AppBar';
import { Link } from './ui/Link';

function CurrentPage() {
  const route = parseRoute(usePathname());
  switch (route.page) {
    case 'editor':
      return <EditorPage pipelineId={route.pipelineId} />;
    case 'pipelines':
      return <PipelinesPage />;
    case 'run':
      return <RunPage key={route.runId} runId={route.runId} />;
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

export default function App() {
  useEffect(() => {
    void useCatalogStore.getState().load();
  }, []);
  return (
    <div className="app">
      <AppBar />
      <CurrentPage />
    </div>
  );
}
