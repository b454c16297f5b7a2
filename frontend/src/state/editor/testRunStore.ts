/**
 * The editor's latest run of its test cases: what the canvas marks per node and the Tests panel
 * shows. Not part of the definition, so not undoable and not saved (the studio keeps the run).
 */
import { create } from 'zustand';
import type { CaseResult, NodeVerdict } from './testCases';
import { nodeVerdicts } from './testCases';

export type TestRunStatus = 'idle' | 'running' | 'ready' | 'failed';

export interface TestRunState {
  status: TestRunStatus;
  /** passed, failed or error: the run's verdict (with `results`), null before one. */
  verdict: string | null;
  results: CaseResult[];
  /** A budget overrun, or why the studio refused the run. */
  error: string | null;
  /** The editor revision the results were computed for. */
  revision: number;
  /** The environment whose values the run asked for (null: none); once it ran, the one the studio kept it with. */
  environment: string | null;
  marks: Record<string, NodeVerdict>;
  started: (environment: string | null) => void;
  /** `environment`: the one the kept run says it ran with (left as asked when not given). */
  finished: (revision: number, verdict: string, results: CaseResult[], error: string | null, environment?: string | null) => void;
  failed: (revision: number, message: string) => void;
  reset: () => void;
}

const initial = { status: 'idle' as TestRunStatus, verdict: null, results: [] as CaseResult[], error: null, revision: 0, environment: null, marks: {} };

export const useTestRunStore = create<TestRunState>()((set) => ({
  ...initial,
  started: (environment) => set({ status: 'running', error: null, environment }),
  finished: (revision, verdict, results, error, environment) =>
    set((state) => ({ status: 'ready', verdict, results, error: error || null, revision, marks: nodeVerdicts(results), environment: environment === undefined ? state.environment : environment })),
  failed: (revision, error) => set({ status: 'failed', error, revision, marks: {}, results: [], verdict: null }),
  reset: () => set({ ...initial }),
}));
