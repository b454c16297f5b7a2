/**
 * Types of the studio's REST and WebSocket API, derived from the OpenAPI schema's generated types
 * (schema.gen.ts, `make api-types`; tests/test_api_types.py fails when they drift from the
 * serializers). Field names stay snake_case: what we read is what the server documents.
 *
 * Each REST type is a schema component, sometimes refined where the schema is looser than what the
 * server sends: a JSON field it documents as an open object (a definition, a plan, params' JSON
 * Schema), or a field with a server default, which the schema calls optional even in a response.
 * The WebSocket's event payloads are not in the OpenAPI schema; their types below reuse the REST
 * components they carry.
 */
import type { components } from './schema.gen';

type Schemas = components['schemas'];

/** `T` with the fields of `R` in place of its own: where the schema leaves a field open and the browser reads its shape. */
type Refine<T, R> = Omit<T, keyof R> & R;

/**
 * `T` with the fields `K` always present: drf-spectacular calls a field with a server default
 * optional in responses too, where DRF always writes it.
 */
type Sent<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

// ---------------------------------------------------------------------------------------------
// The operator catalog (GET /api/operators)

/** An operator's category; the catalog may grow new ones. */
export type Category = 'source' | 'transform' | 'aggregate' | 'window' | 'sink' | (string & {});

export type JsonSchemaType = 'integer' | 'number' | 'string' | 'boolean' | 'null';

/** One property of an operator's params JSON Schema (the schema documents `params_schema` as an open object). */
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
  /** What leaving a nullable param empty means, shown in the empty input (datagen's count: "unbounded"). */
  'x-empty-means'?: string;
}

