import { describe, expect, it } from 'vitest';
import { activityColour, activityOf, activityTextColour, BACKPRESSURED_FILL, contrastRatio, activityRatios, backpressureLevel, formatRate, ratesBetween, ratesOf } from './vertexMetrics';
import { applyRunEvent, INITIAL_RUN_STATE } from './runState';

describe('vertex metrics', () => {
  it('reads the contract ratios, or the engine ms-per-second sums over the subtasks', () => {
    expect(activityRatios({ busy_ratio: 0.7, idle_ratio: 0.3, backpressured_ratio: 0 })).toEqual({ busy: 0.7, idle: 0.3, backpressured: 0 });
    expect(activityRatios({ busy_ms_per_second: 600, idle_ms_per_second: 1000, backpressured_ms_per_second: 400 }, 2)).toEqual({
      busy: 0.3,
      idle: 0.5,
      backpressured: 0.2,
    });
    expect(activityRatios({ records_in: 3 })).toBeNull();
  });

  it('classifies like Flink: backpressured above half, then busy above half, else idle', () => {
    expect(activityOf({ busy: 0.2, idle: 0.2, backpressured: 0.6 })).toBe('backpressured');
    expect(activityOf({ busy: 0.8, idle: 0.1, backpressured: 0.1 })).toBe('busy');
    expect(activityOf({ busy: 0.3, idle: 0.7, backpressured: 0 })).toBe('idle');
    expect(activityOf(null)).toBeNull();
    expect([backpressureLevel(0.05), backpressureLevel(0.3), backpressureLevel(0.9)]).toEqual(['OK', 'LOW', 'HIGH']);
  });

  it('colours from blue (idle) to red (busy), grey when backpressured', () => {
    expect(activityColour({ busy: 0, idle: 1, backpressured: 0 })).toBe('hsl(210, 72%, 92%)');
    expect(activityColour({ busy: 1, idle: 0, backpressured: 0 })).toBe('hsl(0, 72%, 74%)');
    expect(activityColour({ busy: 0, idle: 0, backpressured: 1 })).toBe(BACKPRESSURED_FILL);
  });

  it('never passes green or yellow on the way: half busy is violet, not a "healthy" green', () => {
    for (let busy = 0; busy <= 1; busy += 0.01) {
      const hue = Number(/hsl\((\d+)/.exec(activityColour({ busy, idle: 1 - busy, backpressured: 0 })!)![1]);
      expect(hue >= 40 && hue <= 180, `busy ${busy}: hue ${hue}`).toBe(false);
    }
    expect(activityColour({ busy: 0.51, idle: 0.49, backpressured: 0 })).toBe('hsl(287, 72%, 83%)');
  });

  it('derives rates from two samples unless the server sent them', () => {
    const rates = ratesBetween({ ts: 1000, records_in: 100, records_out: 50 }, { ts: 3000, records_in: 300, records_out: 50 });
    expect(rates).toEqual({ inRate: 100, outRate: 0 });
    expect(ratesBetween(undefined, { ts: 1, records_in: 1 })).toEqual({ inRate: null, outRate: null });
    expect(ratesOf({ records_in_per_second: 7 }, rates)).toEqual({ inRate: 7, outRate: 0 });
    expect([formatRate(12345), formatRate(1234), formatRate(3.21), formatRate(null)]).toEqual(['12k/s', '1.2k/s', '3.2/s', '–']);
  });

  it('keeps rates per vertex across metrics events', () => {
    let state = applyRunEvent(INITIAL_RUN_STATE, { seq: 1, type: 'metrics', ts: 1000, data: { vertices: { g: { records_out: 10 } } } });
    state = applyRunEvent(state, { seq: 2, type: 'metrics', ts: 2000, data: { vertices: { g: { records_out: 110 } } } });
    expect(state.rates.g.outRate).toBe(100);
    expect(state.vertices.g.records_out).toBe(110);
  });
});

describe('activity text', () => {
  it('is legible on every fill, backpressured included (WCAG AAA 7:1)', () => {
    const cases = [0, 0.25, 0.5, 0.75, 1].map((busy) => ({ busy, idle: 1 - busy, backpressured: 0 }));
    cases.push({ busy: 0, idle: 0, backpressured: 1 }, { busy: 0.2, idle: 0.1, backpressured: 0.7 });
    for (const ratios of cases) {
      expect(contrastRatio(activityColour(ratios)!, activityTextColour(ratios)!)).toBeGreaterThanOrEqual(7);
    }
    expect(contrastRatio('hsl(0, 0%, 100%)', 'hsl(0, 0%, 0%)')).toBeCloseTo(21, 5);
  });
});
