// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useEditorStore } from '../state/editor/editorStore';
import { useEditorViewStore } from '../state/editor/editorViewStore';
import { STORAGE_PREFIX, useEnvironmentChoice } from '../state/editor/environmentChoice';
import { useTestRunStore } from '../state/editor/testRunStore';
import { sampleDefinition } from '../testing/fixtures';
import { EnvironmentPicker } from './EnvironmentPicker';
import { runPipeline } from './pipelineActions';
import { PreviewPanel } from './PreviewPanel';
import { runDraftTests } from './TestCasesPanel';
import { upgradeWithState } from './upgradeWithState';
import { useLiveValidation, VALIDATION_DEBOUNCE_MS } from './useLiveValidation';

const ENVIRONMENTS = [
  { id: 1, name: 'dev', position: 0, description: '', parameters: { factor: 2 }, requires_approval: false, approval_role: 'operator', owner: 'ada', mine: true },
  { id: 2, name: 'prod', position: 1, description: '', parameters: { factor: 5 }, requires_approval: true, approval_role: 'operator', owner: 'ada', mine: true },
];

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

/** A fake studio: `answers` maps "METHOD path" to [status, body]; every request is recorded. */
function studio(answers: Record<string, [number, unknown]>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', vi.fn(async (path: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const [status, body] = answers[`${method} ${path}`] ?? [404, { detail: `no ${method} ${path} in this test` }];
    return new Response(JSON.stringify(body), { status });
  }));
  return calls;
}

const bodiesOf = (calls: Call[], method: string, path: string) => calls.filter((call) => call.method === method && call.path === path).map((call) => call.body);

function Validating() {
  useLiveValidation(true);
  return null;
}

