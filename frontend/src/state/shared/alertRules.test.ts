import { describe, expect, it } from 'vitest';
import { describeAttempts, describeRule, emptyForm, formOf, requestOf } from './alertRules';

const rule = {
  id: 4, pipeline: 7, name: 'slow', kind: 'backpressure' as const, threshold: 0.8, duration_s: 30, vertex: '',
  webhook_url: '', enabled: true, created_by: 'admin', created_at: '2024-01-01T00:00:00Z',
};

describe('alert rules as a person reads them', () => {
  it('says each kind in one sentence, the ratio as a percentage', () => {
    expect(describeRule(rule)).toBe('any vertex backpressured over 80% for 30 s');
    expect(describeRule({ ...rule, vertex: 'map-2', duration_s: 0 })).toBe('vertex map-2 backpressured over 80%');
    expect(describeRule({ ...rule, kind: 'checkpoint_failures', threshold: 3 })).toBe('3 checkpoints failed in a row');
    expect(describeRule({ ...rule, kind: 'checkpoint_failures', threshold: 1 })).toBe('1 checkpoint failed in a row');
    expect(describeRule({ ...rule, kind: 'checkpoint_duration', threshold: 5000 })).toBe('a checkpoint took longer than 5,000 ms');
    expect(describeRule({ ...rule, kind: 'run_failed', threshold: null })).toBe('a run failed');
  });

  it('sends a percentage as the ratio the server keeps, and reads it back', () => {
    const { request, problems } = requestOf({ ...formOf(rule), threshold: '75' });
    expect(problems).toEqual([]);
    expect(request).toMatchObject({ pipeline: 7, kind: 'backpressure', threshold: 0.75, duration_s: 30, vertex: '' });
    expect(formOf({ ...rule, threshold: 0.755 }).threshold).toBe('75.5');
  });

  it('names the fields a person must fill before anything is sent', () => {
    const { request, problems } = requestOf({ ...emptyForm(null), kind: 'checkpoint_duration', threshold: 'soon' });
    expect(request).toBeNull();
    expect(problems.map((problem) => problem.field)).toEqual(['pipeline', 'name', 'threshold']);
    expect(requestOf({ ...formOf(rule), threshold: '120' }).problems).toEqual([{ field: 'threshold', message: 'between 0 and 100 %' }]);
  });

  it('sends no threshold, duration or vertex for a kind without them', () => {
    const { request } = requestOf({ ...formOf(rule), kind: 'run_failed', vertex: 'x' });
    expect(request).toMatchObject({ kind: 'run_failed', threshold: null, duration_s: null, vertex: '' });
  });

  it('tells a delivery by its attempts', () => {
    expect(describeAttempts({ attempts: [] })).toBe('not tried yet');
    expect(describeAttempts({ attempts: [{ at: 1, status_code: 500 }, { at: 2, error: 'connection refused' }, { at: 3, status_code: 200 }] }))
      .toBe('HTTP 500, then connection refused, then HTTP 200');
  });
});

describe('the alert rule form sends JSON numbers', () => {
  it('sends the threshold and duration typed as text as numbers, never as the text', () => {
    const { request } = requestOf({ ...emptyForm(7), name: 'slow', kind: 'backpressure', threshold: ' 75 ', duration_s: '30' });
    expect(request).toMatchObject({ pipeline: 7, threshold: 0.75, duration_s: 30 });
    expect(typeof request?.threshold).toBe('number');
    expect(typeof request?.duration_s).toBe('number');
    expect(JSON.stringify(request)).toContain('"threshold":0.75,"duration_s":30');
    const failures = requestOf({ ...emptyForm(7), name: 'f', kind: 'checkpoint_failures', threshold: '3' }).request;
    expect(JSON.stringify(failures)).toContain('"threshold":3,');
  });

  it("refuses text Number() would misread, and a fraction where a count or whole seconds go", () => {
    const form = { ...emptyForm(7), name: 'r' };
    expect(requestOf({ ...form, kind: 'checkpoint_duration', threshold: '0x10' }).problems).toEqual([{ field: 'threshold', message: 'longer than: a number of ms' }]);
    expect(requestOf({ ...form, kind: 'checkpoint_failures', threshold: '2.5' }).problems).toEqual([{ field: 'threshold', message: 'how many in a row: a whole number of checkpoints' }]);
    expect(requestOf({ ...form, kind: 'backpressure', threshold: '80', duration_s: '1.5' }).problems).toEqual([{ field: 'duration_s', message: 'whole seconds, 0 to 86400' }]);
    expect(requestOf({ ...form, kind: 'backpressure', threshold: '80', duration_s: '' }).request?.duration_s).toBeNull();
  });
});
