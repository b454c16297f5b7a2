import { describe, expect, it } from 'vitest';
import { describeSessionUse } from './SessionUseLine';

const SERVING = {
  enabled: true, serving: true, application_id: 'local-1', slots: 64, slots_used: 3, slots_max: 64, runs: 3, runs_waiting: 0, memory_mb: 1536,
  executors: null, executors_target: null, executors_min: null, executors_max: null,
};
const ELASTIC = { ...SERVING, application_id: 'app-1', slots: 2, slots_used: 2, slots_max: 8, runs: 1, runs_waiting: 1, executors: 2, executors_target: 2, executors_min: 1, executors_max: 8 };

describe('the shared session on the jobs page', () => {
  it('says its runs, slots in use, runs waiting and memory', () => {
    expect(describeSessionUse(SERVING)).toBe('shared session: 3 runs · 3/64 slots · 1.5 GB');
    expect(describeSessionUse({ ...SERVING, runs: 1, slots_used: 64, runs_waiting: 2 })).toBe('shared session: 1 run · 64/64 slots · 2 waiting for slots · 1.5 GB');
  });

  it('says an elastic session\'s executors, and when it grows or shrinks to what its runs need', () => {
    expect(describeSessionUse(ELASTIC)).toBe('shared session: 1 run · 2/2 slots · 1 waiting for slots · 2 executors (min 1, max 8) · 1.5 GB');
    expect(describeSessionUse({ ...ELASTIC, executors_target: 5 })).toBe(
      'shared session: 1 run · 2/2 slots · 1 waiting for slots · 2 executors, growing to 5 (min 1, max 8) · 1.5 GB');
    expect(describeSessionUse({ ...ELASTIC, runs: 0, runs_waiting: 0, slots_used: 0, executors: 1, executors_target: 1 })).toBe(
      'shared session: 0 runs · 0/2 slots · 1 executor (min 1, max 8) · 1.5 GB');
    expect(describeSessionUse({ ...ELASTIC, runs: 0, runs_waiting: 0, slots_used: 0, executors: 3, executors_target: 1 })).toContain(
      '3 executors, shrinking to 1 (min 1, max 8)');
  });

  it('says when none serves, and nothing when session mode is off', () => {
    expect(describeSessionUse({ ...SERVING, serving: false })).toMatch(/^shared session: not serving/);
    expect(describeSessionUse({ ...SERVING, enabled: false })).toBeNull();
  });
});
