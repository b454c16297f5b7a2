/**
 * The editor's state: the pipeline being edited as React Flow nodes and edges plus its
 * settings, the latest validation result, and where saving stands.
 *
 * Two revision counters tell changes apart: `revision` counts changes that can change the
 * validity of the definition (nodes, edges, params, settings) and drives live validation;
 * `layoutRevision` counts moves. The pipeline is dirty when either moved past what was saved.
 * Selection and measured sizes are neither.
 */
import { applyEdgeChanges, applyNodeChanges, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import { create } from 'zustand';
import type { Operator, Pipeline, PipelineDefinition, Problem } from '../api/types';
import { operatorOf } from './catalogStore';
import { definitionToGraph, graphToDefinition, newPipelineSettings, type PipelineSettings } from './definition';
import type { OperatorNode, PipelineEdge, PipelineEdgeData } from './graph';
import { connectionProblem, defaultEdgeData, freePosition, nextEdgeId, nextNodeId, type Point } from './graphEdits';
import { indexProblems, NO_PROBLEMS, type ProblemIndex } from './problems';

export type ValidationState = 'idle' | 'checking' | 'valid' | 'invalid' | 'unavailable';
export type SaveState = 'new' | 'saved' | 'saving' | 'failed';

export interface EditorState {
  pipelineId: number | null;
  version: number | null;
  /** Bumped when another pipeline replaces the graph (new or loaded): the canvas re-fits. */
  graphEpoch: number;
  settings: PipelineSettings;
  nodes: OperatorNode[];
  edges: PipelineEdge[];

  revision: number;
  layoutRevision: number;
  savedRevision: number;
  savedLayoutRevision: number;

  problems: ProblemIndex;
  validation: ValidationState;
  /** The revision the current `problems` were computed for. */
  validatedRevision: number;
  validationMessage: string | null;

  saveState: SaveState;
  saveMessage: string | null;
  /** A short note about the last edit that was refused (a connection, say). */
  notice: string | null;

  newPipeline: (name?: string) => void;
  loadPipeline: (pipeline: Pipeline) => void;
  onNodesChange: (changes: NodeChange<OperatorNode>[]) => void;
  onEdgesChange: (changes: EdgeChange<PipelineEdge>[]) => void;
  onConnect: (connection: Connection) => void;
  addOperatorNode: (operator: Operator, position?: Point) => string;
  updateEdgeData: (edgeId: string, patch: Partial<PipelineEdgeData>) => void;
  updateSettings: (patch: Partial<PipelineSettings>) => void;
  setCheckpointInterval: (intervalMs: number) => void;
  select: (element: { node?: string; edge?: string } | null) => void;

  validationStarted: (revision: number) => void;
  /** `valid` is the server's verdict; by default "no problems". */
  validationFinished: (revision: number, problems: Problem[], valid?: boolean) => void;
  validationUnavailable: (revision: number, message: string) => void;

  saveStarted: () => void;
  saveSucceeded: (pipeline: Pipeline, savedRevision: number, savedLayoutRevision: number) => void;
  saveFailed: (message: string, problems?: Problem[]) => void;
  dismissNotice: () => void;
}

/** The definition as it would be saved now. */
export function currentDefinition(state: Pick<EditorState, 'settings' | 'nodes' | 'edges'>): PipelineDefinition {
  return graphToDefinition(state.settings, state.nodes, state.edges);
}

export function isDirty(state: Pick<EditorState, 'revision' | 'layoutRevision' | 'savedRevision' | 'savedLayoutRevision'>): boolean {
  return state.revision !== state.savedRevision || state.layoutRevision !== state.savedLayoutRevision;
}

/** Run is allowed only for a definition the server called valid at its current revision. */
export function canRun(state: Pick<EditorState, 'validation' | 'validatedRevision' | 'revision'>): boolean {
  return state.validation === 'valid' && state.validatedRevision === state.revision;
}

const SEMANTIC_NODE_CHANGES = new Set(['add', 'remove', 'replace']);

function freshState() {
  return {
    pipelineId: null,
    version: null,
    settings: newPipelineSettings(),
    nodes: [] as OperatorNode[],
    edges: [] as PipelineEdge[],
    revision: 1,
    layoutRevision: 0,
    savedRevision: 0,
    savedLayoutRevision: 0,
    problems: NO_PROBLEMS,
    validation: 'idle' as ValidationState,
    validatedRevision: 0,
    validationMessage: null,
    saveState: 'new' as SaveState,
    saveMessage: null,
    notice: null,
  };
}

export const useEditorStore = create<EditorState>()((set, get) => ({
  ...freshState(),
  graphEpoch: 0,

  newPipeline: (name) =>
    set({ ...freshState(), settings: newPipelineSettings(name), graphEpoch: get().graphEpoch + 1 }),

  loadPipeline: (pipeline) => {
    const graph = definitionToGraph(pipeline.definition);
    const revision = get().revision + 1;
    const layoutRevision = get().layoutRevision + 1;
    set({
      ...freshState(),
      pipelineId: pipeline.id,
      version: pipeline.version,
      settings: { ...graph.settings, name: pipeline.name || graph.settings.name },
      nodes: graph.nodes,
      edges: graph.edges,
      revision,
      layoutRevision,
      savedRevision: revision,
      savedLayoutRevision: layoutRevision,
      saveState: 'saved',
      graphEpoch: get().graphEpoch + 1,
    });
  },

  onNodesChange: (changes) => {
    const semantic = changes.some((change) => SEMANTIC_NODE_CHANGES.has(change.type));
    const moved = changes.some((change) => change.type === 'position' && change.position);
    set((state) => ({
      nodes: applyNodeChanges(changes, state.nodes),
      revision: semantic ? state.revision + 1 : state.revision,
      layoutRevision: moved ? state.layoutRevision + 1 : state.layoutRevision,
    }));
  },

  onEdgesChange: (changes) => {
    const semantic = changes.some((change) => SEMANTIC_NODE_CHANGES.has(change.type));
    set((state) => ({
      edges: applyEdgeChanges(changes, state.edges),
      revision: semantic ? state.revision + 1 : state.revision,
    }));
  },

  onConnect: (connection) => {
    const { edges, nodes } = get();
    const typeOf = (id: string) => nodes.find((node) => node.id === id)?.data.type;
    const operatorOfNode = (id: string) => {
      const type = typeOf(id);
      return type ? operatorOf(type) : undefined;
    };
    const problem = connectionProblem(connection, edges, operatorOfNode);
    if (problem) {
      set({ notice: problem });
      return;
    }
    const edge: PipelineEdge = {
      id: nextEdgeId(edges.map((existing) => existing.id)),
      type: 'pipeline',
      source: connection.source,
      target: connection.target,
      data: defaultEdgeData(operatorOfNode(connection.target)),
    };
    set((state) => ({ edges: [...state.edges, edge], revision: state.revision + 1, notice: null }));
  },

  addOperatorNode: (operator, position) => {
    const { nodes } = get();
    const id = nextNodeId(operator.type, nodes.map((node) => node.id));
    const node: OperatorNode = {
      id,
      type: 'operator',
      position:
        position ??
        freePosition(
          operator.category,
          nodes.map((existing) => ({ ...existing.position, category: operatorOf(existing.data.type)?.category })),
        ),
      data: { type: operator.type, params: {} },
      selected: true,
    };
    set((state) => ({
      nodes: [...state.nodes.map((existing) => (existing.selected ? { ...existing, selected: false } : existing)), node],
      edges: state.edges.map((edge) => (edge.selected ? { ...edge, selected: false } : edge)),
      revision: state.revision + 1,
    }));
    return id;
  },

  updateEdgeData: (edgeId, patch) =>
    set((state) => ({
      edges: state.edges.map((edge) =>
        edge.id === edgeId ? { ...edge, data: { ...(edge.data as PipelineEdgeData), ...patch } } : edge,
      ),
      revision: state.revision + 1,
    })),

  updateSettings: (patch) => set((state) => ({ settings: { ...state.settings, ...patch }, revision: state.revision + 1 })),

  setCheckpointInterval: (intervalMs) =>
    set((state) => ({
      settings: { ...state.settings, checkpointing: { ...state.settings.checkpointing, interval_ms: intervalMs } },
      revision: state.revision + 1,
    })),

  select: (element) =>
    set((state) => ({
      nodes: state.nodes.map((node) => {
        const selected = node.id === element?.node;
        return node.selected === selected ? node : { ...node, selected };
      }),
      edges: state.edges.map((edge) => {
        const selected = edge.id === element?.edge;
        return edge.selected === selected ? edge : { ...edge, selected };
      }),
    })),

  validationStarted: (revision) => {
    if (revision === get().revision) set({ validation: 'checking' });
  },

  validationFinished: (revision, problems, valid = problems.length === 0) => {
    if (revision !== get().revision) return; // stale: a newer validation is on its way
    set({
      problems: indexProblems(problems),
      validation: valid ? 'valid' : 'invalid',
      validatedRevision: revision,
      validationMessage: null,
    });
  },

  validationUnavailable: (revision, message) => {
    if (revision !== get().revision) return;
    set({ validation: 'unavailable', validatedRevision: revision, validationMessage: message });
  },

  saveStarted: () => set({ saveState: 'saving', saveMessage: null }),

  saveSucceeded: (pipeline, savedRevision, savedLayoutRevision) =>
    set({
      pipelineId: pipeline.id,
      version: pipeline.version,
      savedRevision,
      savedLayoutRevision,
      saveState: 'saved',
      saveMessage: null,
    }),

  saveFailed: (message, problems) => {
    const update: Partial<EditorState> = { saveState: 'failed', saveMessage: message };
    if (problems && problems.length > 0) {
      update.problems = indexProblems(problems);
      update.validation = 'invalid';
      update.validatedRevision = get().revision;
    }
    set(update);
  },

  dismissNotice: () => set({ notice: null }),
}));
