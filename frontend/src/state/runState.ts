/**
 * Everything the run page shows, as one value and pure transitions: the run from REST, then
 * the WebSocket events applied in seq order.
 */
import type { CheckpointHistory, CollectedRecords, Run, RunEvent, RunStatus, VertexMetrics } from '../api/types';
import { applyCheckpointEvent, checkpointsFromHistory, EMPTY_CHECKPOINTS, type CheckpointList } from './checkpoints';
import { isRunEnded } from './runStatus';

export interface LogLine {
  seq: number;
  ts: number;
  level: string;
  message: string;
}

export interface RunState {
  run: Run | null;
  status: RunStatus | null;
  failureCause: string | null;
  checkpoints: CheckpointList;
  /** Latest records of each sink.collect node. */
  collected: CollectedRecords;
  /** Latest metrics per vertex id. */
  vertices: Record<string, VertexMetrics>;
  logs: LogLine[];
}

export const MAX_LOG_LINES = 200;

export const INITIAL_RUN_STATE: RunState = {
  run: null,
  status: null,
  failureCause: null,
  checkpoints: EMPTY_CHECKPOINTS,
  collected: {},
  vertices: {},
  logs: [],
};

/**
 * Collected records arrive as the latest preview per node (the sink keeps its last N), so an
 * update replaces the lists of the nodes it names and leaves the others.
 */
export function mergeCollected(current: CollectedRecords, update: CollectedRecords | undefined | null): CollectedRecords {
  if (!update || Object.keys(update).length === 0) return current;
  return { ...current, ...update };
}

/**
 * The status to show next. An ended run (FINISHED, CANCELED, FAILED) never changes again, so
 * neither a REST answer that was on its way before the end nor the replay of older events
 * can take the page back to RUNNING.
 */
export function nextStatus(current: RunStatus | null, incoming: RunStatus): RunStatus {
  return current !== null && isRunEnded(current) ? current : incoming;
}

export function runLoaded(state: RunState, run: Run): RunState {
  const status = nextStatus(state.status, run.status);
  return {
    ...state,
    run,
    status,
    failureCause: run.failure_cause ?? (status === run.status ? null : state.failureCause),
    collected: mergeCollected(state.collected, run.collected),
  };
}

export function checkpointHistoryLoaded(state: RunState, history: CheckpointHistory): RunState {
  return { ...state, checkpoints: checkpointsFromHistory(history) };
}

export function applyRunEvent(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'status': {
      if (isRunEnded(state.status)) return state;
      const status = event.data.status;
      const keepsCause = status === 'RESTARTING' || status === 'FAILING' || status === 'FAILED';
      return { ...state, status, failureCause: event.data.cause ?? (keepsCause ? state.failureCause : null) };
    }
    case 'checkpoint':
      return { ...state, checkpoints: applyCheckpointEvent(state.checkpoints, event.data, event.ts) };
    case 'metrics':
      return {
        ...state,
        vertices: event.data.vertices ? { ...state.vertices, ...event.data.vertices } : state.vertices,
        collected: mergeCollected(state.collected, event.data.collected),
      };
    case 'finished':
      return { ...state, collected: mergeCollected(state.collected, event.data.collected) };
    case 'log': {
      const line: LogLine = {
        seq: event.seq,
        ts: event.ts,
        level: String(event.data.level ?? 'info'),
        message: String(event.data.message ?? JSON.stringify(event.data)),
      };
      return { ...state, logs: [...state.logs, line].slice(-MAX_LOG_LINES) };
    }
    default:
      return state;
  }
}
