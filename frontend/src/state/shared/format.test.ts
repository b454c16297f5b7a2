import { describe, expect, it } from 'vitest';
import { formatBytes, formatClock, formatCount, formatDuration, formatRecord } from './format';

describe('formatting', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(947.8846153846154)).toBe('948 B'); // an average: whole bytes
    expect(formatBytes(1023.6)).toBe('1.0 KiB');
    expect(formatBytes(2048)).toBe('2.0 KiB');
    expect(formatBytes(50 * 1024 * 1024)).toBe('50 MiB');
    expect(formatBytes(null)).toBe('–');
  });

  it('formats record counts exactly while short, then to three digits', () => {
    expect([formatCount(0), formatCount(9_999), formatCount(12_345), formatCount(456_789), formatCount(7_891_234), formatCount(12_345_678_901)]).toEqual(
      ['0', '9,999', '12.3k', '457k', '7.89M', '12.3G'],
    );
    expect([formatCount(999_999), formatCount(99_960)]).toEqual(['1.00M', '100k']
    );
    expect(formatCount(undefined)).toBe('–');
  });

  it('formats durations from ms to minutes', () => {
    expect(formatDuration(42)).toBe('42 ms');
    expect(formatDuration(1500)).toBe('1.50 s');
    expect(formatDuration(12_500)).toBe('12.5 s');
    expect(formatDuration(125_000)).toBe('2 m 5 s');
    expect(formatDuration(119_600)).toBe('2 m 0 s'); // rounded once: never "1 m 60 s"
    expect(formatDuration(59_970)).toBe('1 m 0 s'); // never "60.0 s"
    expect(formatDuration(3 * 3600_000 + 7 * 60_000 + 20_000)).toBe('3 h 7 m');
    expect(formatDuration(-90_000)).toBe('-1 m 30 s');
    expect(formatDuration(undefined)).toBe('–');
  });

  it('says a duration of years in days and hours, short enough for a graph node', () => {
    // a watermark from November 2023 on a clock of November 2026: the lag the lead saw as "1598607 m 27 s"
    expect(formatDuration(1598607 * 60_000 + 27_000)).toBe('1110 d 3 h');
    expect(formatDuration(86_400_000)).toBe('1 d 0 h');
  });

  it('formats wall-clock times with milliseconds', () => {
    expect(formatClock(new Date(2025, 0, 1, 9, 5, 7, 42).getTime())).toBe('09:05:07.042');
    expect(formatClock(null)).toBe('–');
  });

  it('renders records as compact JSON', () => {
    expect(formatRecord({ user: 1, amount: 2 })).toBe('{"user":1,"amount":2}');
    expect(formatRecord(['k', 3])).toBe('["k",3]');
    expect(formatRecord('text')).toBe('"text"');
    expect(formatRecord(undefined)).toBe('undefined');
  });
});
