/**
 * Types of the studio's REST and WebSocket API, exactly as the server sends them.
 * Field names stay snake_case so that what we read is what the server documents.
 */
import type { components } from './schema.gen';

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
  /** Named output ports besides the main output (event-time windows: "late"). */
  output_ports?: OutputPort[];
  /** Named inputs of a two-input operator (joins: ["left", "right"]); an edge into one says its `side`. */
  input_sides?: string[];
}

export interface OutputPort {
  name: string;
  description: string;
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
  /** The named output port of `from` the edge leaves; absent for the main output. */
  from_port?: string | null;
  to: string;
  /** Which named input of `to` the edge feeds (joins: "left" | "right"); absent for other operators. */
  side?: string | null;
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
  /** Allowed but likely wrong (a file source matching no file yet); only for a definition without errors. */
  warnings?: Problem[];
}

export interface PipelineSummary {
  id: number;
  name: string;
  version: number;
  updated_at: string;
  owner?: string;
  permissions?: string[];
  /** The newest run, for the list's status column. */
  latest_run?: { id: number; status: RunStatus } | null;
}

export interface Pipeline {
  id: number;
  name: string;
  version: number;
  owner?: string;
  /** What the signed-in user may do: a subset of view, edit, run, own. */
  permissions?: string[];
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
  /** How often it restarted (RESTARTING transitions). */
  restarts?: number;
  /** The newest completed checkpoint (#id as users see it). */
  last_checkpoint?: { id: number; kind: string; trigger_timestamp: number } | null;
  collected: CollectedRecords;
  /** The definition of the version that runs. */
  definition?: PipelineDefinition;
  /** The planner's summary, written when the run is scheduled (null before). */
  plan?: PlanSummary | null;
  status_history?: Array<{ status: RunStatus; ts: string | number }>;
  restored_from?: RestoredFrom | null;
  savepoint_requests?: SavepointRequest[];
}

export interface RestoredFrom {
  checkpoint?: number | null;
  path?: string | null;
  run?: number | null;
  checkpoint_id?: number | null;
  kind?: CheckpointKind | null;
  [field: string]: unknown;
}

export interface RunPage {
  count: number;
  next: string | null;
  previous: string | null;
  results: Run[];
}

/** A checkpoint by the id users see (#7) and its run, a checkpoint row by pk, or a directory. */
export type RestoreFrom = { checkpoint: number; run?: number } | { pk: number } | { path: string };

export interface StartRunRequest {
  version?: number;
  mode?: PipelineMode;
  restore_from?: RestoreFrom;
  allow_non_restored_state?: boolean;
}

/** A list of subtask indices or region ids, or its compact form for huge parallelisms. */
export type CompactList<T> = T[] | { count: number; ranges: Array<[number, number]> };

export interface PlanJobVertex {
  id: string;
  name: string;
  operators: string[];
  parallelism: number;
  max_parallelism?: number;
  is_source?: boolean;
}

export interface PlanJobEdge {
  id: string;
  source: string;
  target: string;
  source_node?: string;
  target_node?: string;
  distribution?: string;
  result_type?: string;
  partitioning?: string;
  key?: string | null;
}

export interface PlanRegion {
  id: string;
  vertices?: Record<string, CompactList<number>>;
  job_vertices: string[];
  depends_on: CompactList<string>;
  size: number;
}

export interface PlanSummary {
  job_vertices: PlanJobVertex[];
  job_edges: PlanJobEdge[];
  regions: PlanRegion[];
  node_regions: Record<string, CompactList<string>>;
  schedule: string[];
  counts?: Record<string, number>;
}

export interface VersionSummary {
  number: number;
  message: string;
  created_at: string;
  created_by?: string | null;
}

export interface PipelineVersion extends VersionSummary {
  definition: PipelineDefinition;
}

export interface FieldChange {
  path: string;
  from: unknown;
  to: unknown;
}

