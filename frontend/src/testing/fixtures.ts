/** Test data shaped like the server's: a slice of engine/spec/catalog.py and a small pipeline. */
import type { CheckpointHistory, CheckpointRow, CheckpointVertexStats, Operator, Pipeline, PipelineDefinition, Run, SubtaskCheckpointStats } from '../api/types';

const EXPRESSION = { type: 'string', format: 'expression', minLength: 1 } as const;

function operator(type: string, title: string, fields: Partial<Operator>, properties: Operator['params_schema']['properties'], required: string[] = []): Operator {
  const category = type.split('.')[0];
  return {
    type,
    category,
    title,
    description: `${title} for tests.`,
    inputs: 1,
    outputs: 1,
    source: category === 'source',
    sink: category === 'sink',
    keyed: false,
    stateful: category === 'source' || category === 'sink',
    params_schema: { type: 'object', properties, required, additionalProperties: false },
    event_time: null,
    ...fields,
  };
}

export const DATAGEN = operator('source.datagen', 'Sequence generator', { inputs: 0 }, {
  count: { type: ['integer', 'null'], minimum: 0, default: null, 'x-empty-means': 'unbounded', description: 'Total records; empty for an unbounded stream.' },
  rate: { type: 'number', minimum: 0, default: 0 },
  start: { type: 'integer', default: 0 },
  expression: { ...EXPRESSION, description: 'Optional: the record made from number x.' },
});

export const MAP = operator('transform.map', 'Map', {}, { expression: { ...EXPRESSION } }, ['expression']);
export const FILTER = operator('transform.filter', 'Filter', {}, { predicate: { ...EXPRESSION } }, ['predicate']);
export const UNION = operator('transform.union', 'Union', { inputs: 'many' }, {});
export const REDUCE = operator('aggregate.reduce', 'Keyed running aggregate', { keyed: true, stateful: true }, {
  function: { type: 'string', enum: ['sum', 'count', 'min', 'max'], default: 'sum' },
  value: { ...EXPRESSION, default: 'x' },
});
export const INTERVAL_JOIN = operator('join.interval', 'Interval join',
  { inputs: 2, keyed: true, stateful: true, input_sides: ['left', 'right'] }, {
    lower_ms: { type: 'integer' },
    upper_ms: { type: 'integer' },
    output: { ...EXPRESSION, default: '[left, right]' },
  }, ['lower_ms', 'upper_ms']);
export const PYTHON = operator('transform.python', 'Python function', { stateful: true }, {
  code: { type: 'string', format: 'python', minLength: 1, default: 'def process(records):\n    return records\n' },
}, ['code']);
export const REDIS_SOURCE = operator('source.redis_stream', 'Redis Streams source', { inputs: 0 }, {
  stream: { type: 'string', minLength: 1 },
  bounded: { type: 'boolean', default: false },
}, ['stream']);
export const COLLECT = operator('sink.collect', 'Collect (preview)', { outputs: 0 }, {
  max_records: { type: 'integer', minimum: 1, maximum: 100000, default: 100 },
});

export const OPERATORS: Operator[] = [DATAGEN, REDIS_SOURCE, MAP, FILTER, UNION, REDUCE, COLLECT];

export const OPERATORS_BY_TYPE: Record<string, Operator> = Object.fromEntries(OPERATORS.map((op) => [op.type, op]));

export function sampleDefinition(): PipelineDefinition {
  return {
    format: 1,
    name: 'clicks-per-user',
    mode: 'streaming',
    parallelism: 2,
    max_parallelism: 128,
    checkpointing: { interval_ms: 1000, mode: 'exactly_once', timeout_ms: 600000, retained: 3 },
    restart: { strategy: 'fixed_delay', attempts: 3, delay_ms: 1000 },
    nodes: [
      { id: 'datagen-1', type: 'source.datagen', params: { count: null, rate: 100 }, parallelism: 1, ui: { x: 60, y: 60 } },
      { id: 'map-2', type: 'transform.map', params: { expression: '{"user": x % 10, "amount": x}' }, ui: { x: 340, y: 60 } },
      { id: 'reduce-3', type: 'aggregate.reduce', params: { function: 'sum', value: 'x["amount"]' }, ui: { x: 620, y: 60 } },
      { id: 'collect-4', type: 'sink.collect', params: {}, ui: { x: 900, y: 60 } },
    ],
    edges: [
      { id: 'e1', from: 'datagen-1', to: 'map-2', partitioning: 'rebalance', exchange: 'pipelined' },
      { id: 'e2', from: 'map-2', to: 'reduce-3', partitioning: 'hash', key: 'x["user"]', exchange: 'pipelined' },
      { id: 'e3', from: 'reduce-3', to: 'collect-4', partitioning: 'forward', exchange: 'blocking' },
    ],
  };
}

