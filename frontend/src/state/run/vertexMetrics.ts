/**
 * Live metrics of a run's job vertices, as the run graph shows them on its nodes.
 *
 * The engine reports per job vertex (a chain of operators), either with the contract's
 * ratios (busy_ratio, idle_ratio, backpressured_ratio in 0..1, per-second rates) or with
 * what the tasks measure (busy/idle/backpressured ms per second, summed over subtasks).
 * Both come out here as ratios of the vertex's time. Rates the server does not send are
 * derived from two successive counter samples.
 *
 * Colouring follows Flink's web UI: a vertex is backpressured when it spends more than half
 * its time waiting for room downstream (Flink's HIGH), else busy when it spends more than
 * half its time working, else idle; the fill goes from blue (idle) through violet to red (busy)
 * with the busy ratio, and dark grey when backpressured. The hue turns the way that never
 * passes green or yellow: a half-busy node must not look "healthy" in a traffic-light colour.
 */
import type { VertexMetrics } from '../../api/types';

export type VertexActivity = 'idle' | 'busy' | 'backpressured';

export interface ActivityRatios {
  busy: number;
  idle: number;
  backpressured: number;
}

export interface CounterSample {
  ts: number;
  records_in?: number;
  records_out?: number;
}

export interface VertexRates {
  inRate: number | null;
  outRate: number | null;
}

export const HIGH_BACKPRESSURE = 0.5;
export const BUSY = 0.5;

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

function number(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The vertex's time shares, or null when it reported none. */
export function activityRatios(metrics: VertexMetrics | undefined, parallelism = 1): ActivityRatios | null {
  if (!metrics) return null;
  const ratio = (name: 'busy' | 'idle' | 'backpressured'): number | null => {
    const direct = number(metrics[`${name}_ratio`]);
    if (direct !== null) return clamp01(direct);
    const perSecond = number(metrics[`${name}_ms_per_second`]);
    return perSecond === null ? null : clamp01(perSecond / (1000 * Math.max(1, parallelism)));
  };
  const busy = ratio('busy');
  const idle = ratio('idle');
  const backpressured = ratio('backpressured');
  if (busy === null && idle === null && backpressured === null) return null;
  return { busy: busy ?? 0, idle: idle ?? 0, backpressured: backpressured ?? 0 };
}

export function activityOf(ratios: ActivityRatios | null): VertexActivity | null {
  if (!ratios) return null;
  if (ratios.backpressured > HIGH_BACKPRESSURE) return 'backpressured';
  if (ratios.busy > BUSY) return 'busy';
  return 'idle';
}

/** Flink's three backpressure levels of a ratio: OK ≤ 10 %, LOW ≤ 50 %, HIGH above. */
export function backpressureLevel(ratio: number): 'OK' | 'LOW' | 'HIGH' {
  if (ratio > HIGH_BACKPRESSURE) return 'HIGH';
  if (ratio > 0.1) return 'LOW';
  return 'OK';
}

/** A highly backpressured node's fill: dark, so its text is white (contrast about 11:1). */
export const BACKPRESSURED_FILL = 'hsl(215, 28%, 22%)';
const LIGHT_TEXT = 'hsl(210, 40%, 98%)';
const DARK_TEXT = 'hsl(222, 47%, 11%)';

const IDLE_HUE = 210;
const BUSY_HUE = 360;

/** The node fill: blue → violet → red with the busy share, dark slate when highly backpressured. */
export function activityColour(ratios: ActivityRatios | null): string | null {
  if (!ratios) return null;
  if (ratios.backpressured > HIGH_BACKPRESSURE) return BACKPRESSURED_FILL;
  const hue = Math.round(IDLE_HUE + (BUSY_HUE - IDLE_HUE) * ratios.busy) % 360;
  return `hsl(${hue}, 72%, ${Math.round(92 - 18 * ratios.busy)}%)`;
}

/** The legend's scale of `activityColour`: idle, half busy, busy. */
export const ACTIVITY_SCALE = [0, 0.5, 1].map((busy) => activityColour({ busy, idle: 1 - busy, backpressured: 0 })!);

/** The text colour on `activityColour`'s fill: every line of the node stays legible (WCAG AAA, 7:1). */
export function activityTextColour(ratios: ActivityRatios | null): string | null {
  if (!ratios) return null;
  return ratios.backpressured > HIGH_BACKPRESSURE ? LIGHT_TEXT : DARK_TEXT;
}

/** WCAG's contrast ratio of two `hsl(h, s%, l%)` colours (1 to 21). */
export function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return (lighter + 0.05) / (darker + 0.05);
}

function luminance(hsl: string): number {
  const match = /hsl\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)%,\s*(\d+(?:\.\d+)?)%\)/.exec(hsl);
  if (!match) throw new Error(`not an hsl() colour: ${hsl}`);
  const [h, s, l] = [Number(match[1]), Number(match[2]) / 100, Number(match[3]) / 100];
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const value = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(8) + 0.0722 * channel(4);
}

/** Records per second between two samples of the counters. */
export function ratesBetween(previous: CounterSample | undefined, current: CounterSample): VertexRates {
  if (!previous || current.ts <= previous.ts) return { inRate: null, outRate: null };
  const seconds = (current.ts - previous.ts) / 1000;
  const rate = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined || after < before ? null : (after - before) / seconds;
  return { inRate: rate(previous.records_in, current.records_in), outRate: rate(previous.records_out, current.records_out) };
}

/** The rates to show: the server's when it sent them, else the derived ones. */
export function ratesOf(metrics: VertexMetrics | undefined, derived: VertexRates | undefined): VertexRates {
  return {
    inRate: number(metrics?.records_in_per_second) ?? derived?.inRate ?? null,
    outRate: number(metrics?.records_out_per_second) ?? derived?.outRate ?? null,
  };
}

/** "1.2k/s", "340/s", "–". */
export function formatRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return '–';
  if (rate >= 1_000_000) return `${(rate / 1_000_000).toFixed(1)}M/s`;
  if (rate >= 10_000) return `${Math.round(rate / 1000)}k/s`;
  if (rate >= 1000) return `${(rate / 1000).toFixed(1)}k/s`;
  return `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s`;
}

export function formatPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '–';
  return `${Math.round(ratio * 100)}%`;
}
