/**
 * Validation problems indexed by where they belong: the pipeline as a whole, a node, an edge,
 * and within a node or edge a field ("params.capacity", "parallelism", "key").
 */
import type { Problem } from '../../api/types';

export interface ProblemIndex {
  all: Problem[];
  /** Problems that name neither a node nor an edge. */
  pipeline: Problem[];
  byNode: Record<string, Problem[]>;
  byEdge: Record<string, Problem[]>;
}

export const NO_PROBLEMS: ProblemIndex = Object.freeze({ all: [], pipeline: [], byNode: {}, byEdge: {} }) as ProblemIndex;

function push(map: Record<string, Problem[]>, id: string, problem: Problem): void {
  (map[id] ??= []).push(problem);
}

export function indexProblems(problems: Problem[]): ProblemIndex {
  if (problems.length === 0) return NO_PROBLEMS;
  const index: ProblemIndex = { all: problems, pipeline: [], byNode: {}, byEdge: {} };
  for (const problem of problems) {
    if (problem.node) push(index.byNode, problem.node, problem);
    if (problem.edge) push(index.byEdge, problem.edge, problem);
    if (!problem.node && !problem.edge) index.pipeline.push(problem);
  }
  return index;
}

/** Messages per param name, from fields "params.<name>" (deeper paths count for <name>). */
export function paramMessages(problems: Problem[] | undefined): Record<string, string[]> {
  const byParam: Record<string, string[]> = {};
  for (const problem of problems ?? []) {
    const match = problem.field?.match(/^params\.([^.[\]]+)/);
    if (match) (byParam[match[1]] ??= []).push(problem.message);
  }
  return byParam;
}

/** Messages for one exact field ("parallelism", "key", "checkpointing.interval_ms"). */
export function fieldMessages(problems: Problem[] | undefined, field: string): string[] {
  return (problems ?? []).filter((problem) => problem.field === field).map((problem) => problem.message);
}

/** Messages of a node or edge that no input shows: those without a field or with an unknown one. */
export function generalMessages(problems: Problem[] | undefined, shownFields: Set<string>): string[] {
  return (problems ?? [])
    .filter((problem) => !problem.field || !shownFields.has(problem.field))
    .map((problem) => problem.message);
}

/** Where a problem is, for the problems panel: "node map-2 · params.expression". */
export function problemLocation(problem: Problem): string {
  const parts: string[] = [];
  if (problem.node) parts.push(`node ${problem.node}`);
  if (problem.edge) parts.push(`edge ${problem.edge}`);
  if (parts.length === 0) parts.push('pipeline');
  if (problem.field) parts.push(problem.field);
  return parts.join(' · ');
}

/**
 * The problems that still apply to the graph as it is: those of deleted nodes and edges go at
 * once, before the next validation answers.
 */
export function problemsOfLiveElements(problems: Problem[], nodeIds: Set<string>, edgeIds: Set<string>): Problem[] {
  const live = problems.filter(
    (problem) => (!problem.node || nodeIds.has(problem.node)) && (!problem.edge || edgeIds.has(problem.edge)),
  );
  return live.length === problems.length ? problems : live;
}
