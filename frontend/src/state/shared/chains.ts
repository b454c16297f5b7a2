/**
 * An operator chain's shape, as the plan gives it (`chain_inputs`): a line, or a tree when an operator
 * fans out to several chained ones (events → event_time → [clicks, purchases]). The run graph draws it
 * from this, the editor's plan names and numbers it.
 */
import type { PlanJobVertex } from '../../api/types';

/** Per operator, the position of the chained one that feeds it (-1 for the head); a line when the plan predates `chain_inputs`. */
export function chainFeeders(vertex: Pick<PlanJobVertex, 'operators' | 'chain_inputs'>): number[] {
  return vertex.operators.map((_, position) => {
    const feeder = vertex.chain_inputs?.[position];
    if (position === 0) return -1;
    return feeder !== undefined && feeder >= 0 && feeder < position ? feeder : position - 1;
  });
}

/** Per operator, its step from the head (0 for the head): the column it stands in. */
export function chainDepths(feeders: number[]): number[] {
  const depths: number[] = [];
  feeders.forEach((feeder, position) => {
    depths[position] = position === 0 || feeder < 0 ? 0 : depths[feeder] + 1;
  });
  return depths;
}

/** "a → b → c" for a line, "events → event_time → [clicks, purchases]" for a tree. */
export function chainLabel(vertex: Pick<PlanJobVertex, 'operators' | 'chain_inputs'>): string {
  const feeders = chainFeeders(vertex);
  const label = (position: number): string => {
    const fed = feeders.flatMap((feeder, child) => (child > 0 && feeder === position ? [child] : []));
    const own = vertex.operators[position];
    if (fed.length === 0) return own;
    return fed.length === 1 ? `${own} → ${label(fed[0])}` : `${own} → [${fed.map(label).join(', ')}]`;
  };
  return vertex.operators.length ? label(0) : '';
}
