import { paths } from '../router';
import { Link } from '../ui/Link';

type Aside = 'access' | 'file' | 'git';

const ASIDES: Array<{ aside: Aside; label: string; path: (id: number) => string }> = [
  { aside: 'access', label: 'Access', path: paths.pipelineAccess },
  { aside: 'file', label: 'File', path: paths.pipelineFile },
  { aside: 'git', label: 'Git', path: paths.pipelineGit },
];

/** The heading of a pipeline's access, file and Git pages: its name, and tabs to the editor and between them. */
export function PipelineAsideNav({ pipelineId, name, current }: { pipelineId: number; name: string | undefined; current: Aside }) {
  return (
    <div className="pipeline-aside-nav">
      <h1>
        <Link to={paths.pipeline(pipelineId)}>{name ?? `pipeline ${pipelineId}`}</Link>
        <span className="muted"> · {ASIDES.find((one) => one.aside === current)?.label}</span>
      </h1>
      <nav className="pipeline-aside-nav__links" aria-label="This pipeline's pages">
        <Link to={paths.pipeline(pipelineId)} data-testid="aside-editor">
          Editor
        </Link>
        {ASIDES.map((one) => (
          <Link key={one.aside} to={one.path(pipelineId)} className={one.aside === current ? 'is-current' : undefined} data-testid={`aside-${one.aside}`}>
            {one.label}
          </Link>
        ))}
      </nav>
    </div>
  );
}
