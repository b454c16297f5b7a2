import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from './types';
import { RunEventStream, type ConnectionState, type SocketLike } from './runSocket';

class FakeSocket implements SocketLike {
  onopen: SocketLike['onopen'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  closed = false;
  constructor(readonly url: string) {}
  open() {
    this.onopen?.({});
  }
  send(...events: Array<Partial<RunEvent> & { seq: number }>) {
    for (const event of events) this.onmessage?.({ data: JSON.stringify({ type: 'log', ts: 0, data: {}, ...event }) });
  }
  drop(code?: number) {
    this.onerror?.({});
    this.onclose?.(code === undefined ? {} : { code });
  }
  close() {
    this.closed = true;
  }
}

function harness(options: { shouldReconnect?: () => boolean; onRefused?: (code: number) => void } = {}) {
  const sockets: FakeSocket[] = [];
  const events: RunEvent[] = [];
  const states: ConnectionState[] = [];
  const stream = new RunEventStream({
    runId: 7,
    origin: { protocol: 'http:', host: 'studio.test' },
    createSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    onEvent: (event) => events.push(event),
    onConnectionChange: (state) => states.push(state),
    backoff: { initialMs: 100, maxMs: 1_000 },
    random: () => 1,
    ...options,
  });
  return { stream, sockets, events, states, seqs: () => events.map((event) => event.seq) };
}

describe('RunEventStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('connects from the start and hands over events in order', () => {
    const { stream, sockets, seqs, states } = harness();
    stream.start();
    expect(sockets[0].url).toBe('ws://studio.test/ws/runs/7/?after=0');
    sockets[0].open();
    sockets[0].send({ seq: 1 }, { seq: 2 }, { seq: 3 });
    expect(seqs()).toEqual([1, 2, 3]);
    expect(stream.lastSeq).toBe(3);
    expect(states).toEqual(['connecting', 'open']);
  });

  it('reconnects after a drop with after=<last seq> and skips the replayed overlap', () => {
    const { stream, sockets, seqs, states } = harness();
    stream.start();
    sockets[0].open();
    sockets[0].send({ seq: 1 }, { seq: 2 });
    sockets[0].drop();
    expect(states.at(-1)).toBe('disconnected');
    expect(sockets).toHaveLength(1);

    vi.advanceTimersByTime(100);
    expect(sockets).toHaveLength(2);
    expect(sockets[1].url).toBe('ws://studio.test/ws/runs/7/?after=2');
    sockets[1].open();
    // A server that replays a little too much must not make us apply anything twice.
    sockets[1].send({ seq: 2 }, { seq: 3 }, { seq: 3 }, { seq: 4 });
    expect(seqs()).toEqual([1, 2, 3, 4]);
    expect(states).toEqual(['connecting', 'open', 'disconnected', 'open']);
  });

  it('on a gap in seq applies nothing past it and resumes at once from the last seq applied', () => {
    const { stream, sockets, seqs, states } = harness();
    stream.start();
    sockets[0].open();
    sockets[0].send({ seq: 1 }, { seq: 2 });
    sockets[0].send({ seq: 5 }, { seq: 6 }); // 3 and 4 were lost on the way
    expect(seqs()).toEqual([1, 2]);
    expect(sockets[0].closed).toBe(true);
    expect(sockets).toHaveLength(2); // no backoff: a gap is not a failure
    expect(sockets[1].url).toBe('ws://studio.test/ws/runs/7/?after=2');
    sockets[0].send({ seq: 7 }); // the old socket is gone: whatever it still delivers is ignored
    sockets[1].open();
    sockets[1].send({ seq: 3 }, { seq: 4 }, { seq: 5 }, { seq: 6 }, { seq: 7 });
    expect(seqs()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(states).toEqual(['connecting', 'open', 'connecting', 'open']);
  });

  it('backs off longer after each failed attempt and resets once connected', () => {
    const { stream, sockets } = harness();
    stream.start();
    sockets[0].drop();
    vi.advanceTimersByTime(99);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(2);
    sockets[1].drop();
    vi.advanceTimersByTime(199);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(3);
    sockets[2].open();
    sockets[2].drop();
    vi.advanceTimersByTime(100);
    expect(sockets).toHaveLength(4);
  });

  it('stays down quietly when the run has ended', () => {
    let ended = false;
    const { stream, sockets, states } = harness({ shouldReconnect: () => !ended });
    stream.start();
    sockets[0].open();
    ended = true;
    sockets[0].drop();
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(1);
    expect(states.at(-1)).toBe('closed');
  });

  it('stop() closes the socket and cancels a pending reconnect', () => {
    const { stream, sockets, states } = harness();
    stream.start();
    sockets[0].open();
    sockets[0].drop();
    stream.stop();
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(1);
    expect(states.at(-1)).toBe('closed');

    const second = harness();
    second.stream.start();
    second.stream.stop();
    expect(second.sockets[0].closed).toBe(true);
  });

  it('ignores messages that are not events', () => {
    const { stream, sockets, seqs } = harness();
    stream.start();
    sockets[0].onmessage?.({ data: 'not json' });
    sockets[0].onmessage?.({ data: JSON.stringify({ hello: 'world' }) });
    sockets[0].onmessage?.({ data: JSON.stringify([{ seq: 1, type: 'log', ts: 0, data: {} }, { seq: 2, type: 'log', ts: 0, data: {} }]) });
    expect(seqs()).toEqual([1, 2]);
  });
  it.each([4401, 4403, 4404])('ends for good when the server refuses the user (close %i), and says so', (code) => {
    const refused: number[] = [];
    const { stream, sockets, states, seqs } = harness({ onRefused: (at) => refused.push(at) });
    stream.start();
    sockets[0].open();
    sockets[0].send({ seq: 1 });
    sockets[0].drop(code); // a removed team member: access revoked, then not visible
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1); // no reconnect: it would be refused again
    expect(refused).toEqual([code]);
    expect(states.at(-1)).toBe('closed');
    expect(stream.connectionState).toBe('closed');
    expect(seqs()).toEqual([1]);
  });

  it('reconnects after a close the server did not mean as a refusal', () => {
    const refused: number[] = [];
    const { stream, sockets } = harness({ onRefused: (at) => refused.push(at) });
    stream.start();
    sockets[0].open();
    sockets[0].drop(1006);
    vi.advanceTimersByTime(1_000);
    expect(sockets).toHaveLength(2);
    expect(refused).toEqual([]);
  });
});
