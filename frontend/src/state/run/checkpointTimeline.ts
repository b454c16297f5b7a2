/**
 * Models for the checkpoint views of a run: the timeline strip (one bar per recent
 * checkpoint, oldest left), the Gantt chart of one checkpoint (a row per subtask with its
 * start delay, alignment, sync and async phases, Flink's four), and the summary
 * (min / avg / max / percentiles) when the server sends none.
 */
import type { CheckpointDetails, CheckpointStats, DistributionSummary, SubtaskCheckpointStats } from '../../api/types';

export type TimelineTone = 'completed' | 'savepoint' | 'in_progress' | 'failed';

export interface TimelineBar {
  id: number;
  tone: TimelineTone;
  /** 0..1 of the tallest bar: the end-to-end duration (in-progress ones: time so far). */
  height: number;
  row: CheckpointStats;
}

export const TIMELINE_LENGTH = 60;

export function isSavepoint(row: Pick<CheckpointStats, 'kind' | 'is_savepoint'>): boolean {
  return row.is_savepoint === true || String(row.kind).includes('savepoint');
}

export function timelineTone(row: CheckpointStats): TimelineTone {
  if (row.status === 'FAILED') return 'failed';
  if (row.status === 'IN_PROGRESS') return 'in_progress';
  return isSavepoint(row) ? 'savepoint' : 'completed';
}

/** The bars of the most recent checkpoints, oldest first; rows come newest first. */
export function timelineBars(rows: CheckpointStats[], now = Date.now(), length = TIMELINE_LENGTH): TimelineBar[] {
  const recent = rows.slice(0, length).reverse();
  const durationOf = (row: CheckpointStats) =>
    row.end_to_end_duration ?? (row.status === 'IN_PROGRESS' ? Math.max(0, now - row.trigger_timestamp) : 0);
  const longest = Math.max(1, ...recent.map(durationOf));
  return recent.map((row) => ({ id: row.id, tone: timelineTone(row), height: Math.max(0.08, durationOf(row) / longest), row }));
}

export type Phase = 'start_delay' | 'alignment' | 'sync' | 'async';
export const PHASES: Phase[] = ['start_delay', 'alignment', 'sync', 'async'];
export const PHASE_LABELS: Record<Phase, string> = {
  start_delay: 'Start delay',
  alignment: 'Alignment',
  sync: 'Sync',
  async: 'Async',
};

export interface GanttSegment {
  phase: Phase;
  start: number;
  duration: number;
}

export interface GanttRow {
  key: string;
  vertex: string;
  vertexName: string;
  index: number;
  acknowledged: boolean;
  /** The subtask had finished its input before the checkpoint: it takes part without phases. */
  finished: boolean;
  segments: GanttSegment[];
  /** When the subtask's acknowledgement arrived, ms after the trigger (null: not yet). */
  ack: number | null;
  stateSize: number | null;
  /** Taken on its first barrier (unaligned) rather than after aligning all of them. */
  unaligned: boolean;
  /** Bytes of in-flight buffers this subtask persisted with the checkpoint. */
  persistedData: number;
  subtask: SubtaskCheckpointStats;
}

export interface Gantt {
  rows: GanttRow[];
  /** The scale's end, ms after the trigger. */
  span: number;
}

function ms(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function phaseDurations(subtask: SubtaskCheckpointStats): Record<Phase, number> {
  return {
    start_delay: ms(subtask.start_delay),
    alignment: ms(subtask.alignment_duration),
    sync: ms(subtask.sync_duration),
    async: ms(subtask.async_duration),
  };
}

function isAcknowledged(subtask: SubtaskCheckpointStats): boolean {
  if (subtask.status) return /complete|ack/i.test(subtask.status);
  return subtask.ack_timestamp != null || subtask.end_to_end_duration != null;
}

/** Subtask lists by vertex, from the per-vertex details or the flat `subtasks` list of a row. */
function vertexGroups(details: CheckpointDetails): Array<{ id: string; name: string; subtasks: SubtaskCheckpointStats[] }> {
  if (details.vertices && details.vertices.length > 0) {
    return details.vertices.map((vertex) => ({ id: vertex.id, name: vertex.name ?? vertex.id, subtasks: vertex.subtasks ?? [] }));
  }
  const groups = new Map<string, SubtaskCheckpointStats[]>();
  for (const subtask of details.subtasks ?? []) {
    const vertex = subtask.vertex ?? (Array.isArray(subtask.task) ? subtask.task[0] : typeof subtask.task === 'string' ? subtask.task.replace(/#\d+$/, '') : '');
    const list = groups.get(vertex) ?? [];
    const index = subtask.index ?? (Array.isArray(subtask.task) ? subtask.task[1] : list.length);
    list.push({ ...subtask, index });
    groups.set(vertex, list);
  }
  return [...groups.entries()].map(([id, subtasks]) => ({ id, name: id || 'subtasks', subtasks }));
}

/** One row per subtask, phases laid end to end from the trigger. */
export function ganttOf(details: CheckpointDetails): Gantt {
  const rows: GanttRow[] = [];
  let span = ms(details.end_to_end_duration);
  for (const vertex of vertexGroups(details)) {
    const subtasks = [...vertex.subtasks].sort((a, b) => a.index - b.index);
    for (const subtask of subtasks) {
      const durations = phaseDurations(subtask);
      const segments: GanttSegment[] = [];
      let at = 0;
      for (const phase of PHASES) {
        if (durations[phase] > 0) segments.push({ phase, start: at, duration: durations[phase] });
        at += durations[phase];
      }
      const acknowledged = isAcknowledged(subtask);
      const ack = subtask.end_to_end_duration != null
        ? ms(subtask.end_to_end_duration)
        : subtask.ack_timestamp != null && details.trigger_timestamp
          ? Math.max(0, subtask.ack_timestamp - details.trigger_timestamp)
          : null;
      span = Math.max(span, at, ack ?? 0);
      rows.push({
        key: `${vertex.id}#${subtask.index}`,
        vertex: vertex.id,
        vertexName: vertex.name,
        index: subtask.index,
        acknowledged,
        finished: /finish/i.test(subtask.status ?? ''),
        segments,
        ack: acknowledged ? ack : null,
        stateSize: subtask.state_size ?? null,
        unaligned: subtask.unaligned === true,
        persistedData: ms(subtask.persisted_data),
        subtask,
      });
    }
  }
  return { rows, span: Math.max(1, span) };
}

/** Round tick marks for a scale of `span` ms: about `count` of 1/2/5 × 10^n. */
export function ticks(span: number, count = 5): number[] {
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw) ?? 10 * magnitude;
  const marks: number[] = [];
  for (let value = 0; value <= span + 1e-9; value += step) marks.push(Math.round(value * 1000) / 1000);
  return marks;
}

/** Percentile by nearest rank of sorted values. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function distribution(values: Array<number | null | undefined>): DistributionSummary {
  const sorted = values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return { min: null, max: null, avg: null, p50: null, p90: null, p99: null };
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    min: sorted[0],
    max: sorted[sorted.length - 1],
    avg: sum / sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
  };
}

/** The summary of the completed checkpoints, like the server's `summary`. */
export function checkpointSummary(rows: CheckpointStats[]): Record<string, DistributionSummary> {
  const completed = rows.filter((row) => row.status === 'COMPLETED');
  return {
    end_to_end_duration: distribution(completed.map((row) => row.end_to_end_duration)),
    state_size: distribution(completed.map((row) => row.state_size)),
    alignment_duration: distribution(completed.map((row) => row.alignment_duration ?? null)),
    persisted_data: distribution(completed.map((row) => row.persisted_data ?? null)),
  };
}

