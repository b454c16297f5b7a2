import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { ApiError, api, withEnvironment } from '../api/client';
import type { Proof } from '../api/operations';
import { currentDefinition, mayDo, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { differenceSides, firstFailure, newTestCase, type CaseResult, type CheckedAssertion, type TestCase } from '../state/editor/testCases';
import { chosenEnvironment, useEnvironmentChoice, valuesText } from '../state/editor/environmentChoice';
import { problemLocation } from '../state/editor/problems';
import { useTestRunStore } from '../state/editor/testRunStore';
import { useCatalogStore } from '../state/shared/catalogStore';
import { graphToDefinition } from '../state/shared/definition';
import { formatRecord } from '../state/shared/format';
import { clampedWhole, readNumber } from '../state/shared/numberInput';
import { classNames } from '../ui/classNames';
import { TestCaseEditor } from './TestCaseEditor';

const selectEditor = (state: EditorState) => ({
  pipelineId: state.pipelineId,
  version: state.version,
  revision: state.revision,
  tests: state.settings.tests,
  settings: state.settings,
  nodes: state.nodes,
  edges: state.edges,
  mayRun: mayDo(state, 'run'),
});

/** Why the studio refused: each problem with where it is (a parameter the environment lacks names its node and field). */
function messageOf(error: unknown): string {
  if (error instanceof ApiError && error.problems.length) return error.problems.map((problem) => `${problemLocation(problem)}: ${problem.message}`).join('; ');
  return error instanceof Error ? error.message : String(error);
}

/** Run the editor's test cases (the draft, saved or not) and keep the results for the canvas. */
export async function runDraftTests(): Promise<void> {
  const state = useEditorStore.getState();
  const store = useTestRunStore.getState();
  if (state.pipelineId === null) {
    store.failed(state.revision, 'Save the pipeline first: its test cases run in its workspace.');
    return;
  }
  const environment = chosenEnvironment();
  store.started(environment);
  try {
    const run = await api.runTestCases(state.pipelineId, withEnvironment({ definition: currentDefinition(state) }, environment));
    useTestRunStore.getState().finished(state.revision, run.status, run.results as unknown as CaseResult[], run.error, run.environment ?? null);
  } catch (error) {
    useTestRunStore.getState().failed(state.revision, messageOf(error));
  }
}

function Rows({ title, rows, testId }: { title: string; rows: unknown[]; testId: string }) {
  return (
    <div className="difference__side" data-testid={testId}>
      <div className="difference__title">{title}</div>
      <ol className="record-list">
        {rows.length === 0 && <li className="muted">no record</li>}
        {rows.map((row, index) => (
          <li key={index}>{formatRecord(row)}</li>
        ))}
      </ol>
    </div>
  );
}

function Check({ check }: { check: CheckedAssertion }) {
  const sides = check.difference ? differenceSides(check.difference) : null;
  return (
    <li className={classNames('test-check', check.passed ? 'is-passed' : 'is-failed')} data-testid="test-check" data-node={check.node}>
      <span className="test-check__mark">{check.passed ? '✓' : '✗'}</span> {check.message}
      {sides && !check.passed && (
        <div className="difference" data-testid="test-difference">
          <Rows title={sides.left} rows={sides.leftRows} testId="difference-expected" />
          <Rows title={sides.right} rows={sides.rightRows} testId="difference-actual" />
        </div>
      )}
    </li>
  );
}

function CaseResultView({ result }: { result: CaseResult }) {
  const failure = firstFailure(result);
  const [all, setAll] = useState(false);
  const checks = all ? [...result.assertions, ...result.agreement] : failure ? [failure] : [];
  return (
    <section className={classNames('test-result', `is-${result.status}`)} data-testid="test-result" data-status={result.status} data-name={result.name}>
      <div className="test-section__head">
        <span className={classNames('status-pill', `status-${result.status}`)}>{result.status}</span>
        <strong>{result.name}</strong>
        <span className="muted">{result.modes.join(' + ')} · {(result.duration_s ?? 0).toFixed(2)} s</span>
      </div>
      {result.error && <p className="error-text">{result.error}</p>}
      {result.status === 'passed' && <p className="muted">{result.assertions.length} assertions held; the bounded and streaming runs agree.</p>}
      <ul className="test-checks">
        {checks.map((check, index) => (
          <Check key={index} check={check} />
        ))}
      </ul>
      {result.assertions.length + result.agreement.length > 1 && (
        <button type="button" className="link-button" onClick={() => setAll(!all)}>
          {all ? 'only the first failure' : 'every check'}
        </button>
      )}
    </section>
  );
}

const FINAL = new Set(['passed', 'failed', 'error', 'inconclusive']);

/** The server's bounds of a proof's seed (studio/testcases/api.py): it fits 31 bits. */
const PROOF_SEED = { integer: true, min: 0, max: 2 ** 31 - 1 };

/** The exactly-once proof of the saved version: started here, its verdict and seed shown, its history listed. */
function ProofSection({ pipelineId, version, cases, mayRun }: { pipelineId: number; version: number; cases: string[]; mayRun: boolean }) {
  const [proofs, setProofs] = useState<Proof[]>([]);
  const [testCase, setTestCase] = useState('');
  const [kills, setKills] = useState(10);
  const [seed, setSeed] = useState('');
  const [error, setError] = useState<string | null>(null);
  const active = proofs.find((proof) => !FINAL.has(proof.status));

  useEffect(() => {
    let cancelled = false;
    const load = () => api.listProofs(pipelineId, version).then((list) => !cancelled && setProofs(list), () => undefined);
    void load();
    const timer = window.setInterval(() => void load(), 3000);
    return () => {
      cancelled = true;
      window.clearInterval(timer);
    };
  }, [pipelineId, version]);

  async function prove() {
    setError(null);
    const chosen = seed ? readNumber(seed, PROOF_SEED) : null;
    if (chosen && chosen.value === null) {
      setError(`seed: ${chosen.problem}`);
      return;
    }
    try {
      const proof = await api.startProof(pipelineId, { version, test_case: testCase || cases[0], kills, ...(chosen ? { seed: chosen.value } : {}) });
      setProofs((list) => [proof, ...list]);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <section className="proof-section" data-testid="proof-section">
      <h3>Exactly-once proof of v{version}</h3>
      <p className="muted">Runs a test case on Spark while its tasks are killed and restored (once at another parallelism); every sink must write what a failure-free run writes.</p>
      <div className="test-assertion__row">
        <select className="input" aria-label="test case to prove" value={testCase || cases[0] || ''} onChange={(event) => setTestCase(event.target.value)}>
          {cases.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
        <label className="toolbar-field">
          <span>kills</span>
          <input className="input input--narrow" type="number" min={1} max={50} value={kills} onChange={(event) => setKills(clampedWhole(event.target.value, 1, 50))} />
        </label>
        <input className="input input--narrow" placeholder="seed" aria-label="seed" value={seed} onChange={(event) => setSeed(event.target.value.replace(/\D/g, ''))} />
        <button type="button" className="button" data-testid="proof-start" disabled={!mayRun || cases.length === 0 || active !== undefined} onClick={() => void prove()}>
          {active ? `Proof ${active.status}…` : 'Prove'}
        </button>
      </div>
      {error && <p className="error-text">{error}</p>}
      <ol className="proof-list">
        {proofs.map((proof) => (
          <li key={proof.id} data-testid="proof-row" data-status={proof.status}>
            <span className={classNames('status-pill', `status-${proof.status}`)}>{proof.status}</span> {proof.test_case} · seed <code>{proof.seed}</code> · {proof.kills} kills
            <div className="muted">{proof.message}</div>
            {proof.status === 'failed' && (
              <button type="button" className="link-button" onClick={() => { setSeed(String(proof.seed)); setKills(proof.kills); setTestCase(proof.test_case); }}>
                replay this seed
              </button>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The pipeline's test cases: edit them (saved with the pipeline), run them, see what failed where. */
export function TestCasesPanel() {
  const { pipelineId, version, revision, tests, settings, nodes, edges, mayRun } = useEditorStore(useShallow(selectEditor));
  const run = useTestRunStore(useShallow((state) => ({ status: state.status, results: state.results, error: state.error, verdict: state.verdict, revision: state.revision, environment: state.environment })));
  const chosen = useEnvironmentChoice((state) => state.selected);
  const operators = useCatalogStore((state) => state.byType);
  const cases: TestCase[] = tests ?? [];
  const [selected, setSelected] = useState(0);
  const index = Math.min(selected, Math.max(cases.length - 1, 0));
  const testCase = cases[index];
  const definitionNodes = graphToDefinition(settings, nodes, edges).nodes;
  const sources = definitionNodes.filter((node) => operators[node.type]?.category === 'source').map((node) => node.id);
  const setCases = (next: TestCase[]) => useEditorStore.getState().updateSettings({ tests: next.length ? next : undefined });

  return (
    <div className="inspector-body tests-panel" data-testid="tests-panel">
      <p className="muted">Test cases are part of the pipeline: saving makes them part of the next version. Each runs bounded and streaming, both must pass and agree.</p>
      <div className="test-assertion__row">
        <select className="input" aria-label="test case" data-testid="test-case-select" value={index} onChange={(event) => setSelected(Number(event.target.value))} disabled={cases.length === 0}>
          {cases.length === 0 && <option>no test case yet</option>}
          {cases.map((entry, at) => (
            <option key={at} value={at}>
              {entry.name}
            </option>
          ))}
        </select>
        <button type="button" className="button" data-testid="test-case-new" onClick={() => { setCases([...cases, newTestCase(sources, cases.map((entry) => entry.name))]); setSelected(cases.length); }}>
          + test case
        </button>
        <button type="button" className="button button--primary" data-testid="tests-run" disabled={cases.length === 0 || run.status === 'running' || !mayRun} onClick={() => void runDraftTests()}>
          {run.status === 'running' ? 'Running…' : 'Run tests'}
        </button>
      </div>
      {testCase && (
        <>
          <div className="test-assertion__row">
            <input className="input" aria-label="test case name" data-testid="test-case-name" value={testCase.name} onChange={(event) => setCases(cases.map((entry, at) => (at === index ? { ...entry, name: event.target.value } : entry)))} />
            <button type="button" className="link-button danger" onClick={() => setCases(cases.filter((_, at) => at !== index))}>
              delete
            </button>
          </div>
          <TestCaseEditor testCase={testCase} nodes={definitionNodes} onChange={(next) => setCases(cases.map((entry, at) => (at === index ? next : entry)))} />
        </>
      )}
      {(run.status === 'ready' || run.status === 'failed') && (
        <div className="test-results" data-testid="test-results" data-verdict={run.verdict ?? 'none'}>
          <h3>
            Results{' '}
            <span className="muted values-note" data-testid="test-run-environment" data-environment={run.environment ?? ''}>
              {valuesText(run.environment)}
            </span>
            {run.revision !== revision && <span className="muted is-stale"> · the pipeline changed since</span>}
            {run.environment !== chosen && <span className="muted is-stale"> · another environment is chosen now</span>}
          </h3>
          {run.error && <p className="error-text" data-testid="test-run-error">{run.error}</p>}
          {run.results.map((result) => (
            <CaseResultView key={result.name} result={result} />
          ))}
        </div>
      )}
      {pipelineId !== null && version !== null && (
        <ProofSection pipelineId={pipelineId} version={version} cases={cases.map((entry) => entry.name)} mayRun={mayRun} />
      )}
    </div>
  );
}
