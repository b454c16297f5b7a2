/**
 * Types of the studio's REST and WebSocket API, exactly as the server sends them.
 * Field names stay snake_case so that what we read is what the server documents.
 */

export type Category = 'source' | 'transform' | 'aggregate' | 'window' | 'sink' | (string & {});

export type JsonSchemaType = 'integer' | 'number' | 'string' | 'boolean' | 'null';

/** One property of an operator's params JSON Schema. */
export interface ParamSchema {
  type?: JsonSchemaType | JsonSchemaType[];
  enum?: Array<string | number | boolean | null>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  description?: string;
  format?: 'expression' | (string & {});
  title?: string;
}

export interface ParamsSchema {
  type: 'object';
  properties: Record<string, ParamSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface Operator {
  type: string;
  category: Category;
  title: string;
  description: string;
  inputs: 0 | 1 | 'many' | number;
  outputs: 0 | 1 | number;
  source: boolean;
  sink: boolean;
  keyed: boolean;
  stateful: boolean;
  params_schema: ParamsSchema;
}

export type Partitioning = 'forward' | 'rebalance' | 'rescale' | 'hash' | 'broadcast';
export type Exchange = 'pipelined' | 'blocking';
export type PipelineMode = 'streaming' | 'batch';

export interface DefinitionNode {
  id: string;
  type: string;
  params: Record<string, unknown>;
  parallelism?: number;
  ui?: { x: number; y: number };
}

export interface DefinitionEdge {
  id: string;
  from: string;
  to: string;
  partitioning: Partitioning;
  key?: string;
  exchange: Exchange;
}

export interface CheckpointingConfig {
  interval_ms: number;
  mode: 'exactly_once' | 'at_least_once' | (string & {});
  [setting: string]: unknown;
}

/** Everything of a definition except its graph. */
export interface PipelineSettings {
  format: 1;
  name: string;
  mode: PipelineMode;
  parallelism: number;
  max_parallelism: number;
  checkpointing: CheckpointingConfig;
  /** Settings the editor does not edit yet (restart strategy, ...) travel through unchanged. */
  [setting: string]: unknown;
}

export interface PipelineDefinition extends PipelineSettings {
  nodes: DefinitionNode[];
  edges: DefinitionEdge[];
}

/** A validation problem: all of them come back at once, never only the first. */
export interface Problem {
  node: string | null;
  edge: string | null;
  field: string | null;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: Problem[];
}

export interface PipelineSummary {
  id: number;
  name: string;
  version: number;
  updated_at: string;
}

export interface Pipeline {
  id: number;
  name: string;
  version: number;
  definition: PipelineDefinition;
  created_at: string;
  updated_at: string;
}

export type RunStatus =
  | 'CREATED'
  | 'SCHEDULING'
  | 'RUNNING'
  | 'FINISHING'
  | 'FINISHED'
  | 'CANCELING'
  | 'CANCELED'
  | 'FAILING'
  | 'FAILED'
  | 'RESTARTING';

export type CollectedRecords = Record<string, unknown[]>;

export interface Run {
  id: number;
  pipeline: number;
  pipeline_name: string;
  version: number;
  mode: PipelineMode;
  status: RunStatus;
  failure_cause: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  collected: CollectedRecords;
  /** Not in the contract yet: the definition of the version that runs. Used when present. */
  definition?: PipelineDefinition;
}

export type CheckpointKind = 'checkpoint' | 'savepoint' | (string & {});
export type CheckpointStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

export interface CheckpointStats {
  id: number;
  kind: CheckpointKind;
  status: CheckpointStatus;
  trigger_timestamp: number;
  latest_ack_timestamp: number | null;
  end_to_end_duration: number | null;
  state_size: number | null;
  num_acknowledged_subtasks: number;
  num_subtasks: number;
  external_path: string | null;
  failure_message: string | null;
  /** True once a newer checkpoint subsumed this one and its files were removed. */
  discarded?: boolean;
}

export interface CheckpointCounts {
  total: number;
  in_progress: number;
  completed: number;
  failed: number;
}

export interface CheckpointHistory {
  counts: CheckpointCounts;
  /** Newest first. */
  history: CheckpointStats[];
}

/** The lifecycle events; the server may send more (e.g. "discarded" when a checkpoint is subsumed). */
export type CheckpointEventKind = 'triggered' | 'acknowledged' | 'completed' | 'failed' | (string & {});

export interface CheckpointEventData {
  event: CheckpointEventKind;
  id: number;
  /** The checkpoint's status after the event; sent lower-case over the WebSocket ("in_progress"). */
  status?: string;
  discarded?: boolean;
  kind: CheckpointKind;
  trigger_timestamp?: number;
  end_to_end_duration?: number | null;
  state_size?: number | null;
  num_acknowledged_subtasks?: number;
  num_subtasks?: number;
  external_path?: string | null;
  failure_message?: string | null;
  latest_ack_timestamp?: number | null;
}

export interface StatusEventData {
  status: RunStatus;
  cause?: string | null;
}

export interface VertexMetrics {
  records_in?: number;
  records_out?: number;
  [metric: string]: unknown;
}

export interface MetricsEventData {
  vertices?: Record<string, VertexMetrics>;
  collected?: CollectedRecords;
}

export interface LogEventData {
  level?: string;
  message?: string;
  [field: string]: unknown;
}

interface RunEventBase<T extends string, D> {
  seq: number;
  type: T;
  ts: number;
  data: D;
}

export interface FinishedEventData {
  collected?: CollectedRecords;
  [field: string]: unknown;
}

export type RunEvent =
  | RunEventBase<'status', StatusEventData>
  | RunEventBase<'checkpoint', CheckpointEventData>
  | RunEventBase<'metrics', MetricsEventData>
  | RunEventBase<'log', LogEventData>
  | RunEventBase<'finished', FinishedEventData>;
