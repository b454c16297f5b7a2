/** Test data shaped like the server's: a slice of engine/spec/catalog.py and a small pipeline. */
import type { Operator, PipelineDefinition } from '../api/types';

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
    ...fields,
  };
}

export const DATAGEN = operator('source.datagen', 'Sequence generator', { inputs: 0 }, {
  count: { type: ['integer', 'null'], minimum: 0, default: 1000, description: 'Total records; empty for an unbounded stream.' },
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
