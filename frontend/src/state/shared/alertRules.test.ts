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
