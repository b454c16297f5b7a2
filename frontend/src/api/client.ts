/**
 * Typed REST client of the studio API. Every call returns the parsed JSON body or throws
 * an ApiError that carries the server's `detail` or validation `errors`.
 */
import type {
  RunDiskUsage,
  SessionUse,
  ApiToken,
  CheckpointDetails,
  CheckpointHistory,
  DefinitionDiff,
  Operator,
  Pipeline,
  PipelineDefinition,
  PipelineMode,
  PipelineSummary,
  PipelineVersion,
  PlanSummary,
  PreviewResult,
  Problem,
  Rescale,
  RestorePoint,
  Run,
  RunExceptions,
  RunMetrics,
  RunPage,
  RunSummary,
  SavepointRequestRow,
  StateCompatibility,
  StartRunRequest,
  User,
  ValidationResult,
  VersionSummary,
} from './types';
import type { AlertRule, AlertRuleRequest, Delivery, Notification, Proof, Schedule, ScheduleRequest, SuiteRun, SuiteRunListItem, Tap, TapRequest, TestBadge } from './operations';

/** A request body's field the server (or the client, before sending) refused: `threshold`, `nodes.gen`. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly problems: Problem[];
  /** The body's fields a 400 names (its `fields`), one row per message. */
  readonly fields: FieldProblem[];

  constructor(status: number, message: string, problems: Problem[] = [], fields: FieldProblem[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.problems = problems;
    this.fields = fields;
  }
}

/** DRF's nested field errors (`{"nodes": {"gen": ["..."]}}`) as one row per message, named by path. */
export function fieldProblems(fields: unknown, prefix = ''): FieldProblem[] {
  if (typeof fields === 'string') return [{ field: prefix, message: fields }];
  if (Array.isArray(fields)) return fields.flatMap((item) => fieldProblems(item, prefix));
  if (fields && typeof fields === 'object') {
    return Object.entries(fields).flatMap(([name, value]) =>
      fieldProblems(value, name === 'non_field_errors' ? prefix : prefix ? `${prefix}.${name}` : name),
    );
  }
  return [];
}

/** Where in ``body`` a number is NaN or infinite (JSON.stringify would send null there), or null. */
export function nonFiniteAt(body: unknown, where = ''): string | null {
  if (typeof body === 'number') return Number.isFinite(body) ? null : where || 'the body';
  if (body && typeof body === 'object') {
    for (const [key, value] of Object.entries(body)) {
      const found = nonFiniteAt(value, Array.isArray(body) ? `${where}[${key}]` : where ? `${where}.${key}` : key);
      if (found !== null) return found;
    }
  }
  return null;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Whether an error means "log in first": 401 always; 403 only when the server says no
 * credentials came (DRF's answer to an anonymous session), not for a refused CSRF token or a
 * permission a logged-in user lacks.
 */
export function isAuthenticationError(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.status === 401) return true;
  return error.status === 403 && /credentials|not authenticated|authenticat(ion|ed) required|log ?in/i.test(error.message) && !/csrf/i.test(error.message);
}

type UnauthorizedHandler = (error: ApiError) => void;
let onUnauthorized: UnauthorizedHandler | null = null;

/** Called once per request that needs a login (the app sends the user to /login). */
export function setUnauthorizedHandler(handler: UnauthorizedHandler | null): void {
  onUnauthorized = handler;
}

/** Django's CSRF token, needed for unsafe methods when the session is authenticated. */
export function csrfToken(): string | null {
  if (typeof document === 'undefined') return null;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : null;
}

async function errorFrom(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy error page, say): the status line is all we have.
  }
  if (body && typeof body === 'object') {
    const { detail, errors, fields } = body as { detail?: unknown; errors?: unknown; fields?: unknown };
    const named = fieldProblems(fields);
    if (Array.isArray(errors)) {
      const problems = errors as Problem[];
      const summary = problems.length === 1 ? problems[0].message : `${problems.length} problems`;
      return new ApiError(response.status, summary, problems, named);
    }
    if (typeof detail === 'string') return new ApiError(response.status, detail, [], named);
  }
  return new ApiError(response.status, `${response.status} ${response.statusText || 'request failed'}`);
}

