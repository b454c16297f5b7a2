import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyDefinition } from '../state/definition';
import { api, ApiError } from './client';

function respond(status: number, body: unknown) {
  const fetchMock = vi.fn(async () => new Response(body === undefined ? null : JSON.stringify(body), { status }));
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('api client', () => {
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

  it('uses the detail of other errors as the message', async () => {
    respond(409, { detail: 'run 4 already ended with status FINISHED' });
    await expect(api.cancelRun(4)).rejects.toMatchObject({ status: 409, message: 'run 4 already ended with status FINISHED', problems: [] });
  });

  it('falls back to the status when the body is not JSON', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })));
    await expect(api.getRun(1)).rejects.toMatchObject({ status: 502, message: '502 Bad Gateway' });
  });
});
