import { useEditorStore } from '../state/editorStore';
import { paths } from '../router';
import { Link } from './Link';

const startNewPipeline = () => useEditorStore.getState().newPipeline();

/** The thin bar on top of every page: product name and the main places. */
export function AppBar() {
  return (
    <header className="app-bar">
      <Link to={paths.newPipeline()} className="brand" beforeNavigate={startNewPipeline}>
        <span className="brand-mark" aria-hidden="true" />
        Pipeline Studio
      </Link>
      <nav className="app-nav">
        <Link to={paths.pipelines()}>Pipelines</Link>
        <Link to={paths.newPipeline()} beforeNavigate={startNewPipeline}>
          New pipeline
        </Link>
      </nav>
    </header>
  );
}
