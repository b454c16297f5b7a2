import { describe, expect, it } from 'vitest';
import { isNewEvent, reconnectDelay, runEventsUrl, takeNewEvents } from './eventSequence';

describe('event sequence', () => {
  it('accepts only events after the last seq', () => {
    expect(isNewEvent(0, { seq: 1 })).toBe(true);
    expect(isNewEvent(5, { seq: 5 })).toBe(false);
    expect(isNewEvent(5, { seq: 3 })).toBe(false);
    expect(isNewEvent(5, { seq: Number.NaN })).toBe(false);
  });

  it('drops the replayed overlap after a reconnect and advances the cursor', () => {
    const { fresh, lastSeq } = takeNewEvents(4, [{ seq: 3 }, { seq: 4 }, { seq: 5 }, { seq: 6 }]);
    expect(fresh.map((event) => event.seq)).toEqual([5, 6]);
    expect(lastSeq).toBe(6);
  });

  it('drops duplicates and stragglers inside one batch', () => {
    const { fresh, lastSeq } = takeNewEvents(0, [{ seq: 1 }, { seq: 2 }, { seq: 2 }, { seq: 1 }, { seq: 3 }]);
    expect(fresh.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(lastSeq).toBe(3);
  });

  it('keeps the cursor when nothing is new', () => {
    expect(takeNewEvents(9, [{ seq: 2 }])).toEqual({ fresh: [], lastSeq: 9, gap: false });
  });

  it('stops at a gap: nothing after a missing seq is taken', () => {
    const { fresh, lastSeq, gap } = takeNewEvents(4, [{ seq: 5 }, { seq: 7 }, { seq: 8 }]);
    expect(fresh.map((event) => event.seq)).toEqual([5]);
    expect(lastSeq).toBe(5);
    expect(gap).toBe(true);
  });

  it('takes a folded range that covers the next seq, and only that', () => {
    const folded = (first: number, last: number) => ({ seq: last, type: 'folded', data: { first_seq: first, last_seq: last } });
    const { fresh, lastSeq, gap } = takeNewEvents(4, [folded(3, 9), { seq: 10 }]);
    expect(fresh.map((event) => event.seq)).toEqual([9, 10]);
    expect([lastSeq, gap]).toEqual([10, false]);
    expect(takeNewEvents(4, [folded(6, 9)])).toEqual({ fresh: [], lastSeq: 4, gap: true });
    expect(takeNewEvents(4, [{ seq: 9, type: 'metrics', data: { first_seq: 5 } }]).gap).toBe(true);
  });

  it('builds the stream URL with after=<last seq> and the right scheme', () => {
    expect(runEventsUrl(12, 0, { protocol: 'http:', host: 'localhost:8000' })).toBe('ws://localhost:8000/ws/runs/12/?after=0');
    expect(runEventsUrl(12, 42, { protocol: 'https:', host: 'studio.example' })).toBe('wss://studio.example/ws/runs/12/?after=42');
  });

  it('backs off exponentially with jitter up to a cap', () => {
    const policy = { initialMs: 500, maxMs: 8_000 };
    expect(reconnectDelay(0, policy, () => 1)).toBe(500);
    expect(reconnectDelay(1, policy, () => 1)).toBe(1_000);
    expect(reconnectDelay(3, policy, () => 1)).toBe(4_000);
    expect(reconnectDelay(10, policy, () => 1)).toBe(8_000);
    expect(reconnectDelay(2, policy, () => 0)).toBe(1_000);
  });
});
