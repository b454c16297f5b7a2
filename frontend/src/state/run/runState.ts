/**
 * Everything the run page shows, as one value and pure transitions: the run from REST, then
 * the WebSocket events applied in seq order.
 */
import type { CheckpointHistory, CollectedRecords, DistributionSummary, ExpectationCounts, FoldedCheckpoints, NodeMetrics, RestartEntry, Rescale, Run, RunEvent, RunStatus, SavepointRequest, StartupEventData, TaskException, VertexMetrics } from '../../api/types';
import { applyCheckpointEvent, checkpointsFromHistory, EMPTY_CHECKPOINTS, type CheckpointList } from './checkpoints';
import { exceptionOf, prependOnce, restartOf } from './runFailures';
import { isRunEnded } from './runStatus';
import { applySavepointEvent, applySavepointProgress, markSavepointDiscarded, savepointsLoaded } from './savepoints';
import { ratesBetween, type CounterSample, type VertexRates } from './vertexMetrics';

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
  /** Latest metrics per node id, from each operator's own counters, with its subtasks. */
  nodes: Record<string, NodeMetrics>;
  /** Latest counts of the expectations per checked node ("node:<id>") or edge ("edge:<id>"). */
  expectations: Record<string, ExpectationCounts>;
  /** Record rates derived from the last two metrics samples, per vertex id. */
  rates: Record<string, VertexRates>;
  /** The previous counters per vertex id, for the rates. */
  counters: Record<string, CounterSample>;
  /** The server's checkpoint summary, when it sends one. */
  checkpointSummary: Record<string, DistributionSummary> | null;
  /** The older checkpoints the server keeps only in rollups (counted in the summary), or null. */
  checkpointsFolded: FoldedCheckpoints | null;
  savepoints: SavepointRequest[];
  logs: LogLine[];
  /** Subtask failures, newest first (the exceptions history). */
  exceptions: TaskException[];
  /** Restarts, newest first. */
  restarts: RestartEntry[];
  /** The latest one-click rescale of this run (from its "rescale" events), or null. */
  rescale: Rescale | null;
  /** How its driver started (its "startup" event): a warm driver or not, Spark up or not. */
  startup: StartupEventData | null;
  /** The slots a region of it waits for while other runs of the shared session hold them, or null. */
  slotWait: { region: string; slots: number; capacity: number } | null;
}

export const MAX_LOG_LINES = 200;

export const INITIAL_RUN_STATE: RunState = {
  run: null,
  status: null,
  failureCause: null,
  checkpoints: EMPTY_CHECKPOINTS,
  collected: {},
  vertices: {},
  nodes: {},
  expectations: {},
  rates: {},
  counters: {},
  checkpointSummary: null,
  checkpointsFolded: null,
  savepoints: [],
  logs: [],
  exceptions: [],
  restarts: [],
  rescale: null,
  startup: null,
  slotWait: null,
};

/** Apply one metrics sample taken at `ts`: the latest values, and rates against the previous sample. */
export function metricsSampled(state: RunState, vertices: Record<string, VertexMetrics>, ts: number): RunState {
  const rates = { ...state.rates };
  const counters = { ...state.counters };
  for (const [vertex, metrics] of Object.entries(vertices)) {
    const sample: CounterSample = { ts, records_in: metrics.records_in, records_out: metrics.records_out };
    const previous = counters[vertex];
    if (previous && ts > previous.ts) rates[vertex] = ratesBetween(previous, sample);
    if (!previous || ts > previous.ts) counters[vertex] = sample;
  }
  return { ...state, vertices: { ...state.vertices, ...vertices }, rates, counters };
}

/** The latest per-node figures: a report names every node that reported, so it replaces those. */
export function nodeMetricsReported(state: RunState, nodes: Record<string, NodeMetrics> | undefined | null): RunState {
  if (!nodes || Object.keys(nodes).length === 0) return state;
  return { ...state, nodes: { ...state.nodes, ...nodes } };
}

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
    savepoints: run.savepoint_requests ? savepointsLoaded(state.savepoints, run.savepoint_requests) : state.savepoints,
  };
}

export function savepointRequestsLoaded(state: RunState, requests: SavepointRequest[]): RunState {
  return { ...state, savepoints: savepointsLoaded(state.savepoints, requests) };
}

/** The server's summary of every completed checkpoint, read again while the run checkpoints. */
export function checkpointSummaryLoaded(state: RunState, summary: CheckpointHistory['summary'], folded?: FoldedCheckpoints | null): RunState {
  return { ...state, checkpointSummary: summary, checkpointsFolded: folded === undefined ? state.checkpointsFolded : folded };
}

export function checkpointHistoryLoaded(state: RunState, history: CheckpointHistory): RunState {
  return {
    ...state,
    checkpoints: checkpointsFromHistory(history),
    checkpointSummary: history.summary ?? state.checkpointSummary,
    checkpointsFolded: history.folded ?? null,
  };
}

export function applyRunEvent(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'status': {
      if (isRunEnded(state.status)) return state;
      const status = event.data.status;
      const keepsCause = status === 'RESTARTING' || status === 'FAILING' || status === 'FAILED';
      const restarts = status === 'RESTARTING' ? prependOnce(state.restarts, restartOf(event.seq, event.ts, event.data)) : state.restarts;
      return { ...state, status, restarts, failureCause: event.data.cause ?? (keepsCause ? state.failureCause : null) };
    }
    case 'checkpoint': {
      const checkpoints = applyCheckpointEvent(state.checkpoints, event.data, event.ts);
      const discarded = event.data.discarded || event.data.event === 'discarded';
      return { ...state, checkpoints, savepoints: discarded ? markSavepointDiscarded(state.savepoints, event.data) : state.savepoints };
    }
    case 'metrics': {
      const sampled = event.data.vertices ? metricsSampled(state, event.data.vertices, event.ts) : state;
      return {
        ...nodeMetricsReported(sampled, event.data.nodes),
        expectations: event.data.expectations ?? state.expectations,
        collected: mergeCollected(state.collected, event.data.collected),
      };
    }
    case 'savepoint':
      return { ...state, savepoints: applySavepointEvent(state.savepoints, event.data) };
    case 'rescale':
      return { ...state, rescale: event.data };
    case 'startup':
      return { ...state, startup: event.data };
    case 'region':
      if (event.data.event === 'waiting') {
        return { ...state, slotWait: { region: event.data.region, slots: event.data.slots ?? 0, capacity: event.data.capacity ?? 0 } };
      }
      return event.data.event === 'scheduled' && state.slotWait?.region === event.data.region ? { ...state, slotWait: null } : state;
    case 'savepoint_progress':
      return { ...state, savepoints: applySavepointProgress(state.savepoints, event.data) };
    case 'finished':
      return { ...state, collected: mergeCollected(state.collected, event.data.collected) };
    case 'task_failed':
      return { ...state, exceptions: prependOnce(state.exceptions, exceptionOf(event.seq, event.ts, event.data)) };
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