describe('the editor environment picker', () => {
  beforeEach(() => {
    window.localStorage.clear();
    useEnvironmentChoice.setState({ pipelineId: null, selected: null, choices: null, loadError: null, dropped: null });
    useEditorStore.getState().loadPipeline({ id: 5, name: 'scaled', version: 1, definition: sampleDefinition() } as never);
    useEnvironmentChoice.getState().open(5);
    useEditorViewStore.getState().reset();
    useTestRunStore.getState().reset();
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('offers none and the environments the user may use, and remembers the one chosen for this pipeline', async () => {
    const calls = studio({ 'GET /api/environments?usable=true&pipeline=5': [200, ENVIRONMENTS] });
    render(<EnvironmentPicker />);
    const picker = screen.getByLabelText('Environment') as HTMLSelectElement;
    await waitFor(() => expect([...picker.options].map((option) => option.text)).toEqual(['none', 'dev', 'prod']));
    expect(calls.map((call) => call.path)).toEqual(['/api/environments?usable=true&pipeline=5']);
    expect(picker.value).toBe('');
    picker.focus();
    fireEvent.change(picker, { target: { value: 'dev' } });
    expect(useEnvironmentChoice.getState().selected).toBe('dev');
    expect(window.localStorage.getItem(`${STORAGE_PREFIX}5`)).toBe('dev');
    expect(picker.title).toBe("Validation, preview, tests, Run and Deploy use dev's values: factor = 2.");
    fireEvent.change(picker, { target: { value: 'prod' } });
    expect(picker.title).toBe("Validation, preview, tests, Run and Deploy use prod's values: factor = 5. Run starts only a version "
      + 'promoted to prod (it asks for approval).');
  });

  it('says so when the remembered environment is not the user’s any more, and uses none', async () => {
    window.localStorage.setItem(`${STORAGE_PREFIX}6`, 'staging');
    useEnvironmentChoice.getState().open(6);
    studio({ 'GET /api/environments?usable=true&pipeline=5': [200, ENVIRONMENTS] });
    render(<EnvironmentPicker />);
    await waitFor(() => expect(useEditorStore.getState().notice).toBe('Environment staging is not yours to use any more: the editor uses none.'));
    expect((screen.getByLabelText('Environment') as HTMLSelectElement).value).toBe('');
    expect(useEnvironmentChoice.getState().dropped).toBeNull(); // said once, not on every visit
  });

  it('runs the preview with the chosen environment and shows whose values it ran with', async () => {
    useEnvironmentChoice.getState().choose('dev');
    const calls = studio({ 'POST /api/preview': [200, { environment: 'dev', status: 'FINISHED', nodes: { gen: { records: [0, 2], count: 2 } } }] });
    render(<PreviewPanel />);
    expect(screen.getByTestId('preview-will-use').textContent).toBe("Runs with environment dev's values (the header's Environment).");
    fireEvent.click(screen.getByTestId('preview-run'));
    await waitFor(() => expect(screen.getByTestId('preview-environment').textContent).toBe("with environment dev's values"));
    expect(bodiesOf(calls, 'POST', '/api/preview')[0]).toMatchObject({ environment: 'dev', pipeline: 5 });
    act(() => useEnvironmentChoice.getState().choose(null));
    expect(screen.getByTestId('preview-status').textContent).toContain('another environment is chosen now');
  });

  it('lists each parameter the environment lacks where it is used when the preview is refused', async () => {
    useEnvironmentChoice.getState().choose('dev');
    const problem = { node: 'gen', edge: null, field: 'params.count', message: "unknown parameter 'count': environment 'dev' does not define it (it defines factor)" };
    studio({ 'POST /api/preview': [400, { detail: problem.message, errors: [problem] }] });
    render(<PreviewPanel />);
    fireEvent.click(screen.getByTestId('preview-run'));
    const refusal = await screen.findByTestId('preview-refusal');
    expect(refusal.textContent).toContain("The preview did not run with environment dev's values:");
    expect(screen.getByTestId('preview-problem').textContent).toBe(
      "node gen · params.count unknown parameter 'count': environment 'dev' does not define it (it defines factor)");
  });

  it('sends the chosen environment with test runs, Run and Deploy, and none when none is chosen', async () => {
    const run = { id: 9, pipeline: 5, mode: 'streaming', status: 'RUNNING' };
    const calls = studio({
      'POST /api/pipelines/5/test-runs': [201, { status: 'passed', results: [], error: '', environment: 'prod', parameters: { factor: 5 } }],
      'POST /api/pipelines/5/runs': [201, { id: 10, status: 'CREATED' }],
      'POST /api/runs/9/stop': [200, { request_id: 'r1' }],
      'GET /api/runs/9/savepoints/r1': [200, { status: 'COMPLETED', checkpoint_pk: 44, checkpoint_id: 3 }],
    });
    useEditorStore.setState({ savedRevision: useEditorStore.getState().revision, savedLayoutRevision: useEditorStore.getState().layoutRevision });
    useEnvironmentChoice.getState().choose('prod');
    await runDraftTests();
    expect(useTestRunStore.getState().environment).toBe('prod');
    await runPipeline();
    await upgradeWithState(run as never, 1, false, () => {}, 'prod');
    useEnvironmentChoice.getState().choose(null);
    await runPipeline();
    await upgradeWithState(run as never, 1, false);

    expect(bodiesOf(calls, 'POST', '/api/pipelines/5/test-runs')[0]).toMatchObject({ environment: 'prod' });
    const starts = bodiesOf(calls, 'POST', '/api/pipelines/5/runs');
    expect(starts.map((body) => body?.environment)).toEqual(['prod', 'prod', undefined, undefined]);
    expect(starts[1]).toMatchObject({ restore_from: { pk: 44 }, version: 1 });
  });

  it('validates with the chosen environment, again when it changes, and never keeps the verdict about another', async () => {
    vi.useFakeTimers();
    const calls = studio({ 'POST /api/pipelines/validate': [200, { valid: true, errors: [], warnings: [] }] });
    render(<Validating />);
    await act(async () => vi.advanceTimersByTimeAsync(VALIDATION_DEBOUNCE_MS + 10));
    expect(useEditorStore.getState().validation).toBe('valid');

    const problem = { node: 'gen', edge: null, field: 'params.count', message: "unknown parameter 'count': environment 'dev' does not define it (it defines factor)" };
    const later = studio({ 'POST /api/pipelines/validate': [200, { valid: false, errors: [problem], warnings: [] }] });
    act(() => useEnvironmentChoice.getState().choose('dev'));
    expect(useEditorStore.getState().validation).toBe('checking'); // Run waits for dev's verdict
    await act(async () => vi.advanceTimersByTimeAsync(VALIDATION_DEBOUNCE_MS + 10));
    expect(useEditorStore.getState().validation).toBe('invalid');
    expect(useEditorStore.getState().problems.byNode.gen?.[0].message).toBe(problem.message);
    expect(bodiesOf(calls, 'POST', '/api/pipelines/validate')[0]).not.toHaveProperty('environment');
    expect(bodiesOf(later, 'POST', '/api/pipelines/validate')).toEqual([expect.objectContaining({ environment: 'dev', pipeline: 5 })]);
  });
});
