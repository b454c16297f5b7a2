/**
 * The WebSocket client of a run's event stream.
 *
 * Life cycle: start() connects with `after=<last seq>`; every message is parsed, de-duplicated
 * by seq and handed to onEvent in order. When the socket drops, the connection state becomes
 * "disconnected" and a reconnect is scheduled with exponential backoff, again passing the last
 * seq seen, so nothing is lost and nothing is applied twice. An event whose seq is not the
 * next one (a gap: events lost on the way) is not applied; the client reconnects at once with
 * the last seq it applied, and the server replays the missing events from its store.
 * stop() closes for good. When shouldReconnect() says no (the run has ended), a drop ends the
 * stream quietly instead. A close that says the server refuses this user (4401 not signed in, 4403
 * access revoked while connected, 4404 not visible: a team member removed, a share taken away) ends
 * the stream for good too, and onRefused says so: asking again would be refused again.
 */
import type { RunEvent } from './types';
import { DEFAULT_BACKOFF, reconnectDelay, runEventsUrl, takeNewEvents, type BackoffPolicy } from '../state/run/eventSequence';

export type ConnectionState = 'connecting' | 'open' | 'disconnected' | 'closed';

/** Close codes by which the server refuses the user (studio.realtime.consumers): no reconnect helps. */
export const REFUSED_CODES: ReadonlySet<number> = new Set([4401, 4403, 4404]);

/** The close code of a socket's close event, when it has one. */
export function closeCodeOf(event: unknown): number | null {
  const code = event && typeof event === 'object' ? (event as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : null;
}

/** The part of the browser WebSocket this client uses; tests pass a fake. */
export interface SocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(): void;
}

export interface RunEventStreamOptions {
  runId: number;
  onEvent: (event: RunEvent) => void;
  onConnectionChange?: (state: ConnectionState) => void;
  shouldReconnect?: () => boolean;
  /** The server refused the user (a close code of REFUSED_CODES): the stream has ended for good. */
  onRefused?: (code: number) => void;
  createSocket?: (url: string) => SocketLike;
  origin?: { protocol: string; host: string };
  initialSeq?: number;
  backoff?: BackoffPolicy;
  /** Source of the backoff jitter; tests pin it. */
  random?: () => number;
}

function parseEvents(raw: unknown): RunEvent[] {
  if (typeof raw !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.filter(
      (item): item is RunEvent => !!item && typeof item === 'object' && typeof (item as RunEvent).seq === 'number',
    );
  } catch {
    return [];
  }
}

export class RunEventStream {
  private socket: SocketLike | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private stopped = false;
  private seq: number;
  private state: ConnectionState = 'closed';
  private readonly options: RunEventStreamOptions;

  constructor(options: RunEventStreamOptions) {
    this.options = options;
    this.seq = options.initialSeq ?? 0;
  }

  /** The seq of the last event handed to onEvent. */
  get lastSeq(): number {
    return this.seq;
  }

  get connectionState(): ConnectionState {
    return this.state;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.clearRetry();
    this.dropSocket();
    this.setState('closed');
  }

  private connect(): void {
    const origin = this.options.origin ?? window.location;
    const url = runEventsUrl(this.options.runId, this.seq, origin);
    const create = this.options.createSocket ?? ((target: string) => new WebSocket(target) as unknown as SocketLike);
    if (this.state !== 'disconnected') this.setState('connecting');
    let socket: SocketLike;
    try {
      socket = create(url);
    } catch {
      this.onDropped();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.setState('open');
    };
    socket.onmessage = (message) => this.receive(message.data);
    socket.onerror = () => {
      // A close event always follows; reconnecting is decided there.
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      const code = closeCodeOf(event);
      if (code !== null && REFUSED_CODES.has(code)) {
        this.stopped = true;
        this.clearRetry();
        this.setState('closed');
        this.options.onRefused?.(code);
        return;
      }
      this.onDropped();
    };
  }

  private receive(raw: unknown): void {
    const { fresh, lastSeq, gap } = takeNewEvents(this.seq, parseEvents(raw));
    this.seq = lastSeq;
    for (const event of fresh) this.options.onEvent(event);
    if (gap && !this.stopped) this.resume();
  }

  /** Reconnect now, after the last seq applied: the server sends what the gap lost. */
  private resume(): void {
    this.clearRetry();
    this.dropSocket();
    this.setState('connecting');
    this.connect();
  }

  private onDropped(): void {
    if (this.stopped) return;
    const wanted = this.options.shouldReconnect ? this.options.shouldReconnect() : true;
    if (!wanted) {
      this.setState('closed');
      return;
    }
    this.setState('disconnected');
    const delay = reconnectDelay(this.attempt, this.options.backoff ?? DEFAULT_BACKOFF, this.options.random);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this.connect();
    }, delay);
  }

  private dropSocket(): void {
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close();
    }
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onConnectionChange?.(state);
  }
}
