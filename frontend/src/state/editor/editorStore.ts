/**
 * The editor's state: the pipeline being edited as React Flow nodes and edges plus its
 * settings, the latest validation result, and where saving stands.
 *
 * Two revision counters tell changes apart: `revision` counts changes that can change the
 * validity of the definition (nodes, edges, params, settings) and drives live validation;
 * `layoutRevision` counts moves. The pipeline is dirty when either moved past what was saved.
 * Selection and measured sizes are neither.
 *
 * Every edit of nodes, edges or settings records the state before it in `history` (see
 * history.ts), whichever way it came: React Flow changes, store actions, paste, layout,
 * restoring a version. Undo and redo swap whole snapshots and count as edits for validation.
 */
import { applyEdgeChanges, applyNodeChanges, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import { create } from 'zustand';
import type { Operator, Pipeline, PipelineDefinition, Problem } from '../../api/types';
import { operatorOf } from '../shared/catalogStore';
import { definitionToGraph, graphToDefinition, newPipelineSettings, type PipelineSettings } from '../shared/definition';
import type { OperatorNode, OperatorNodeData, PipelineEdge, PipelineEdgeData } from '../shared/graph';
import { copySelection, pasteElements, PASTE_OFFSET, type Clipboard } from './clipboard';
import { connectionProblem, defaultEdgeData, freePosition, nextEdgeId, nextNodeId, NODE_FOOTPRINT, type Point } from './graphEdits';
import { EMPTY_HISTORY, record, step, type Direction, type History, type Snapshot } from './history';
import { autoLayout as layoutPositions } from '../shared/layout';
import { indexProblems, NO_PROBLEMS, type ProblemIndex } from './problems';

export type ValidationState = 'idle' | 'checking' | 'valid' | 'invalid' | 'unavailable';
export type SaveState = 'new' | 'saved' | 'saving' | 'failed';

export interface EditorState {
  pipelineId: number | null;
  version: number | null;
  /** What the user may do with the saved pipeline (view, edit, run, own); null: a new one, anything. */
  permissions: string[] | null;
  owner: string | null;
  /** The user's team role on the saved pipeline and the team it comes from (null: none; see the API's Pipeline). */
  role: string | null;
  roleTeam: string | null;
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
  /** What the server found allowed but likely wrong (a file source matching no file yet); never blocks Run. */
  warnings: Problem[];
  validation: ValidationState;
  /** The revision the current `problems` were computed for. */
  validatedRevision: number;
  validationMessage: string | null;

  saveState: SaveState;
  saveMessage: string | null;
  /** A short note about the last edit that was refused (a connection, say). */
  notice: string | null;

  history: History;
  clipboard: Clipboard | null;
  /** Pastes since the last copy: each one lands a step further from the original. */
  pasteCount: number;

  newPipeline: (name?: string) => void;
  loadPipeline: (pipeline: Pipeline) => void;
  onNodesChange: (changes: NodeChange<OperatorNode>[]) => void;
  onEdgesChange: (changes: EdgeChange<PipelineEdge>[]) => void;
  onConnect: (connection: Connection) => void;
  addOperatorNode: (operator: Operator, position?: Point) => string;
  updateEdgeData: (edgeId: string, patch: Partial<PipelineEdgeData>) => void;
  /** Change a node's data; edits with the same `historyKey` in a quick row are one undo step. */
  updateNodeData: (nodeId: string, update: (data: OperatorNodeData) => OperatorNodeData, historyKey?: string) => void;
  updateSettings: (patch: Partial<PipelineSettings>) => void;
  setCheckpointInterval: (intervalMs: number) => void;
  select: (element: { node?: string; edge?: string } | null) => void;
  selectAll: () => void;

  undo: () => void;
  redo: () => void;
  copy: () => boolean;
  paste: () => boolean;
  duplicate: () => boolean;
  deleteSelection: () => void;
  /** Lay the whole graph out left to right (dagre). */
  autoLayout: () => void;
  /** Replace the graph and settings by a definition (restore a version, import a file), as one undoable edit. */
  replaceDefinition: (definition: PipelineDefinition) => void;

  validationStarted: (revision: number) => void;
  /** `valid` is the server's verdict; by default "no problems". */
  validationFinished: (revision: number, problems: Problem[], valid?: boolean, warnings?: Problem[]) => void;
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

/** Whether the signed-in user may do `action` ("edit", "run") with this pipeline. */
export function mayDo(state: Pick<EditorState, 'permissions'>, action: string): boolean {
  return state.permissions === null || state.permissions.includes(action) || state.permissions.includes('own');
}

export function isDirty(state: Pick<EditorState, 'revision' | 'layoutRevision' | 'savedRevision' | 'savedLayoutRevision'>): boolean {
  return state.revision !== state.savedRevision || state.layoutRevision !== state.savedLayoutRevision;
}

/** Run is allowed only for a definition the server called valid at its current revision. */
export function canRun(state: Pick<EditorState, 'validation' | 'validatedRevision' | 'revision'>): boolean {
  return state.validation === 'valid' && state.validatedRevision === state.revision;
}

const SEMANTIC_NODE_CHANGES = new Set(['add', 'remove', 'replace']);

export function snapshotOf(state: Pick<EditorState, 'settings' | 'nodes' | 'edges'>): Snapshot {
  return { settings: state.settings, nodes: state.nodes, edges: state.edges };
}

/**
 * The history key of a batch of React Flow node changes, or undefined when the batch is no
 * edit (selection, measuring, the end of a drag). A drag records once, when it starts.
 */
export function nodeChangesHistoryKey(changes: NodeChange<OperatorNode>[], nodes: OperatorNode[]): string | null | undefined {
  if (changes.some((change) => change.type === 'add' || change.type === 'remove')) return null;
  const replaced = changes.filter((change) => change.type === 'replace').map((change) => change.id);
  if (replaced.length > 0) return `replace:${replaced.join(',')}`;
  const moves = changes.filter((change) => change.type === 'position' && change.position);
  if (moves.length === 0) return undefined;
  const wasDragging = (id: string) => nodes.find((node) => node.id === id)?.dragging === true;
  const startsDrag = moves.some((change) => change.type === 'position' && change.dragging && !wasDragging(change.id));
  if (startsDrag) return null;
  const continuesDrag = moves.some((change) => change.type === 'position' && (change.dragging || wasDragging(change.id)));
  return continuesDrag ? undefined : 'nudge';
}

function deselected<T extends { selected?: boolean }>(items: T[]): T[] {
  return items.map((item) => (item.selected ? { ...item, selected: false } : item));
}

/**
 * Undo or redo as one edit: the other stack's snapshot replaces the graph and settings. With
 * nothing that way it returns `state` itself, which zustand treats as no change at all.
 */
function travel(state: EditorState, direction: Direction): EditorState | Partial<EditorState> {
  const taken = step(state.history, snapshotOf(state), direction);
  if (!taken) return state;
  return {
    ...taken.snapshot,
    history: taken.history,
    revision: state.revision + 1,
    layoutRevision: state.layoutRevision + 1,
    notice: null,
  };
}

function freshState() {
  return {
    pipelineId: null,
    version: null,
    permissions: null as string[] | null,
    owner: null as string | null,
    role: null as string | null,
    roleTeam: null as string | null,
    settings: newPipelineSettings(),
    nodes: [] as OperatorNode[],
    edges: [] as PipelineEdge[],
    revision: 1,
    layoutRevision: 0,
    savedRevision: 0,
    savedLayoutRevision: 0,
    problems: NO_PROBLEMS,
    warnings: [] as Problem[],
    validation: 'idle' as ValidationState,
    validatedRevision: 0,
    validationMessage: null,
    saveState: 'new' as SaveState,
    saveMessage: null,
    notice: null,
    history: EMPTY_HISTORY,
    pasteCount: 0,
  };
}

export const useEditorStore = create<EditorState>()((set, get) => ({
  ...freshState(),
  graphEpoch: 0,
  clipboard: null,

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
      permissions: pipeline.permissions ?? null,
      owner: pipeline.owner ?? null,
      role: pipeline.role ?? null,
      roleTeam: pipeline.role_team ?? null,
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
    set((state) => {
      const key = nodeChangesHistoryKey(changes, state.nodes);
      return {
        nodes: applyNodeChanges(changes, state.nodes),
        revision: semantic ? state.revision + 1 : state.revision,
        layoutRevision: moved ? state.layoutRevision + 1 : state.layoutRevision,
        history: key === undefined ? state.history : record(state.history, snapshotOf(state), key),
      };
    });
  },

  onEdgesChange: (changes) => {
    const semantic = changes.some((change) => SEMANTIC_NODE_CHANGES.has(change.type));
    set((state) => ({
      edges: applyEdgeChanges(changes, state.edges),
      revision: semantic ? state.revision + 1 : state.revision,
      history: semantic ? record(state.history, snapshotOf(state)) : state.history,
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
    if (connection.sourceHandle) edge.sourceHandle = connection.sourceHandle;
    if (connection.targetHandle) edge.targetHandle = connection.targetHandle;
    set((state) => ({
      edges: [...state.edges, edge],
      revision: state.revision + 1,
      notice: null,
      history: record(state.history, snapshotOf(state)),
    }));
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
      edges: deselected(state.edges),
      revision: state.revision + 1,
      history: record(state.history, snapshotOf(state)),
    }));
    return id;
  },

  updateEdgeData: (edgeId, patch) =>
    set((state) => ({
      edges: state.edges.map((edge) =>
        edge.id === edgeId ? { ...edge, data: { ...(edge.data as PipelineEdgeData), ...patch } } : edge,
      ),
      revision: state.revision + 1,
      history: record(state.history, snapshotOf(state), `edge:${edgeId}:${Object.keys(patch).sort().join(',')}`),
    })),

  updateNodeData: (nodeId, update, historyKey) =>
    set((state) => {
      if (!state.nodes.some((node) => node.id === nodeId)) return {};
      return {
        nodes: state.nodes.map((node) => (node.id === nodeId ? { ...node, data: update(node.data) } : node)),
        revision: state.revision + 1,
        history: record(state.history, snapshotOf(state), historyKey ?? `node:${nodeId}`),
      };
    }),

  updateSettings: (patch) =>
    set((state) => ({
      settings: { ...state.settings, ...patch },
      revision: state.revision + 1,
      history: record(state.history, snapshotOf(state), `settings:${Object.keys(patch).sort().join(',')}`),
    })),

  setCheckpointInterval: (intervalMs) =>
    set((state) => ({
      settings: { ...state.settings, checkpointing: { ...state.settings.checkpointing, interval_ms: intervalMs } },
      revision: state.revision + 1,
      history: record(state.history, snapshotOf(state), 'settings:checkpointing.interval_ms'),
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

  selectAll: () =>
    set((state) => ({
      nodes: state.nodes.map((node) => (node.selected ? node : { ...node, selected: true })),
      edges: state.edges.map((edge) => (edge.selected ? edge : { ...edge, selected: true })),
    })),

  undo: () => set((state) => travel(state, 'undo')),
  redo: () => set((state) => travel(state, 'redo')),

  copy: () => {
    const clipboard = copySelection(get().nodes, get().edges);
    if (!clipboard) return false;
    set({ clipboard, pasteCount: 0 });
    return true;
  },

  paste: () => {
    const { clipboard, pasteCount } = get();
    if (!clipboard) return false;
    const step = pasteCount + 1;
    set((state) => {
      const pasted = pasteElements(clipboard, state.nodes, state.edges, { x: PASTE_OFFSET.x * step, y: PASTE_OFFSET.y * step });
      return {
        nodes: [...deselected(state.nodes), ...pasted.nodes],
        edges: [...deselected(state.edges), ...pasted.edges],
        revision: state.revision + 1,
        pasteCount: step,
        history: record(state.history, snapshotOf(state)),
      };
    });
    return true;
  },

  duplicate: () => {
    const state = get();
    const clipboard = copySelection(state.nodes, state.edges);
    if (!clipboard) return false;
    const pasted = pasteElements(clipboard, state.nodes, state.edges);
    set({
      nodes: [...deselected(state.nodes), ...pasted.nodes],
      edges: [...deselected(state.edges), ...pasted.edges],
      revision: state.revision + 1,
      history: record(state.history, snapshotOf(state)),
    });
    return true;
  },

  deleteSelection: () => {
    const state = get();
    const removedNodes = new Set(state.nodes.filter((node) => node.selected).map((node) => node.id));
    const edges = state.edges.filter((edge) => !edge.selected && !removedNodes.has(edge.source) && !removedNodes.has(edge.target));
    if (removedNodes.size === 0 && edges.length === state.edges.length) return;
    set({
      nodes: state.nodes.filter((node) => !removedNodes.has(node.id)),
      edges,
      revision: state.revision + 1,
      history: record(state.history, snapshotOf(state)),
    });
  },

  autoLayout: () => {
    const state = get();
    if (state.nodes.length === 0) return;
    const positions = layoutPositions(
      state.nodes.map((node) => ({ id: node.id, width: node.measured?.width || NODE_FOOTPRINT.width, height: node.measured?.height || NODE_FOOTPRINT.height })),
      state.edges,
    );
    set({
      nodes: state.nodes.map((node) => {
        const position = positions.get(node.id);
        return position ? { ...node, position } : node;
      }),
      layoutRevision: state.layoutRevision + 1,
      history: record(state.history, snapshotOf(state)),
    });
  },

  replaceDefinition: (definition) => {
    const state = get();
    const graph = definitionToGraph(definition);
    set({
      settings: { ...graph.settings, name: graph.settings.name || state.settings.name },
      nodes: graph.nodes,
      edges: graph.edges,
      revision: state.revision + 1,
      layoutRevision: state.layoutRevision + 1,
      history: record(state.history, snapshotOf(state)),
      graphEpoch: state.graphEpoch + 1,
      notice: null,
    });
  },

  validationStarted: (revision) => {
    if (revision === get().revision) set({ validation: 'checking' });
  },

  validationFinished: (revision, problems, valid = problems.length === 0, warnings = []) => {
    if (revision !== get().revision) return; // stale: a newer validation is on its way
    set({
      problems: indexProblems(problems),
      warnings,
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
      permissions: pipeline.permissions ?? get().permissions,
      owner: pipeline.owner ?? get().owner,
      role: pipeline.role === undefined ? get().role : pipeline.role,
      roleTeam: pipeline.role_team === undefined ? get().roleTeam : pipeline.role_team,
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