export interface ParamsSchema {
  type: 'object';
  properties: Record<string, ParamSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

/** A named output port besides the main output (event-time windows: "late"). */
export interface OutputPort {
  name: string;
  description: string;
}

export type Operator = Refine<
  Schemas['Operator'],
  {
    category: Category;
    /** How many inputs: 0, 1, 2 or "many". */
    inputs: number | 'many';
    params_schema: ParamsSchema;
    output_ports?: OutputPort[];
  }
>;

// ---------------------------------------------------------------------------------------------
// The pipeline definition, as the API's request bodies describe it (from its JSON Schema)

type DefinitionSchema = Schemas['PipelineWriteRequest']['definition'];
type NodeSchema = DefinitionSchema['nodes'][number];
type EdgeSchema = DefinitionSchema['edges'][number];
type CheckpointingSchema = NonNullable<DefinitionSchema['checkpointing']>;

export type Partitioning = NonNullable<EdgeSchema['partitioning']>;
export type Exchange = NonNullable<EdgeSchema['exchange']>;
export type PipelineMode = Schemas['RunStartModeEnum'];

/** A data-quality rule on a node or an edge: warn, drop, quarantine (to `port`) or fail. */
export type Expectation = NonNullable<NodeSchema['expectations']>[number];
export type ExpectationAction = NonNullable<Expectation['action']>;

export type DefinitionNode = Refine<
  NodeSchema,
  {
    params: Record<string, unknown>;
    /** Where the editor drew it. */
    ui?: { x: number; y: number };
  }
>;

export type DefinitionEdge = Refine<
  EdgeSchema,
  {
    partitioning: Partitioning;
    exchange: Exchange;
    /** Which named input of `to` the edge feeds (joins: "left" | "right"); absent for other operators. */
    side?: string | null;
    key?: string;
  }
>;

/** The checkpointing section, with what the editor always writes. */
export type CheckpointingConfig = Refine<CheckpointingSchema, { interval_ms: number; mode: NonNullable<CheckpointingSchema['mode']> }>;

/** Everything of a definition except its graph: the editor always writes these. */
export type PipelineSettings = Refine<
  Omit<DefinitionSchema, 'nodes' | 'edges'>,
  {
    name: string;
    mode: PipelineMode;
    parallelism: number;
    max_parallelism: number;
    checkpointing: CheckpointingConfig;
  }
>;

export type PipelineDefinition = PipelineSettings & { nodes: DefinitionNode[]; edges: DefinitionEdge[] };

/** A validation problem: all of them come back at once, never only the first. */
export type Problem = Schemas['Problem'];
/** GET /api/runs/<id>/disk: the bytes a run holds on disk, as retention last measured them. */
export type RunDiskUsage = Schemas['DiskUsage'];
/** GET /api/session: how full the studio's shared Spark session is. */
export type SessionUse = Schemas['SessionUse'];
/** What of a run's checkpoints was folded into rollups (GET /api/runs/<id>/checkpoints). */
export type FoldedCheckpoints = Schemas['FoldedCheckpoints'];
export type ValidationResult = Schemas['ValidationResult'];

// ---------------------------------------------------------------------------------------------
// Pipelines and their versions

export type PipelineSummary = Schemas['PipelineList'];
export type Pipeline = Refine<Schemas['Pipeline'], { definition: PipelineDefinition }>;
export type VersionSummary = Schemas['Version'];
export type PipelineVersion = Refine<Schemas['VersionDetail'], { definition: PipelineDefinition }>;

export type FieldChange = Schemas['Change'];
export type ElementDiff = Schemas['ItemsDiff'];
export type DefinitionDiff = Schemas['Diff'];

export type PreviewResult = Schemas['Preview'];

// ---------------------------------------------------------------------------------------------
// The planner's summary (the schema documents its vertices, edges and compact lists as open objects)

/** A list of subtask indices or region ids, or its compact form for huge parallelisms. */
export type CompactList<T> = T[] | { count: number; ranges: Array<[number, number]> };

/** A job vertex: a chain of operators. `chain_inputs` is absent from the plans of runs scheduled before chains could
 * fan out (each operator then fed by the one before it); tests and old plans may leave out the rest of the optional ones. */
export type PlanJobVertex = Omit<Schemas['PlanJobVertex'], 'chain_inputs' | 'max_parallelism' | 'is_source'> &
  Partial<Pick<Schemas['PlanJobVertex'], 'chain_inputs' | 'max_parallelism' | 'is_source'>>;

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

export type PlanRegion = Refine<Schemas['PlanRegion'], { vertices?: Record<string, CompactList<number>>; depends_on: CompactList<string> }>;

export type PlanSummary = Refine<
  Schemas['Plan'],
  {
    job_vertices: PlanJobVertex[];
    job_edges: PlanJobEdge[];
    regions: PlanRegion[];
    node_regions: Record<string, CompactList<string>>;
    counts?: Record<string, number>;
  }
>;

// ---------------------------------------------------------------------------------------------
// Runs

export type RunStatus = Schemas['RunStatusEnum'];

/** What each sink.collect node collected, by node id. */
export type CollectedRecords = Record<string, unknown[]>;

export type RestoredFrom = Schemas['RestoredFrom'];

export type Run = Refine<
  Sent<Schemas['Run'], 'status'>,
  {
    mode: PipelineMode;
    /** The definition of the version that runs. */
    definition?: PipelineDefinition;
    /** The planner's summary, written when the run is scheduled (null before). */
    plan?: PlanSummary | null;
    collected: CollectedRecords;
    savepoint_requests: SavepointRequestRow[];
  }
>;

/** A run without its definition, plan and records: what lists and the pipelines' stream show. */
export type RunSummary = Refine<Sent<Schemas['RunSummary'], 'status'>, { mode: PipelineMode }>;

export type RunPage = Refine<Schemas['PaginatedRunSummaryList'], { results: RunSummary[] }>;

type RestoreFromRequest = Schemas['RestoreFromRequest'];

/** A checkpoint by the id users see (#7) and its run, a checkpoint row by pk, or a directory. */
export type RestoreFrom =
  | (Required<Pick<RestoreFromRequest, 'checkpoint'>> & Pick<RestoreFromRequest, 'run'>)
  | Required<Pick<RestoreFromRequest, 'pk'>>
  | Required<Pick<RestoreFromRequest, 'path'>>;

export type StartRunRequest = Partial<Refine<Schemas['RunStartRequest'], { restore_from?: RestoreFrom }>>;

/** GET /api/runs/<id>/state-compatibility?version=N: whether the run's state fits version N. */
export type StateCompatibility = Schemas['StateCompatibility'];

/** A one-click rescale: stop with savepoint, then the rescaled version from it (POST /api/runs/<id>/rescale). */
export type Rescale = Schemas['Rescale'];

export type User = Schemas['User'];

/** A token as listed; `key` only in the answer that created it. */
export type ApiToken = Schemas['Token'] & Partial<Pick<Schemas['NewToken'], 'key'>>;

// ---------------------------------------------------------------------------------------------
// Savepoints

export type SavepointStatus = Schemas['SavepointStatusEnum'];
export type SavepointTrigger = Schemas['SavepointTriggerEnum'];

/** A savepoint request as GET /api/runs/<id>/savepoints and a run's `savepoint_requests` list it. */
export type SavepointRequestRow = Sent<Schemas['SavepointRequest'], 'status'>;

/**
 * A savepoint request as the run page knows it: the REST row, or as much of it as the WebSocket's
 * events told so far (an event carries some of its fields).
 */
export type SavepointRequest = Pick<SavepointRequestRow, 'request_id'> & { status: SavepointStatus } & Partial<Omit<SavepointRequestRow, 'request_id' | 'status'>> & {
    /** Only on requests this page made: whether it was a stop-with-savepoint. */
    stop?: boolean;
  };

// ---------------------------------------------------------------------------------------------
// Checkpoints

/** A completed checkpoint or savepoint whose files are still there (GET /api/runs/<id>/restore-points). */
export type RestorePoint = Schemas['RestorePoint'];

export type CheckpointKind = Schemas['CheckpointKindEnum'];
export type CheckpointStatus = Schemas['CheckpointStatusEnum'];
/** A subtask's part of a checkpoint; in an event's flat list it says its vertex and task ("vertex#i"). */
export type SubtaskCheckpointStats = Schemas['SubtaskStats'] & { vertex?: string; task?: string | [string, number] };
export type CheckpointVertexStats = Schemas['VertexCheckpoint'];
export type DistributionSummary = Schemas['Statistic'];
export type CheckpointCounts = Schemas['CheckpointCounts'];

/** One row of a run's checkpoint history, as REST sends it. */
export type CheckpointRow = Schemas['CheckpointRow'];

/** The fields every checkpoint event can fill; the others only the REST history has. */
type CheckpointEventFields =
  | 'trigger_timestamp'
  | 'latest_ack_timestamp'
  | 'end_to_end_duration'
  | 'num_acknowledged_subtasks'
  | 'num_subtasks'
  | 'external_path'
  | 'failure_message';

/**
 * A row of a run's checkpoint list: from the REST history, or built from the WebSocket's
 * checkpoint events, which do not carry the row id, the kind of trigger and the alignment figures.
 */
export type CheckpointStats = Pick<CheckpointRow, 'id' | 'kind' | 'status' | CheckpointEventFields> &
  Partial<Omit<CheckpointRow, 'id' | 'kind' | 'status' | 'state_size' | CheckpointEventFields>> & {
    /** null until it completes, in a row built from events. */
    state_size: number | null;
    subtasks?: SubtaskCheckpointStats[];
  };

/**
 * One checkpoint with its subtasks: GET /api/runs/<id>/checkpoints/<checkpoint id> (grouped by
 * vertex), or the live row's flat list from events until those details arrive.
 */
export type CheckpointDetails = CheckpointStats & Partial<Pick<Schemas['CheckpointDetail'], 'vertices'>>;

/** GET /api/runs/<id>/checkpoints: counts, summary, latest and the history, newest first. */
export type CheckpointHistory = Schemas['CheckpointOverview'];

// ---------------------------------------------------------------------------------------------
// Exceptions and metrics

export type TaskException = Schemas['TaskException'];
export type RestartEntry = Schemas['Restart'];
export type RunExceptions = Schemas['Exceptions'];

/**
 * One job vertex's metrics. The engine's raw time shares (ms per second, summed over the vertex's
 * subtasks) come along with the ratios the studio derives from them.
 */
export type VertexMetrics = Schemas['VertexMetrics'] & {
  busy_ms_per_second?: number;
  idle_ms_per_second?: number;
  backpressured_ms_per_second?: number;
};

/** One node's metrics from its operator's own counters, with its subtasks. */
export type NodeMetrics = Schemas['NodeMetrics'];
export type SubtaskMetrics = Schemas['SubtaskMetrics'];
/** What a source node has left to read: sums over its splits, and the splits furthest behind. */
export type NodeLag = Schemas['NodeLag'];
/** The counts of one checked node or edge's expectations. */
export type ExpectationCounts = Schemas['ExpectationCounts'];
export type SubtaskCheckpoint = Schemas['SubtaskCheckpoint'];

export type RunMetrics = Refine<Schemas['Metrics'], { vertices: Record<string, VertexMetrics> }>;

// ---------------------------------------------------------------------------------------------
// The run's WebSocket events (ws/runs/<id>/): not in the OpenAPI schema; stored events are
// GET /api/runs/<id>/events, the schema's `Event` with an open `data`.

/** The lifecycle events; the server may send more (e.g. "discarded" when a checkpoint is subsumed). */
export type CheckpointEventKind = 'triggered' | 'acknowledged' | 'completed' | 'failed' | (string & {});

/** The coordinator's statistics of one checkpoint after a lifecycle event. */
export type CheckpointEventData = Partial<Pick<CheckpointStats, CheckpointEventFields | 'state_size' | 'subtasks' | 'discarded' | 'is_savepoint' | 'pk'>> &
  Pick<CheckpointStats, 'id' | 'kind'> & {
    event: CheckpointEventKind;
    /** The checkpoint's status after the event; sent lower-case over the WebSocket ("in_progress"). */
    status?: string;
  };

/** A savepoint request changed status; a failed one says why, a completed one where it is. */
export type SavepointEventData = Pick<SavepointRequestRow, 'request_id'> & Partial<Pick<SavepointRequestRow, 'location' | 'failure_cause' | 'checkpoint_id' | 'kind'>> & {
  status: SavepointStatus | (string & {});
};

/** A savepoint request's progress, after each checkpoint event of its savepoint. */
export type SavepointProgressEventData = Pick<SavepointRequestRow, 'request_id' | 'kind' | 'trigger'> & {
  status: SavepointStatus;
  checkpoint_id: number;
  acknowledged: number;
  total: number;
};

export interface StatusEventData {
  status: RunStatus;
  cause?: string | null;
  /** A restart's regions and delay. */
  regions?: string[];
  delay_ms?: number;
}

/** A subtask failed: `task` is "vertex#subtask"; `error` the message, then the traceback's last frames. */
export type TaskFailedEventData = Pick<TaskException, 'task'> & Partial<Pick<TaskException, 'region' | 'attempt'>> & { error: string };

export interface MetricsEventData {
  vertices?: Record<string, VertexMetrics>;
  /** Per node, from each operator's own counters (absent from older studios' events). */
  nodes?: Record<string, NodeMetrics>;
  /** Per checked node ("node:<id>") or edge ("edge:<id>"): its expectations' counts. */
  expectations?: Record<string, ExpectationCounts>;
  collected?: CollectedRecords;
}

export interface LogEventData {
  level?: string;
  message?: string;
  [field: string]: unknown;
}

export interface FinishedEventData {
  collected?: CollectedRecords;
  [field: string]: unknown;
}

/** Events a long run's retention folded: seqs first_seq..last_seq (this event's seq), `types` counting them. */
export interface FoldedEventData {
  first_seq: number;
  last_seq: number;
  count: number;
  types: Record<string, number>;
}

/** How a run's driver started: a warm driver (started before the run) or not, its Spark session up or not. */
export interface StartupEventData {
  /** "warm": a driver started before the run; "cold": one started for it; "session": the shared session's. */
  driver?: 'warm' | 'cold' | 'session';
  /** "ready": its Spark session was up; "starting": the run waits for it. */
  spark?: 'ready' | 'starting';
  [field: string]: unknown;
}

/** A region of the job and what happened to it; "waiting": it waits for `slots` slots, `capacity` being free. */
export interface RegionEventData {
  event: 'waiting' | 'scheduled' | 'canceled' | 'finished' | string;
  region: string;
  slots?: number;
  capacity?: number;
}

type RunEventOf<T extends string, D> = Refine<Schemas['Event'], { type: T; data: D }>;

export type RunEvent =
  | RunEventOf<'status', StatusEventData>
  | RunEventOf<'checkpoint', CheckpointEventData>
  | RunEventOf<'metrics', MetricsEventData>
  | RunEventOf<'savepoint', SavepointEventData>
  | RunEventOf<'savepoint_progress', SavepointProgressEventData>
  | RunEventOf<'log', LogEventData>
  | RunEventOf<'finished', FinishedEventData>
  | RunEventOf<'task_failed', TaskFailedEventData>
  | RunEventOf<'rescale', Rescale>
  | RunEventOf<'folded', FoldedEventData>
  | RunEventOf<'startup', StartupEventData>
  | RunEventOf<'region', RegionEventData>;
