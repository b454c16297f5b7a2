import '../styles/teams.css';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { git, messageOf, type GitBinding, type GitComparison } from '../api/teams';
import type { Pipeline } from '../api/types';
import { PipelineAsideNav } from '../pipelines/PipelineAsideNav';
import DiffText from './DiffText';

/** Keep the pipeline in a file of a repository: a bare repository's path in a granted location, or https. */
function BindForm({ pipeline, onBound }: { pipeline: Pipeline; onBound: (steps: string[]) => void }) {
  const [repository, setRepository] = useState('');
  const [branch, setBranch] = useState('main');
  const [path, setPath] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function bind(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      onBound((await git.bind(pipeline.id, repository.trim(), branch.trim(), path.trim())).steps);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  }
  const editable = pipeline.permissions.includes('edit');
  return (
    <form className="git-form" data-testid="git-bind-form" onSubmit={(event) => void bind(event)}>
      <p className="muted">Not kept in Git. Bind a repository: the studio commits every saved version there and pulls what others push.</p>
      <label className="form-field git-form__repository">
        <span className="form-field__label">Repository</span>
        <input className="input is-code" data-testid="git-repository" value={repository} placeholder="/srv/git/pipelines.git or https://…" onChange={(event) => setRepository(event.target.value)} />
      </label>
      <label className="form-field">
        <span className="form-field__label">Branch</span>
        <input className="input is-code" data-testid="git-branch" value={branch} onChange={(event) => setBranch(event.target.value)} />
      </label>
      <label className="form-field">
        <span className="form-field__label">File (optional)</span>
        <input className="input is-code" data-testid="git-path" value={path} placeholder="<name>.pipeline.yaml" onChange={(event) => setPath(event.target.value)} />
      </label>
      <button type="submit" className="button button--primary" data-testid="git-bind" disabled={!editable || !repository.trim() || busy}>
        {busy ? 'Binding…' : 'Bind'}
      </button>
      {!editable && <p className="muted">Binding needs edit on the pipeline.</p>}
      {error && <p className="error-text" data-testid="git-error">{error}</p>}
    </form>
  );
}

/** What the comparison says: the same file, a layout-only or a logic difference; during a conflict, never "the same". */
export function comparisonVerdict(comparison: GitComparison, conflict: boolean): string {
  if (conflict) {
    return comparison.diff
      ? 'In conflict: both sides changed since they last agreed (the difference is above); the whole files are below.'
      : 'In conflict, though both sides now hold the same file: take either side to end it.';
  }
  if (!comparison.diff) return 'the same file';
  return comparison.logic_changed ? 'the logic differs' : 'only the layout or comments differ';
}

function Comparison({ comparison, conflict }: { comparison: GitComparison | null; conflict: boolean }) {
  if (!comparison) return null;
  return (
    <section className="git-section" data-testid="git-comparison">
      <h2>Studio v{comparison.version} against Git {comparison.commit ? comparison.commit.slice(0, 7) : '(no commit)'}</h2>
      <p data-testid="git-verdict">{comparisonVerdict(comparison, conflict)}</p>
      {comparison.diff &&
        (conflict ? (
          <details>
            <summary>The files' whole diff</summary>
            <DiffText text={comparison.diff} testId="git-diff" />
          </details>
        ) : (
          <DiffText text={comparison.diff} testId="git-diff" />
        ))}
    </section>
  );
}

