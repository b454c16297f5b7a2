import { vi } from 'vitest';

export interface SentRequest {
  path: string;
  method: string;
  /** The JSON body as sent (parsed back), undefined when there was none. */
  body: unknown;
  /** The body's text as it went on the wire. */
  raw: string | undefined;
}

type Answer = { status: number; body: unknown } | undefined;

/** Stub fetch: every call is recorded, and answered by ``answer`` (by default 200 with ``[]`` for a GET,
 * ``{}`` otherwise). */
export function recordRequests(answer: (request: SentRequest) => Answer = () => undefined): SentRequest[] {
  const sent: SentRequest[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (path: string, init: RequestInit = {}) => {
      const raw = init.body === undefined || init.body === null ? undefined : String(init.body);
      const request = { path: String(path), method: init.method ?? 'GET', body: raw === undefined ? undefined : JSON.parse(raw), raw };
      sent.push(request);
      const reply = answer(request) ?? { status: 200, body: request.method === 'GET' ? [] : {} };
      return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return sent;
}

/** The requests that carried a body (what the forms sent), leaving out the reads. */
export function writes(sent: SentRequest[]): SentRequest[] {
  return sent.filter((request) => request.method !== 'GET');
}
