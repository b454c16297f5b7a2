import '../styles/teams.css';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { git, messageOf, type GitBinding, type GitComparison, type PipelineFile } from '../api/teams';
import type { VersionSummary } from '../api/types';
import DiffText from '../git/DiffText';
import { paths } from '../router';
import { Link } from '../ui/Link';
import { PipelineAsideNav } from './PipelineAsideNav';

/** The diff of the latest version against the file in the bound repository, when there is one. */
function AgainstGit({ pipelineId, binding }: { pipelineId: number; binding: GitBinding | null }) {
  const [comparison, setComparison] = useState<GitComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (binding) git.compare(binding.id).then(setComparison, (failure: unknown) => setError(messageOf(failure)));
  }, [binding]);
  if (!binding) {
    return (
      <p className="muted" data-testid="file-not-in-git">
        Not kept in Git: <Link to={paths.pipelineGit(pipelineId)}>bind a repository</Link> to compare.
      </p>
    );
  }
  if (error) return <p className="error-text">{error}</p>;
  if (!comparison) return <p className="muted">Comparing with Git…</p>;
  return (
    <section className="git-section" data-testid="file-against-git">
      <h2>
        Against <span className="is-code">{binding.path}</span> in Git {comparison.commit.slice(0, 7)}
      </h2>
      <p data-testid="file-git-verdict">
        {!comparison.diff ? 'Git holds the same file.' : comparison.logic_changed ? 'The logic differs from Git.' : 'Only the layout or comments differ from Git.'}
      </p>
      {comparison.diff && <DiffText text={comparison.diff} testId="file-git-diff" />}
    </section>
  );
}

/** A pipeline as the file the CLI and Git keep: its YAML (any version), and its diff against the repository. */
export function PipelineFilePage({ pipelineId }: { pipelineId: number }) {
  const [versions, setVersions] = useState<VersionSummary[]>([]);
  const [version, setVersion] = useState<number | undefined>(undefined);
  const [file, setFile] = useState<PipelineFile | null>(null);
  const [name, setName] = useState<string | undefined>(undefined);
  const [binding, setBinding] = useState<GitBinding | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([api.getPipeline(pipelineId), api.listVersions(pipelineId), git.bindings()]).then(
      ([pipeline, listed, bindings]) => {
        setName(pipeline.name);
        setVersions(listed);
        setBinding(bindings.find((one) => one.pipeline === pipelineId) ?? null);
      },
      (failure: unknown) => setError(messageOf(failure)),
    );
  }, [pipelineId]);
  useEffect(() => {
    git.pipelineFile(pipelineId, version).then(setFile, (failure: unknown) => setError(messageOf(failure)));
  }, [pipelineId, version]);
  return (
    <main className="list-page file-page">
      <PipelineAsideNav pipelineId={pipelineId} name={name} current="file" />
      {error && <p className="error-text">{error}</p>}
      {file && (
        <section className="git-section">
          <div className="file-heading">
            <h2 className="is-code" data-testid="file-name">
              {file.name}
            </h2>
            <label className="form-field">
              <span className="form-field__label">Version</span>
              <select className="input" data-testid="file-version" value={file.version} onChange={(event) => setVersion(Number(event.target.value))}>
                {versions.map((one) => (
                  <option key={one.number} value={one.number}>
                    v{one.number} {one.message}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <pre className="file-text" data-testid="file-text">
            {file.text}
          </pre>
        </section>
      )}
      {binding !== undefined && <AgainstGit pipelineId={pipelineId} binding={binding} />}
    </main>
  );
}
