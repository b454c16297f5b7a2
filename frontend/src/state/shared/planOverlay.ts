/**
 * The plan as marks on the editor's nodes: which pipelined region(s) a node runs in, the
 * region's colour and its place in the schedule, and which job vertex (operator chain) it
 * belongs to. From the planner's summary (POST /api/plan, GET /api/pipelines/<id>/plan).
 */
import { chainDepths, chainFeeders, chainLabel } from './chains';
import type { CompactList, PlanSummary } from '../../api/types';

export const REGION_COLOURS = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#db2777', '#0891b2', '#65a30d', '#dc2626', '#4f46e5', '#0d9488'];

/** Expand a compact list ({count, ranges}) of region numbers or subtask indices. */
export function expandList<T extends string | number>(value: CompactList<T> | undefined, asRegion = false): T[] {
  if (!value) return [];
  if (Array.isArray(value)) return value;
  const items: T[] = [];
  for (const [start, stop] of value.ranges) {
    for (let index = start; index < stop; index += 1) items.push((asRegion ? `r${index}` : index) as T);
  }
  return items;
}

export interface NodePlanMark {
  regions: string[];
  /** Index into REGION_COLOURS of the node's (first) region. */
  colour: number;
  /** 1-based position of the node's first region in the schedule. */
  step: number;
  vertex: string | null;
  /** The node's operators chain: all node ids of its job vertex, in chain order. */
  chain: string[];
  /** The chain as words: "a → b", or "events → event_time → [clicks, purchases]" where it fans out. */
  chainLabel: string;
  /** The node's step in its chain from the head (1-based), and the chain's number of steps: clicks and purchases
   * after events → event_time are both step 3 of 3, neither after the other. */
  chainStep: number;
  chainSteps: number;
}

export interface ScheduleStep {
  step: number;
  region: string;
  colour: number;
  nodes: string[];
  dependsOn: string[];
  size: number;
}

function regionNumber(region: string): number {
  const number = Number(region.replace(/^r/, ''));
  return Number.isFinite(number) ? number : 0;
}

export function regionColour(region: string): string {
  return REGION_COLOURS[regionNumber(region) % REGION_COLOURS.length];
}

/** "r1", "r1, r2", or "r1 … r40 (40)" for long lists. */
export function regionLabel(regions: string[]): string {
  if (regions.length <= 3) return regions.join(', ');
  return `${regions[0]} … ${regions[regions.length - 1]} (${regions.length})`;
}

interface ChainPlace {
  vertex: string;
  chain: string[];
  label: string;
  step: number;
  steps: number;
}

export function nodeVertexIndex(plan: Pick<PlanSummary, 'job_vertices'> | null | undefined): Map<string, ChainPlace> {
  const index = new Map<string, ChainPlace>();
  for (const vertex of plan?.job_vertices ?? []) {
    const depths = chainDepths(chainFeeders(vertex));
    const label = chainLabel(vertex);
    const steps = Math.max(0, ...depths) + 1;
    vertex.operators.forEach((node, position) =>
      index.set(node, { vertex: vertex.id, chain: vertex.operators, label, step: depths[position] + 1, steps }));
  }
  return index;
}

export function planMarks(plan: PlanSummary): Record<string, NodePlanMark> {
  const order = new Map(plan.schedule.map((region, index) => [region, index + 1]));
  const vertices = nodeVertexIndex(plan);
  const marks: Record<string, NodePlanMark> = {};
  for (const [node, value] of Object.entries(plan.node_regions ?? {})) {
    const regions = expandList<string>(value, true);
    const first = regions[0] ?? 'r0';
    const vertex = vertices.get(node);
    marks[node] = {
      regions,
      colour: regionNumber(first) % REGION_COLOURS.length,
      step: order.get(first) ?? regionNumber(first) + 1,
      vertex: vertex?.vertex ?? null,
      chain: vertex?.chain ?? [node],
      chainLabel: vertex?.label ?? node,
      chainStep: vertex?.step ?? 1,
      chainSteps: vertex?.steps ?? 1,
    };
  }
  return marks;
}

/** The schedule in order, each region with the nodes that run in it. */
export function scheduleSteps(plan: PlanSummary): ScheduleStep[] {
  const operatorsOf = new Map(plan.job_vertices.map((vertex) => [vertex.id, vertex.operators]));
  const byId = new Map(plan.regions.map((region) => [region.id, region]));
  return plan.schedule.map((regionId, index) => {
    const region = byId.get(regionId);
    const nodes = (region?.job_vertices ?? []).flatMap((vertex) => operatorsOf.get(vertex) ?? [vertex]);
    return {
      step: index + 1,
      region: regionId,
      colour: regionNumber(regionId) % REGION_COLOURS.length,
      nodes,
      dependsOn: expandList<string>(region?.depends_on, true),
      size: region?.size ?? 0,
    };
  });
}

/**
 * Regions that run the same nodes with the same dependencies (the subtasks of a pointwise
 * blocking edge make one region each) folded into one line, so a schedule of 200 identical
 * regions reads as one step "r1 … r200".
 */
export function foldedSchedule(steps: ScheduleStep[]): Array<ScheduleStep & { regions: string[] }> {
  const folded: Array<ScheduleStep & { regions: string[] }> = [];
  for (const step of steps) {
    const last = folded[folded.length - 1];
    if (last && last.nodes.join() === step.nodes.join() && last.dependsOn.join() === step.dependsOn.join()) {
      last.regions.push(step.region);
      last.size += step.size;
      continue;
    }
    folded.push({ ...step, regions: [step.region] });
  }
  return folded;
}