export interface ElementDiff {
  added: string[];
  removed: string[];
  changed: Array<{ id: string; changes: FieldChange[] }>;
}

export interface DefinitionDiff {
  from?: number | null;
  to?: number | null;
  nodes: ElementDiff;
  edges: ElementDiff;
  settings: { changed: FieldChange[] };
}

export interface PreviewResult {
  nodes: Record<string, { records: unknown[]; count: number }>;
  status: string;
  failure?: string | null;
}

export type SavepointStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
export type SavepointTrigger = 'manual' | 'scheduled' | 'stop';

export interface SavepointRequest {
  request_id: string;
  status: SavepointStatus;
  location?: string | null;
  failure_cause?: string | null;
  checkpoint_id?: number | null;
  /** The checkpoint row of the finished savepoint: what restore_from and DELETE /api/savepoints/<pk> take. */
  checkpoint_pk?: number | null;
  triggered_at?: string | number | null;
  completed_at?: string | number | null;
  kind?: 'savepoint' | 'sync-savepoint' | (string & {});
  /** Who asked for it. */
  trigger?: SavepointTrigger;
  /** Progress: subtasks that acknowledged the savepoint so far, of how many (null before it was triggered). */
  acknowledged_subtasks?: number | null;
  total_subtasks?: number | null;
  /** Only on requests this page made: whether it was a stop-with-savepoint and with drain. */
  stop?: boolean;
  drain?: boolean;
}

export interface User {
  id: number;
  username: string;
}

export interface ApiToken {
  id: number;
  name: string;
  /** The first characters of the key, to tell tokens apart. */
  prefix?: string;
  key?: string;
  created?: string;
  created_at?: string;
  last_used_at?: string | null;
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
  /** The row id (for restore pickers); `id` is the checkpoint id within the run. */
  pk?: number;
  is_savepoint?: boolean;
  subtasks?: SubtaskCheckpointStats[];
  alignment_duration?: number | null;
  /** Some subtask took it on its first barrier (unaligned checkpoint, or an aligned one that timed out). */
  unaligned?: boolean | null;
  /** Bytes of in-flight data (channel state) an unaligned checkpoint persisted. */
  persisted_data?: number | null;
  /** Savepoints: who asked for it (null for checkpoints). */
  trigger?: SavepointTrigger | null;
}

export interface SubtaskCheckpointStats {
  index: number;
  status?: string;
  ack_timestamp?: number | null;
  end_to_end_duration?: number | null;
  start_delay?: number | null;
  alignment_duration?: number | null;
  sync_duration?: number | null;
  async_duration?: number | null;
  state_size?: number | null;
  persisted_data?: number | null;
  unaligned?: boolean | null;
  /** Some engines report which vertex a subtask belongs to on flat lists. */
  vertex?: string;
  task?: [string, number] | string;
}

export interface CheckpointVertexStats {
  id: string;
  name?: string;
  num_subtasks?: number;
  num_acknowledged_subtasks?: number;
  state_size?: number | null;
  end_to_end_duration?: number | null;
  alignment_duration?: number | null;
  subtasks: SubtaskCheckpointStats[];
}

export interface CheckpointDetails extends CheckpointStats {
  vertices?: CheckpointVertexStats[];
}

export interface DistributionSummary {
  min: number | null;
  max: number | null;
  avg: number | null;
  p50?: number | null;
  p90?: number | null;
  p99?: number | null;
}

export interface CheckpointCounts {
  restored?: number;
  total: number;
  in_progress: number;
  completed: number;
  failed: number;
}

export interface CheckpointHistory {
  counts: CheckpointCounts;
  /** Newest first. */
  history: CheckpointStats[];
  summary?: Record<string, DistributionSummary>;
  latest?: Record<string, CheckpointStats | null>;
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
  subtasks?: SubtaskCheckpointStats[];
  is_savepoint?: boolean;
  pk?: number;
}

