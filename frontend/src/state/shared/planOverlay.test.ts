import { describe, expect, it } from 'vitest';
import type { PlanSummary } from '../../api/types';
import { expandList, foldedSchedule, planMarks, regionLabel, scheduleSteps } from './planOverlay';

/** The planner's answer for g → m (chained) → r ⇒ c with a blocking forward edge at parallelism 2. */
const plan: PlanSummary = {
  job_vertices: [
    { id: 'g', name: 'g -> m', operators: ['g', 'm'], parallelism: 2 },
    { id: 'r', name: 'r', operators: ['r'], parallelism: 2 },
    { id: 'c', name: 'c', operators: ['c'], parallelism: 2 },
  ],
  job_edges: [],
  regions: [
    { id: 'r0', job_vertices: ['g', 'r'], depends_on: [], size: 4 },
    { id: 'r1', job_vertices: ['c'], depends_on: ['r0'], size: 1 },
    { id: 'r2', job_vertices: ['c'], depends_on: ['r0'], size: 1 },
  ],
  node_regions: { g: ['r0'], m: ['r0'], r: ['r0'], c: ['r1', 'r2'] },
  schedule: ['r0', 'r1', 'r2'],
};

describe('plan overlay', () => {
  it('marks each node with its regions, colour, schedule step and chain', () => {
    const marks = planMarks(plan);
    expect(marks.m).toEqual({ regions: ['r0'], colour: 0, step: 1, vertex: 'g', chain: ['g', 'm'], chainLabel: 'g → m', chainStep: 2, chainSteps: 2 });
    expect(marks.c).toMatchObject({ regions: ['r1', 'r2'], colour: 1, step: 2, vertex: 'c' });
  });

  it('numbers the steps of a chain that fans out from its head: the two branches are both the last step, neither after the other', () => {
    const fanOut: PlanSummary = {
      ...plan,
      job_vertices: [{ id: 'events', name: 'events -> event_time -> [clicks, purchases]', operators: ['events', 'event_time', 'clicks', 'purchases'], chain_inputs: [-1, 0, 1, 1], parallelism: 2 }],
      node_regions: { events: ['r0'], event_time: ['r0'], clicks: ['r0'], purchases: ['r0'] },
    };
    const marks = planMarks(fanOut);
    expect(['events', 'event_time', 'clicks', 'purchases'].map((node) => `${marks[node].chainStep}/${marks[node].chainSteps}`)).toEqual(['1/3', '2/3', '3/3', '3/3']);
    expect(marks.purchases.chainLabel).toBe('events → event_time → [clicks, purchases]');
  });

  it('lists the schedule with the nodes of each region, folding identical regions', () => {
    const steps = scheduleSteps(plan);
    expect(steps.map((step) => [step.region, step.nodes, step.dependsOn])).toEqual([
      ['r0', ['g', 'm', 'r'], []],
      ['r1', ['c'], ['r0']],
      ['r2', ['c'], ['r0']],
    ]);
    const folded = foldedSchedule(steps);
    expect(folded.map((step) => step.regions)).toEqual([['r0'], ['r1', 'r2']]);
  });

  it('expands the compact form of long lists', () => {
    expect(expandList({ count: 3, ranges: [[0, 2], [5, 6]] }, true)).toEqual(['r0', 'r1', 'r5']);
    expect(expandList<number>({ count: 2, ranges: [[3, 5]] })).toEqual([3, 4]);
    expect(regionLabel(['r1', 'r2', 'r3', 'r4'])).toBe('r1 … r4 (4)');
  });
});