/** A run as GET /api/runs/<id> answers, with `fields` over quiet defaults. */
export function runOf(fields: Partial<Run> = {}): Run {
  return {
    id: 1, pipeline: 1, pipeline_name: 'demo', version: 1, mode: 'streaming', status: 'RUNNING', failure_cause: null,
    created_by: 'admin', created_at: '2025-01-01T00:00:00Z', started_at: '2025-01-01T00:00:01Z', ended_at: null,
    restarts: 0, last_checkpoint: null, ended_by: null, collected: {}, status_history: [], restored_from: null, savepoint_requests: [],
    placement: 'own_driver', placement_reason: 'session mode is off', pipeline_isolated: false, environment: null,
    ...fields,
  };
}

/** A saved pipeline as GET /api/pipelines/<id> answers: the sample definition, owned by the caller. */
export function savedPipelineOf(fields: Partial<Pipeline> = {}): Pipeline {
  return {
    id: 3, name: 'clicks-per-user', version: 2, definition: sampleDefinition(), owner: 'admin', team: null, team_name: null, permissions: ['view', 'edit', 'run', 'own'], role: 'admin', role_team: null,
    isolated: false, created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-02T00:00:00Z', ...fields,
  };
}

/** One row of GET /api/runs/<id>/checkpoints, with `fields` over an aligned checkpoint's defaults. */
export function checkpointRowOf(fields: Pick<CheckpointRow, 'id' | 'status'> & Partial<CheckpointRow>): CheckpointRow {
  return {
    pk: fields.id, kind: 'checkpoint', is_savepoint: false, trigger_timestamp: 0, latest_ack_timestamp: null, end_to_end_duration: null,
    alignment_duration: null, unaligned: false, persisted_data: 0, state_size: 0, num_acknowledged_subtasks: 0, num_subtasks: 0,
    external_path: null, failure_message: null, discarded: false, trigger: null, ...fields,
  };
}

/** GET /api/runs/<id>/checkpoints for `rows`: no summary figures, no latest ones. */
export function checkpointHistoryOf(rows: CheckpointRow[], counts: Omit<CheckpointHistory['counts'], 'restored'>): CheckpointHistory {
  const none = { min: null, max: null, avg: null, p50: null, p90: null, p99: null };
  return {
    counts: { restored: 0, ...counts },
    summary: { end_to_end_duration: none, state_size: none, alignment_duration: none, persisted_data: none },
    latest: { completed: null, savepoint: null, failed: null, restored: null },
    history: rows,
    folded: null,
    summary_exact: true,
  };
}

/** A subtask's part of a checkpoint, with `fields` over "nothing measured yet". */
export function subtaskStatsOf(fields: Pick<SubtaskCheckpointStats, 'index'> & Partial<SubtaskCheckpointStats>): SubtaskCheckpointStats {
  return {
    status: 'pending', ack_timestamp: null, end_to_end_duration: null, start_delay: null, alignment_duration: null, sync_duration: null,
    async_duration: null, state_size: null, ...fields,
  };
}

/** A vertex's part of a checkpoint's details, named after its id unless `fields` say otherwise. */
export function vertexCheckpointOf(id: string, subtasks: SubtaskCheckpointStats[], fields: Partial<CheckpointVertexStats> = {}): CheckpointVertexStats {
  return {
    id, name: id, operators: [id], num_subtasks: subtasks.length, num_acknowledged_subtasks: 0, state_size: 0, latest_ack_timestamp: null,
    end_to_end_duration: null, alignment_duration: null, start_delay: null, sync_duration: null, async_duration: null, subtasks, ...fields,
  };
}
