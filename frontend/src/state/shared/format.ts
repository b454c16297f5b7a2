/** Short human-readable renderings of sizes, durations and times. */

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  if (Math.round(bytes) < 1024) return `${Math.round(bytes)} B`; // an average of sizes is a fraction of a byte
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A record count short enough for a graph node: exact below 10,000, then three digits (12.3k, 456k, 7.89M, 12.3G). */
export function formatCount(count: unknown): string {
  if (typeof count !== 'number' || !Number.isFinite(count)) return '–';
  if (Math.abs(count) < 10_000) return count.toLocaleString();
  const units: Array<[string, number]> = [['k', 1e3], ['M', 1e6], ['G', 1e9]];
  for (const [unit, scale] of units) {
    const value = Number((count / scale).toPrecision(3));
    const size = Math.abs(value);
    if (size < 1000 || unit === 'G') return `${value.toFixed(size < 10 ? 2 : size < 100 ? 1 : 0)}${unit}`;
  }
  return count.toLocaleString();
}

const UNITS: Array<[string, number]> = [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]];

/**
 * A duration in its two largest units, short enough for a graph node however long it is: "42 ms", "1.50 s",
 * "2 m 5 s", "3 h 7 m", "1110 d 5 h" (a watermark years behind the clock), never "1598607 m 27 s".
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  if (Math.abs(ms) < 59_950) return `${(ms / 1000).toFixed(Math.abs(ms) < 9_995 ? 2 : 1)} s`;
  const sign = ms < 0 ? '-' : '';
  const largest = Math.min(UNITS.findIndex(([, seconds]) => Math.abs(ms) >= seconds * 1000), 2); // at least minutes
  const [[big, bigSeconds], [small, smallSeconds]] = [UNITS[largest], UNITS[largest + 1]];
  // rounded to the smaller unit first: 119.6 s is "2 m 0 s", not "1 m 60 s"
  const inSmall = Math.round(Math.abs(ms) / 1000 / smallSeconds);
  const perBig = bigSeconds / smallSeconds;
  return `${sign}${Math.floor(inSmall / perBig)} ${big} ${inSmall % perBig} ${small}`;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** Local wall-clock time with milliseconds: "14:03:27.120". */
export function formatClock(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const date = new Date(ms);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A compact one-line rendering of a collected record. */
export function formatRecord(record: unknown): string {
  if (typeof record === 'string') return JSON.stringify(record);
  try {
    return JSON.stringify(record) ?? String(record);
  } catch {
    return String(record);
  }
}
