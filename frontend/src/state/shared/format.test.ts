import { describe, expect, it } from 'vitest';
import { formatBytes, formatClock, formatDuration, formatRecord } from './format';

describe('formatting', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2048)).toBe('2.0 KiB');
    expect(formatBytes(50 * 1024 * 1024)).toBe('50 MiB');
    expect(formatBytes(null)).toBe('–');
  });

  it('formats durations from ms to minutes', () => {
    expect(formatDuration(42)).toBe('42 ms');
    expect(formatDuration(1500)).toBe('1.50 s');
    expect(formatDuration(12_500)).toBe('12.5 s');
    expect(formatDuration(125_000)).toBe('2 m 5 s');
    expect(formatDuration(undefined)).toBe('–');
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
