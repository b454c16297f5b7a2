/**
 * Exactly-once delivery of run events to the page. The server numbers the events of a run
 * 1, 2, 3, ... without holes; after a reconnect it replays everything after the `after=<seq>`
 * we pass, so an event can arrive twice around a reconnect. The page applies an event only
 * when its seq is greater than the last one applied, and only in order: an event further on
 * than the next seq means some were lost on the way (a gap), and the stream must resume from
 * the last one applied instead of skipping them.
 *
 * The one hole the server leaves on purpose is explained: old metrics and checkpoint-progress
 * events of a long run are folded by its retention into one `folded` event at the last seq of
 * the range, its data saying `first_seq` .. `last_seq` and what they were. Such an event stands
 * for its whole range, so it follows on from any seq up to its `first_seq - 1`.
 */

export interface Sequenced {
  seq: number;
  type?: string;
  data?: unknown;
}

/** The first seq an event stands for: its own, or a folded range's first. */
export function firstSeqOf(event: Sequenced): number {
  if (event.type === 'folded' && event.data && typeof event.data === 'object') {
    const first = (event.data as { first_seq?: unknown }).first_seq;
    if (typeof first === 'number' && Number.isFinite(first) && first <= event.seq) return first;
  }
  return event.seq;
}

/** True when the event has not been applied yet. */
export function isNewEvent(lastSeq: number, event: Sequenced): boolean {
  return Number.isFinite(event.seq) && event.seq > lastSeq;
}

/**
 * Split a batch into the events not seen yet (in order, up to the first gap) and the new last
 * seq; `gap` says that an event after a hole was found, and it and everything after it were
 * left out.
 */
export function takeNewEvents<T extends Sequenced>(
  lastSeq: number,
  events: T[],
): { fresh: T[]; lastSeq: number; gap: boolean } {
  const fresh: T[] = [];
  let last = lastSeq;
  for (const event of events) {
    if (!isNewEvent(last, event)) continue;
    if (firstSeqOf(event) > last + 1) return { fresh, lastSeq: last, gap: true };
    fresh.push(event);
    last = event.seq;
  }
  return { fresh, lastSeq: last, gap: false };
}

/** The WebSocket URL of a run's event stream, resuming after `lastSeq`. */
export function runEventsUrl(runId: number, lastSeq: number, origin: { protocol: string; host: string }): string {
  const scheme = origin.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${origin.host}/ws/runs/${runId}/?after=${lastSeq}`;
}

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 10_000 };

/**
 * Delay before reconnect attempt `attempt` (0 = first retry): exponential, capped, with
 * jitter in [50%, 100%] so that many browsers do not reconnect in lockstep.
 */
export function reconnectDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random = Math.random): number {
  const exponential = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.max(0, attempt));
  return Math.round(exponential * (0.5 + 0.5 * random()));
}