/** How often a read shed with 503 is sent again before its error reaches the caller. */
export const MAX_READ_RETRIES = 3;

/** The wait a 503's Retry-After asks for (seconds), between 0.1 and 5 s; 1 s when it says none. */
function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get('Retry-After') ?? '1');
  return Math.min(5000, Math.max(100, (Number.isFinite(seconds) ? seconds : 1) * 1000));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface RequestOptions {
  /** Leave a 401/403 to the caller instead of sending the user to the login page. */
  anonymous?: boolean;
}

export async function request<T>(method: Method, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const notANumber = nonFiniteAt(body);
  if (notANumber !== null) {
    // A form that read "abc" with Number() holds NaN, which JSON.stringify would send as null: say so instead.
    const message = 'not a number: a finite number is required';
    throw new ApiError(400, `${notANumber}: ${message}`, [], [{ field: notANumber, message }]);
  }
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') {
    const token = csrfToken();
    if (token) headers['X-CSRFToken'] = token;
  }
  const send = () =>
    fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  let response = await send();
  // An overloaded studio sheds reads with 503 + Retry-After; a read is safe to repeat after that wait.
  for (let retry = 0; method === 'GET' && response.status === 503 && retry < MAX_READ_RETRIES; retry += 1) {
    await delay(retryAfterMs(response));
    response = await send();
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (!options.anonymous && isAuthenticationError(error)) onUnauthorized?.(error);
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** ``body`` with the pipeline whose workspace the server resolves relative paths in, when there is one. */
function withPipeline<T extends object>(body: T, pipelineId: number | null): T & { pipeline?: number } {
  return pipelineId == null ? body : { ...body, pipeline: pipelineId };
}

/** ``body`` naming the environment whose parameters fill the definition's ``${param:…}`` (none: left out). */
export function withEnvironment<T extends object>(body: T, environment: string | null | undefined): T & { environment?: string } {
  return environment ? { ...body, environment } : body;
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface SavePipelineRequest {
  name?: string;
  definition: PipelineDefinition;
  message?: string;
}

export const api = {
  listOperators: () => request<Operator[]>('GET', '/api/operators'),

  listPipelines: () => request<PipelineSummary[] | { results: PipelineSummary[] }>('GET', '/api/pipelines'),
  getPipeline: (id: number) => request<Pipeline>('GET', `/api/pipelines/${id}`),
  createPipeline: (body: SavePipelineRequest & { name: string }) =>
    request<Pipeline>('POST', '/api/pipelines', body),
  updatePipeline: (id: number, body: SavePipelineRequest) =>
    request<Pipeline>('PUT', `/api/pipelines/${id}`, body),
  /**
   * ``pipelineId``: the saved pipeline whose workspace relative paths resolve in (the draft's when null);
   * ``environment``: whose parameters are filled in and checked (null: references are left to a run).
   */
  validateDefinition: (definition: PipelineDefinition, pipelineId: number | null = null, environment: string | null = null) =>
    request<ValidationResult>('POST', '/api/pipelines/validate', withEnvironment(withPipeline({ definition }, pipelineId), environment)),

  deletePipeline: (id: number) => request<void>('DELETE', `/api/pipelines/${id}`),
  listVersions: (id: number) => request<VersionSummary[]>('GET', `/api/pipelines/${id}/versions`),
  getVersion: (id: number, number: number) => request<PipelineVersion>('GET', `/api/pipelines/${id}/versions/${number}`),
  diffVersions: (id: number, from: number, to: number) =>
    request<DefinitionDiff>('GET', `/api/pipelines/${id}/diff${query({ from, to })}`),
  diffDefinitions: (from: PipelineDefinition, to: PipelineDefinition) =>
    request<DefinitionDiff>('POST', '/api/pipelines/diff', { from, to }),
  rollback: (id: number, version: number, message?: string) =>
    request<Pipeline>('POST', `/api/pipelines/${id}/rollback`, message ? { version, message } : { version }),
  setIsolation: (id: number, isolated: boolean) => request<Pipeline>('POST', `/api/pipelines/${id}/isolation`, { isolated }),
  exportUrl: (id: number, version?: number) => `/api/pipelines/${id}/export${query({ version })}`,
  importPipeline: (definition: PipelineDefinition, name?: string, message?: string) =>
    request<Pipeline>('POST', '/api/pipelines/import', { definition, name, message }),
  planOf: (definition: PipelineDefinition) => request<PlanSummary>('POST', '/api/plan', { definition }),
  pipelinePlan: (id: number, version?: number) => request<PlanSummary>('GET', `/api/pipelines/${id}/plan${query({ version })}`),
  /** ``environment``: whose parameters the preview runs with (the answer says which it was; null: none). */
  preview: (definition: PipelineDefinition, limit?: number, pipelineId: number | null = null, environment: string | null = null) =>
    request<PreviewResult>('POST', '/api/preview', withEnvironment(withPipeline(limit ? { definition, limit } : { definition }, pipelineId), environment)),

  startRun: (pipelineId: number, options: PipelineMode | StartRunRequest = {}) =>
    request<Run>('POST', `/api/pipelines/${pipelineId}/runs`, typeof options === 'string' ? { mode: options } : options),
  listRuns: (pipelineId: number) => request<RunSummary[] | RunPage>('GET', `/api/pipelines/${pipelineId}/runs`),
  searchRuns: (params: { pipeline?: number; status?: string; page_size?: number }) => request<RunPage | RunSummary[]>('GET', `/api/runs${query(params)}`),
  getRun: (id: number) => request<Run>('GET', `/api/runs/${id}`),
  getSession: () => request<SessionUse>('GET', '/api/session'),
  getRunDisk: (id: number) => request<RunDiskUsage>('GET', `/api/runs/${id}/disk`),
  cancelRun: (id: number) => request<Run>('POST', `/api/runs/${id}/cancel`),
  stopRun: (id: number, drain: boolean, targetDirectory?: string) =>
    request<{ request_id: string }>('POST', `/api/runs/${id}/stop`, targetDirectory ? { drain, target_directory: targetDirectory } : { drain }),
  rescaleRun: (id: number, body: { parallelism?: number; nodes?: Record<string, number> }) =>
    request<Rescale>('POST', `/api/runs/${id}/rescale`, body),
  triggerSavepoint: (id: number, targetDirectory?: string) =>
    request<{ request_id: string }>('POST', `/api/runs/${id}/savepoints`, targetDirectory ? { target_directory: targetDirectory } : {}),
  listSavepoints: (id: number) => request<SavepointRequestRow[]>('GET', `/api/runs/${id}/savepoints`),
  getSavepoint: (id: number, requestId: string) => request<SavepointRequestRow>('GET', `/api/runs/${id}/savepoints/${encodeURIComponent(requestId)}`),
  /** `limit`: how many history rows, newest first (the server's default without it; 0 for the counts and summary only). */
  getCheckpoints: (runId: number, limit?: number) => request<CheckpointHistory>('GET', `/api/runs/${runId}/checkpoints${query({ limit })}`),
  getCheckpoint: (runId: number, checkpointId: number) =>
    request<CheckpointDetails>('GET', `/api/runs/${runId}/checkpoints/${checkpointId}`),
  listRestorePoints: (runId: number) => request<RestorePoint[]>('GET', `/api/runs/${runId}/restore-points`),
  getCheckpointConfig: (runId: number) => request<Record<string, unknown>>('GET', `/api/runs/${runId}/checkpoints/config`),
  stateCompatibility: (runId: number, version: number) =>
    request<StateCompatibility>('GET', `/api/runs/${runId}/state-compatibility${query({ version })}`),
  getExceptions: (runId: number) => request<RunExceptions>('GET', `/api/runs/${runId}/exceptions`),
  getMetrics: (runId: number, samples?: number) => request<RunMetrics>('GET', `/api/runs/${runId}/metrics${query({ samples })}`),

  listSchedules: () => request<Schedule[]>('GET', '/api/schedules'),
  createSchedule: (body: ScheduleRequest) => request<Schedule>('POST', '/api/schedules', body),
  deleteSchedule: (id: number) => request<void>('DELETE', `/api/schedules/${id}`),

  listAlertRules: (pipeline?: number) => request<AlertRule[]>('GET', `/api/alerts/rules${query({ pipeline })}`),
  createAlertRule: (body: AlertRuleRequest) => request<AlertRule>('POST', '/api/alerts/rules', body),
  updateAlertRule: (id: number, body: Partial<AlertRuleRequest>) => request<AlertRule>('PATCH', `/api/alerts/rules/${id}`, body),
  deleteAlertRule: (id: number) => request<void>('DELETE', `/api/alerts/rules/${id}`),
  /** Fire the rule once: the notifications it sent (its webhook, if any, is queued as a delivery). */
  testAlertRule: (id: number) => request<Notification[]>('POST', `/api/alerts/rules/${id}/test`),
  alertRuleDeliveries: (id: number) => request<Delivery[]>('GET', `/api/alerts/rules/${id}/deliveries`),
  listNotifications: () => request<Notification[]>('GET', '/api/alerts/notifications'),
  unreadNotifications: () => request<{ unread: number }>('GET', '/api/alerts/notifications/unread-count'),
  readAllNotifications: () => request<{ unread: number }>('POST', '/api/alerts/notifications/read-all'),

  openTap: (runId: number, body: TapRequest) => request<Tap>('POST', `/api/runs/${runId}/taps`, body),
  closeTap: (runId: number, tapId: string) => request<void>('DELETE', `/api/runs/${runId}/taps/${tapId}`),

  /** Run a version's test cases (`version`), or a draft's (`definition`); answers when they ended. */
  runTestCases: (pipelineId: number, body: { version?: number; definition?: PipelineDefinition; cases?: string[]; environment?: string }) =>
    request<SuiteRun>('POST', `/api/pipelines/${pipelineId}/test-runs`, body),
  listTestRuns: (pipelineId: number, version?: number) =>
    request<SuiteRunListItem[]>('GET', `/api/pipelines/${pipelineId}/test-runs${query({ version })}`),
  startProof: (pipelineId: number, body: { version?: number; test_case?: string; kills?: number; seed?: number; rescale?: boolean }) =>
    request<Proof>('POST', `/api/pipelines/${pipelineId}/proofs`, body),
  getProof: (pipelineId: number, proofId: number) => request<Proof>('GET', `/api/pipelines/${pipelineId}/proofs/${proofId}`),
  listProofs: (pipelineId: number, version?: number) => request<Proof[]>('GET', `/api/pipelines/${pipelineId}/proofs${query({ version })}`),
  testBadges: (pipelineId: number) => request<TestBadge[]>('GET', `/api/pipelines/${pipelineId}/test-badges`),

  login: (username: string, password: string) =>
    request<User>('POST', '/api/auth/login', { username, password }, { anonymous: true }),
  logout: () => request<void>('POST', '/api/auth/logout', {}, { anonymous: true }),
  me: () => request<User>('GET', '/api/auth/me', undefined, { anonymous: true }),
  listTokens: () => request<ApiToken[] | { results: ApiToken[] }>('GET', '/api/auth/tokens'),
  createToken: (name: string) => request<ApiToken>('POST', '/api/auth/tokens', { name }),
  revokeToken: (id: number) => request<void>('DELETE', `/api/auth/tokens/${id}`),
};

/** A list endpoint's rows, whether it answers a plain list or a page. */
export function rowsOf<T>(answer: T[] | { results: T[] } | null | undefined): T[] {
  if (!answer) return [];
  return Array.isArray(answer) ? answer : (answer.results ?? []);
}

export type Api = typeof api;
