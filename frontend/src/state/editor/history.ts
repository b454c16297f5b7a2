/**
 * Undo/redo as a pair of stacks of editor snapshots (settings, nodes, edges).
 *
 * Every edit records the snapshot from *before* it. Edits that come in a stream (typing into
 * one field, nudging with the arrow keys) carry a coalescing key: while the same key repeats
 * within COALESCE_MS of the previous edit, the first snapshot of the stream stays the only
 * entry, so one undo takes back the whole stream. A new edit clears the redo stack.
 *
 * Snapshots hold references: nodes and edges are immutable values (every change makes new
 * objects), so keeping a snapshot costs an array of pointers, not a deep copy.
 */
import type { PipelineSettings } from '../shared/definition';
import type { OperatorNode, PipelineEdge } from '../shared/graph';

export interface Snapshot {
  settings: PipelineSettings;
  nodes: OperatorNode[];
  edges: PipelineEdge[];
}

interface Entry {
  snapshot: Snapshot;
  key: string | null;
  at: number;
}

export interface History {
  past: Entry[];
  future: Entry[];
}

export const EMPTY_HISTORY: History = Object.freeze({ past: [], future: [] }) as unknown as History;

/** Edits with the same key closer together than this are one undo step. */
export const COALESCE_MS = 1000;
/** Oldest steps are forgotten past this many. */
export const HISTORY_LIMIT = 200;

/** Record `before`, the state an edit is about to change. */
export function record(history: History, before: Snapshot, key: string | null = null, now = Date.now()): History {
  const top = history.past[history.past.length - 1];
  if (key !== null && top && top.key === key && history.future.length === 0 && now - top.at < COALESCE_MS) {
    const past = history.past.slice();
    past[past.length - 1] = { ...top, at: now };
    return { past, future: [] };
  }
  const past = [...history.past, { snapshot: before, key, at: now }];
  if (past.length > HISTORY_LIMIT) past.splice(0, past.length - HISTORY_LIMIT);
  return { past, future: [] };
}

export function canUndo(history: History): boolean {
  return history.past.length > 0;
}

export function canRedo(history: History): boolean {
  return history.future.length > 0;
}

/** Which stack a step takes its snapshot from: undo takes the past's top, redo the future's. */
export type Direction = 'undo' | 'redo';

/**
 * Undo or redo: the snapshot to restore, and the history with `current` moved onto the other
 * stack; null when there is nothing that way. One body for both: they are mirror images.
 */
export function step(history: History, current: Snapshot, direction: Direction): { history: History; snapshot: Snapshot } | null {
  const [from, to] = direction === 'undo' ? [history.past, history.future] : [history.future, history.past];
  const top = from[from.length - 1];
  if (!top) return null;
  const taken = from.slice(0, -1);
  const given = [...to, { snapshot: current, key: null, at: 0 }];
  return { snapshot: top.snapshot, history: direction === 'undo' ? { past: taken, future: given } : { past: given, future: taken } };
}

/** Step back; null when there is nothing to undo. */
export function undo(history: History, current: Snapshot): { history: History; snapshot: Snapshot } | null {
  return step(history, current, 'undo');
}

/** Step forward again after an undo; null when there is nothing to redo. */
export function redo(history: History, current: Snapshot): { history: History; snapshot: Snapshot } | null {
  return step(history, current, 'redo');
}