export interface SavepointEventData {
  request_id: string;
  status: SavepointStatus | (string & {});
  location?: string | null;
  failure_cause?: string | null;
  checkpoint_id?: number | null;
  kind?: string;
}

/** A savepoint request's progress, after each checkpoint event of its savepoint. */
export interface SavepointProgressEventData {
  request_id: string;
  status: SavepointStatus;
  kind?: string;
  trigger?: SavepointTrigger;
  checkpoint_id: number;
  acknowledged: number;
  total: number;
}

export interface StatusEventData {
  status: RunStatus;
  cause?: string | null;
  /** A restart's regions and delay. */
  regions?: string[];
  delay_ms?: number;
}

/** A subtask failed: `task` is "vertex#subtask"; `error` the message, then the traceback's last frames. */
export interface TaskFailedEventData {
  task: string | null;
  region?: string | null;
  attempt?: number | null;
  error: string;
}

/** One entry of GET /api/runs/<id>/exceptions. */
export interface TaskException {
  seq: number;
  ts: number;
  task: string | null;
  vertex: string | null;
  subtask: number | null;
  operator: string | null;
  region: string | null;
  attempt: number | null;
  message: string;
  traceback: string | null;
}

export interface RestartEntry {
  seq: number;
  ts: number;
  cause: string | null;
  regions: string[];
  delay_ms: number | null;
}

/** GET /api/runs/<id>/state-compatibility?version=N: whether the run's state fits version N. */
export interface StateCompatibility {
  from: number;
  to: number;
  compatible: boolean;
  needs_allow_non_restored_state: boolean;
  kept: string[];
  dropped: string[];
  added: string[];
  changed_type: string[];
  message: string;
}

export interface RunExceptions {
  root: string | null;
  exceptions: TaskException[];
  restarts: RestartEntry[];
}

export interface VertexMetrics {
  records_in?: number;
  records_out?: number;
  records_in_per_second?: number;
  records_out_per_second?: number;
  busy_ratio?: number;
  idle_ratio?: number;
  backpressured_ratio?: number;
  /** What the engine's tasks report, summed over the vertex's subtasks. */
  busy_ms_per_second?: number;
  idle_ms_per_second?: number;
  backpressured_ms_per_second?: number;
  operators?: string[];
  [metric: string]: unknown;
}

/** One node's metrics from its operator's own counters, with its subtasks (generated from the OpenAPI schema). */
export type NodeMetrics = components['schemas']['NodeMetrics'];
export type SubtaskMetrics = components['schemas']['SubtaskMetrics'];
export type SubtaskCheckpoint = components['schemas']['SubtaskCheckpoint'];

export interface RunMetrics {
  vertices: Record<string, VertexMetrics>;
  nodes?: Record<string, NodeMetrics>;
  samples?: Array<{ ts: number; vertices: Record<string, VertexMetrics> }>;
}

export interface MetricsEventData {
  vertices?: Record<string, VertexMetrics>;
  /** Per node, from each operator's own counters (absent from older studios' events). */
  nodes?: Record<string, NodeMetrics>;
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
  | RunEventBase<'savepoint', SavepointEventData>
  | RunEventBase<'savepoint_progress', SavepointProgressEventData>
  | RunEventBase<'log', LogEventData>
  | RunEventBase<'finished', FinishedEventData>
  | RunEventBase<'task_failed', TaskFailedEventData>
  | RunEventBase<'rescale', Rescale>;

/** A one-click rescale: stop with savepoint, then the rescaled version from it (POST /api/runs/<id>/rescale). */
export interface Rescale {
  id: number;
  run: number;
  status: 'STOPPING' | 'STARTING' | 'COMPLETED' | 'ROLLED_BACK' | 'FAILED';
  message: string;
  from_version: number;
  to_version: number;
  parallelism: number | null;
  nodes: Record<string, number>;
  savepoint_request_id: string | null;
  /** The run at the new parallelism, once started. */
  new_run: number | null;
  /** The run at the old parallelism, when the new one failed. */
  rollback_run: number | null;
}