/** The binding: where the file is, how far both sides agree, pull, a conflict and its resolution. */
function Binding({ pipeline, binding, onChanged }: { pipeline: Pipeline; binding: GitBinding; onChanged: (steps: string[]) => void }) {
  const [comparison, setComparison] = useState<GitComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editable = pipeline.permissions.includes('edit');
  const compare = useCallback(() => {
    setComparison(null); // an answer for the binding as it was is not shown beside the binding as it is
    return git.compare(binding.id).then(setComparison, (failure: unknown) => setError(messageOf(failure)));
  }, [binding.id]);
  useEffect(() => {
    void compare();
  }, [compare, binding.synced_commit, binding.synced_version, binding.conflict]);
  async function act(action: () => Promise<{ steps: string[] }>) {
    setError(null);
    setBusy(true);
    try {
      onChanged((await action()).steps);
    } catch (failure) {
      setError(messageOf(failure).split('\n')[0]);
      onChanged([]);
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <section className="git-section" data-testid="git-binding">
        <dl className="git-facts">
          <dt>Repository</dt>
          <dd className="is-code" data-testid="git-binding-repository">{binding.repository}</dd>
          <dt>Branch</dt>
          <dd className="is-code">{binding.branch}</dd>
          <dt>File</dt>
          <dd className="is-code" data-testid="git-binding-path">{binding.path}</dd>
          <dt>Last agreed</dt>
          <dd data-testid="git-binding-synced">
            {binding.synced_commit ? `commit ${binding.synced_commit.slice(0, 7)} = v${binding.synced_version}` : 'never'}
          </dd>
        </dl>
        {binding.last_error && <p className="error-text">{binding.last_error}</p>}
        <div className="git-actions">
          <button type="button" className="button button--primary" data-testid="git-pull" disabled={!editable || busy} onClick={() => void act(() => git.pull(binding.id))}>
            Pull from Git
          </button>
          <button type="button" className="button" data-testid="git-compare" disabled={busy} onClick={() => void compare()}>
            Compare again
          </button>
          <button
            type="button"
            className="button"
            data-testid="git-unbind"
            disabled={!editable || busy}
            onClick={() => void act(async () => (await git.unbind(binding.id), { steps: ['no longer kept in Git (the repository keeps its commits)'] }))}
          >
            Stop keeping in Git
          </button>
        </div>
        {error && <p className="error-text" data-testid="git-error">{error}</p>}
      </section>
      {binding.conflict && (
        <section className="git-section git-conflict" data-testid="git-conflict">
          <h2>Conflict</h2>
          <p>The pipeline changed in the studio and in Git since they last agreed. Nothing was written on either side; choose which side wins (the other stays in its history).</p>
          <p className="muted">Lines marked − are Git's, lines marked + the studio's.</p>
          <DiffText text={binding.conflict} testId="git-conflict-diff" />
          <div className="git-actions">
            <button type="button" className="button" data-testid="git-take-git" disabled={!editable || busy} onClick={() => void act(() => git.resolve(binding.id, 'git'))}>
              Take Git's version
            </button>
            <button type="button" className="button" data-testid="git-take-studio" disabled={!editable || busy} onClick={() => void act(() => git.resolve(binding.id, 'studio'))}>
              Take the studio's version
            </button>
          </div>
        </section>
      )}
      <Comparison comparison={comparison} conflict={Boolean(binding.conflict)} />
    </>
  );
}

/** A pipeline's Git binding page: bind a repository, pull, see and resolve conflicts, compare the files. */
export function GitBindingPage({ pipelineId }: { pipelineId: number }) {
  const [pipeline, setPipeline] = useState<Pipeline | null>(null);
  const [binding, setBinding] = useState<GitBinding | null | undefined>(undefined);
  const [steps, setSteps] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const [found, bindings] = await Promise.all([api.getPipeline(pipelineId), git.bindings()]);
      setPipeline(found);
      setBinding(bindings.find((one) => one.pipeline === pipelineId) ?? null);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, [pipelineId]);
  useEffect(() => {
    void load();
  }, [load]);
  const changed = (done: string[]) => {
    setSteps(done);
    void load();
  };
  return (
    <main className="list-page git-page">
      <PipelineAsideNav pipelineId={pipelineId} name={pipeline?.name} current="git" />
      {error && <p className="error-text">{error}</p>}
      {pipeline && binding === null && <BindForm pipeline={pipeline} onBound={changed} />}
      {pipeline && binding && <Binding key={binding.id} pipeline={pipeline} binding={binding} onChanged={changed} />}
      {steps.length > 0 && (
        <ol className="git-steps" data-testid="git-steps">
          {steps.map((step, index) => (
            <li key={index}>{step}</li>
          ))}
        </ol>
      )}
    </main>
  );
}
