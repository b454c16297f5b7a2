import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyDefinition } from '../state/shared/definition';
import { api, ApiError, fieldProblems, isAuthenticationError, MAX_READ_RETRIES, nonFiniteAt, rowsOf, setUnauthorizedHandler } from './client';

function respond(status: number, body: unknown) {
  const fetchMock = vi.fn(async () => new Response(body === undefined ? null : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

afterEach(() => {
  vi.unstubAllGlobals();
  setUnauthorizedHandler(null);
});

describe('api client', () => {
  it("carries the body fields a 400 names, nested ones by their path", async () => {
    respond(400, { detail: 'threshold: A valid number is required.; nodes: gen: A valid integer is required.',
      fields: { threshold: ['A valid number is required.'], nodes: { gen: ['A valid integer is required.'] }, non_field_errors: ['both'] } });
    const failure = (await api.rescaleRun(4, { parallelism: 2 }).catch((error: unknown) => error)) as ApiError;
    expect(failure.status).toBe(400);
    expect(failure.fields).toEqual([
      { field: 'threshold', message: 'A valid number is required.' },
      { field: 'nodes.gen', message: 'A valid integer is required.' },
      { field: '', message: 'both' },
    ]);
    expect(fieldProblems(undefined)).toEqual([]);
  });

  it('sends no body holding NaN or an infinity (JSON.stringify would send null) and names where it is', async () => {
    const fetchMock = respond(201, {});
    const failure = (await api.createSchedule({ run: 3, interval_s: Number('soon'), retain: 3 }).catch((error: unknown) => error)) as ApiError;
    expect(fetchMock).not.toHaveBeenCalled();
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure.fields).toEqual([{ field: 'interval_s', message: 'not a number: a finite number is required' }]);
    expect(nonFiniteAt({ nodes: { gen: [1, Infinity] } })).toBe('nodes.gen[1]');
    expect(nonFiniteAt({ limit: 5, name: 'x', enabled: true, none: null })).toBeNull();
  });

  it('sends JSON to the documented paths and returns the parsed body', async () => {
    const fetchMock = respond(201, { id: 3, status: 'CREATED' });
    const run = await api.startRun(7, 'batch');
    expect(run).toEqual({ id: 3, status: 'CREATED' });
    const [path, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(path).toBe('/api/pipelines/7/runs');
    expect(init.method).toBe('POST');
    expect(JSON.parse(String(init.body))).toEqual({ mode: 'batch' });
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it('turns a refused definition into an ApiError carrying every problem', async () => {
    const errors = [
      { node: 'map-2', edge: null, field: 'params.expression', message: 'required' },
      { node: null, edge: 'e1', field: 'key', message: 'a hash edge needs a key expression' },
    ];
    respond(400, { errors });
    const failure = await api.createPipeline({ name: 'x', definition: emptyDefinition() }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(400);
    expect((failure as ApiError).problems).toEqual(errors);
    expect((failure as ApiError).message).toBe('2 problems');
  });

  it('names the saved pipeline in validate and preview, so relative paths resolve in its workspace', async () => {
    const fetchMock = respond(200, { valid: true, errors: [] });
    await api.validateDefinition(emptyDefinition(), 12);
    await api.validateDefinition(emptyDefinition());
    await api.preview(emptyDefinition(), 5, 12);
    const bodies = fetchMock.mock.calls.map((call) => JSON.parse(String((call as unknown as [string, RequestInit])[1].body)));
    expect(bodies.map((body) => body.pipeline)).toEqual([12, undefined, 12]);
    expect(bodies[2].limit).toBe(5);
  });

  it('keeps a refusal for lack of a permission (403 naming the node) as problems, not as "log in first"', async () => {
    const errors = [{ node: 'py', edge: null, field: 'type',
      message: "node 'py' runs Python code: only users with the permission to run Python code may save a pipeline with one" }];
    respond(403, { detail: "node 'py' runs Python code (transform.python): ...", errors });
    const unauthorized = vi.fn();
    setUnauthorizedHandler(unauthorized);
    const failure = (await api.createPipeline({ name: 'x', definition: emptyDefinition() }).catch((error: unknown) => error)) as ApiError;
    expect(failure.status).toBe(403);
    expect(failure.problems).toEqual(errors);
    expect(failure.message).toMatch(/^node 'py' runs Python code/);
    expect(isAuthenticationError(failure)).toBe(false);
    expect(unauthorized).not.toHaveBeenCalled();
  });

  it('uses the detail of other errors as the message', async () => {
    respond(409, { detail: 'run 4 already ended with status FINISHED' });
    await expect(api.cancelRun(4)).rejects.toMatchObject({ status: 409, message: 'run 4 already ended with status FINISHED', problems: [] });
  });

  it('falls back to the status when the body is not JSON', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })));
    await expect(api.getRun(1)).rejects.toMatchObject({ status: 502, message: '502 Bad Gateway' });
  });
});

describe('api client: an overloaded studio', () => {
  it('sends a read shed with 503 again after its Retry-After, and returns the answer', async () => {
    vi.useFakeTimers();
    try {
      const fetchMock = vi
        .fn()
        .mockResolvedValueOnce(new Response('{"detail": "overloaded"}', { status: 503, headers: { 'Retry-After': '1' } }))
        .mockResolvedValueOnce(new Response(JSON.stringify({ id: 4 }), { status: 200 }));
      vi.stubGlobal('fetch', fetchMock);
      const pipeline = api.getPipeline(4);
      await vi.advanceTimersByTimeAsync(1000);
      expect(await pipeline).toEqual({ id: 4 });
      expect(fetchMock).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never repeats a write, and gives up on a read after a few tries', async () => {
    vi.useFakeTimers();
    try {
      const fetchMock = respond(503, { detail: 'the studio is overloaded; retry in a moment' });
      await expect(api.startRun(7, 'batch')).rejects.toMatchObject({ status: 503 });
      expect(fetchMock).toHaveBeenCalledTimes(1);
      const read = api.getPipeline(4).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(await read).toMatchObject({ status: 503, message: 'the studio is overloaded; retry in a moment' });
      expect(fetchMock).toHaveBeenCalledTimes(1 + 1 + MAX_READ_RETRIES);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('api client: login and the newer endpoints', () => {
  it('hands a 401 to the login handler, and rethrows it', async () => {
    const handler = vi.fn();
    setUnauthorizedHandler(handler);
    respond(401, { detail: 'Authentication credentials were not provided.' });
    await expect(api.listPipelines()).rejects.toMatchObject({ status: 401 });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('tells "log in first" from other refusals', () => {
    expect(isAuthenticationError(new ApiError(401, 'Invalid token.'))).toBe(true);
    expect(isAuthenticationError(new ApiError(403, 'Authentication credentials were not provided.'))).toBe(true);
    expect(isAuthenticationError(new ApiError(403, 'CSRF Failed: CSRF token missing.'))).toBe(false);
    expect(isAuthenticationError(new ApiError(403, 'You do not have permission to perform this action.'))).toBe(false);
    expect(isAuthenticationError(new Error('x'))).toBe(false);
  });

  it('leaves a failed login to the login page', async () => {
    const handler = vi.fn();
    setUnauthorizedHandler(handler);
    respond(403, { detail: 'Authentication credentials were not provided.' });
    await expect(api.me()).rejects.toMatchObject({ status: 403 });
    expect(handler).not.toHaveBeenCalled();
  });

  it('starts a run restored from a checkpoint, with the version', async () => {
    const fetchMock = respond(201, { id: 9 });
    await api.startRun(4, { version: 2, mode: 'streaming', restore_from: { checkpoint: 17 } });
    const [path, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(path).toBe('/api/pipelines/4/runs');
    expect(JSON.parse(String(init.body))).toEqual({ version: 2, mode: 'streaming', restore_from: { checkpoint: 17 } });
  });

  it('sends stop with drain and savepoint triggers to their paths, with the CSRF header', async () => {
    vi.stubGlobal('document', { cookie: 'csrftoken=abc; other=1' });
    const fetchMock = respond(202, { request_id: 'f00d' });
    expect(await api.stopRun(3, true)).toEqual({ request_id: 'f00d' });
    await api.triggerSavepoint(3);
    const calls = fetchMock.mock.calls as unknown as Array<[string, RequestInit]>;
    expect(calls.map(([path]) => path)).toEqual(['/api/runs/3/stop', '/api/runs/3/savepoints']);
    expect(JSON.parse(String(calls[0][1].body))).toEqual({ drain: true });
    expect((calls[0][1].headers as Record<string, string>)['X-CSRFToken']).toBe('abc');
  });

  it('builds query strings and reads paginated or plain lists', async () => {
    const fetchMock = respond(200, { count: 1, next: null, previous: null, results: [{ id: 1 }] });
    const answer = await api.searchRuns({ pipeline: 5, status: 'RUNNING,FAILED' });
    expect((fetchMock.mock.calls as unknown as Array<[string]>)[0][0]).toBe('/api/runs?pipeline=5&status=RUNNING%2CFAILED');
    expect(rowsOf(answer as { results: unknown[] })).toEqual([{ id: 1 }]);
    expect(rowsOf([1, 2])).toEqual([1, 2]);
    expect(api.exportUrl(2, 3)).toBe('/api/pipelines/2/export?version=3');
  });

  it('accepts an empty 202 body', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('', { status: 202 })));
    await expect(api.logout()).resolves.toBeUndefined();
  });
});
