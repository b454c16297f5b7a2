import { describe, expect, it } from 'vitest';
import { exceptionOf } from './runFailures';

describe('a failed subtask', () => {
  it('names its operator and subtask, and keeps the record it failed on apart from the traceback', () => {
    const entry = exceptionOf(4, 1000, {
      task: 'datagen-1#0',
      region: 'r0',
      attempt: 1,
      error: "operator 'map-2' (transform.map), subtask 0, failed: ZeroDivisionError: division by zero\nrecord: {\"n\":20}\n  File \"<expression: 1 / (x['n'] - 20)>\", line 1\n",
    });
    expect(entry).toMatchObject({ operator: 'map-2', vertex: 'datagen-1', subtask: 0, record: '{"n":20}' });
    expect(entry.message).toBe("operator 'map-2' (transform.map), subtask 0, failed: ZeroDivisionError: division by zero");
    expect(entry.traceback).toBe('  File "<expression: 1 / (x[\'n\'] - 20)>", line 1');
    expect(exceptionOf(5, 1000, { task: 'gen#0', error: 'task gen#0 failed: lost' }).record).toBeNull();
  });
});
