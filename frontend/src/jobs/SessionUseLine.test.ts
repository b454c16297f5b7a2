import { describe, expect, it } from 'vitest';
import { describeSessionUse } from './SessionUseLine';

const SERVING = { enabled: true, serving: true, application_id: 'local-1', slots: 64, slots_used: 3, runs: 3, runs_waiting: 0, memory_mb: 1536 };

describe('the shared session on the jobs page', () => {
  it('says its runs, slots in use, runs waiting and memory', () => {
    expect(describeSessionUse(SERVING)).toBe('shared session: 3 runs · 3/64 slots · 1.5 GB');
    expect(describeSessionUse({ ...SERVING, runs: 1, slots_used: 64, runs_waiting: 2 })).toBe('shared session: 1 run · 64/64 slots · 2 waiting for slots · 1.5 GB');
  });

  it('says when none serves, and nothing when session mode is off', () => {
    expect(describeSessionUse({ ...SERVING, serving: false })).toMatch(/^shared session: not serving/);
    expect(describeSessionUse({ ...SERVING, enabled: false })).toBeNull();
  });
});
