/**
 * Typed REST client of the studio API. Every call returns the parsed JSON body or throws
 * an ApiError that carries the server's `detail` or validation `errors`.
 */
import type {
  CheckpointHistory,
  Operator,
  Pipeline,
  PipelineDefinition,
  PipelineMode,
  PipelineSummary,
  Problem,
  Run,
  ValidationResult,
} from './types';

export class ApiError extends Error {
  readonly status: number;
  readonly problems: Problem[];

  constructor(status: number, message: string, problems: Problem[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.problems = problems;
  }
}

type Method = 'GET' | 'POST' | 'PUT';

/** Django's CSRF token, needed for unsafe methods when the session is authenticated. */
function csrfToken(): string | null {
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
    const { detail, errors } = body as { detail?: unknown; errors?: unknown };
    if (Array.isArray(errors)) {
      const problems = errors as Problem[];
      const summary = problems.length === 1 ? problems[0].message : `${problems.length} problems`;
      return new ApiError(response.status, summary, problems);
    }
    if (typeof detail === 'string') return new ApiError(response.status, detail);
  }
  return new ApiError(response.status, `${response.status} ${response.statusText || 'request failed'}`);
}

async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET') {
    const token = csrfToken();
    if (token) headers['X-CSRFToken'] = token;
  }
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await errorFrom(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export interface SavePipelineRequest {
  name?: string;
  definition: PipelineDefinition;
  message?: string;
}

export const api = {
  listOperators: () => request<Operator[]>('GET', '/api/operators'),

  listPipelines: () => request<PipelineSummary[]>('GET', '/api/pipelines'),
  getPipeline: (id: number) => request<Pipeline>('GET', `/api/pipelines/${id}`),
  createPipeline: (body: SavePipelineRequest & { name: string }) =>
    request<Pipeline>('POST', '/api/pipelines', body),
  updatePipeline: (id: number, body: SavePipelineRequest) =>
    request<Pipeline>('PUT', `/api/pipelines/${id}`, body),
  validateDefinition: (definition: PipelineDefinition) =>
    request<ValidationResult>('POST', '/api/pipelines/validate', { definition }),

  startRun: (pipelineId: number, mode?: PipelineMode) =>
    request<Run>('POST', `/api/pipelines/${pipelineId}/runs`, mode ? { mode } : {}),
  listRuns: (pipelineId: number) => request<Run[]>('GET', `/api/pipelines/${pipelineId}/runs`),
  getRun: (id: number) => request<Run>('GET', `/api/runs/${id}`),
  cancelRun: (id: number) => request<Run>('POST', `/api/runs/${id}/cancel`),
  getCheckpoints: (runId: number) => request<CheckpointHistory>('GET', `/api/runs/${runId}/checkpoints`),
};

export type Api = typeof api;
