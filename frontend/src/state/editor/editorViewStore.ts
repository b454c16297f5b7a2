/**
 * What the editor shows around the pipeline, apart from the pipeline itself: the open side
 * panel, the plan overlay, a version diff drawn instead of the canvas, and the preview's
 * records. None of it is part of the definition, so none of it is undoable or saved.
 */
import { create } from 'zustand';
import type { DefinitionDiff, PlanSummary, PreviewResult, Problem } from '../../api/types';
import type { DiffGraph } from './diff';
import { planMarks, type NodePlanMark } from '../shared/planOverlay';

export type SidePanel = 'inspector' | 'history' | 'plan' | 'preview' | 'tests' | 'runs';

export interface DiffView {
  fromLabel: string;
  toLabel: string;
  diff: DefinitionDiff;
  graph: DiffGraph;
}

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'failed';

export interface EditorViewState {
  panel: SidePanel;
  planEnabled: boolean;
  planStatus: LoadStatus;
  plan: PlanSummary | null;
  planMarks: Record<string, NodePlanMark>;
  planError: string | null;
  /** The editor revision the plan was computed for. */
  planRevision: number;

  diffView: DiffView | null;

  previewStatus: LoadStatus;
  preview: PreviewResult | null;
  previewError: string | null;
  /** Where the refused preview's problems are (a parameter the environment lacks names its node and field). */
  previewProblems: Problem[];
  previewRevision: number;
  /** The environment the last preview asked for (null: none); its answer says which it ran with. */
  previewEnvironment: string | null;

  setPanel: (panel: SidePanel) => void;
  /** An element was clicked: show it in the inspector, unless the preview is open (it shows the element's records). */
  revealInspector: () => void;
  setPlanEnabled: (enabled: boolean) => void;
  planLoading: () => void;
  planLoaded: (revision: number, plan: PlanSummary) => void;
  planFailed: (revision: number, message: string) => void;
  showDiff: (view: DiffView | null) => void;
  previewStarted: (environment: string | null) => void;
  previewFinished: (revision: number, result: PreviewResult) => void;
  previewFailed: (revision: number, message: string, problems?: Problem[]) => void;
  reset: () => void;
}

const initial = {
  panel: 'inspector' as SidePanel,
  planEnabled: false,
  planStatus: 'idle' as LoadStatus,
  plan: null,
  planMarks: {},
  planError: null,
  planRevision: 0,
  diffView: null,
  previewStatus: 'idle' as LoadStatus,
  preview: null,
  previewError: null,
  previewProblems: [] as Problem[],
  previewRevision: 0,
  previewEnvironment: null,
};

export const useEditorViewStore = create<EditorViewState>()((set) => ({
  ...initial,
  setPanel: (panel) => set({ panel }),
  revealInspector: () => set((state) => (state.panel === 'preview' || state.panel === 'inspector' ? {} : { panel: 'inspector' })),
  setPlanEnabled: (planEnabled) => set(planEnabled ? { planEnabled } : { planEnabled, planMarks: {} }),
  planLoading: () => set({ planStatus: 'loading' }),
  planLoaded: (planRevision, plan) => set({ planStatus: 'ready', plan, planMarks: planMarks(plan), planError: null, planRevision }),
  planFailed: (planRevision, planError) => set({ planStatus: 'failed', planError, planMarks: {}, planRevision }),
  showDiff: (diffView) => set({ diffView }),
  previewStarted: (previewEnvironment) => set({ previewStatus: 'loading', previewError: null, previewProblems: [], previewEnvironment }),
  previewFinished: (previewRevision, preview) => set({ previewStatus: 'ready', preview, previewError: null, previewProblems: [], previewRevision }),
  previewFailed: (previewRevision, previewError, previewProblems = []) =>
    set({ previewStatus: 'failed', previewError, previewProblems, previewRevision }),
  reset: () => set({ ...initial }),
}));
