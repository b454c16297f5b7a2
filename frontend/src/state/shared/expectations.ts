/**
 * Expectations (data-quality rules) as the editor writes them and the run page shows their counts.
 *
 * The engine reports, per checked node (`node:<id>`) or edge (`edge:<id>`), the records checked,
 * dropped and quarantined and per rule the records violating it; the counts continue exactly
 * from the restored checkpoint after a restart.
 */
import type { Expectation, ExpectationAction, ExpectationCounts } from '../../api/types';

export const EXPECTATION_ACTIONS: ExpectationAction[] = ['warn', 'drop', 'quarantine', 'fail'];

/** The output ports a node's quarantine rules add to it (each once, in rule order). */
export function quarantinePorts(expectations: Expectation[] | undefined): string[] {
  const ports: string[] = [];
  for (const expectation of expectations ?? []) {
    if (expectation.action === 'quarantine' && expectation.port && !ports.includes(expectation.port)) ports.push(expectation.port);
  }
  return ports;
}

/**
 * The output ports a node gets from its own quarantine rules and from those of the edges leaving it
 * (an edge's quarantined records leave through its source node's port, as the engine plans them).
 */
export function nodeQuarantinePorts(nodeId: string, expectations: Expectation[] | undefined, edges: { from: string; expectations?: Expectation[] }[]): string[] {
  const ports = quarantinePorts(expectations);
  for (const edge of edges) {
    if (edge.from !== nodeId) continue;
    for (const port of quarantinePorts(edge.expectations)) if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

/** A new rule named so that it differs from the node's others. */
export function newExpectation(existing: Expectation[] | undefined): Expectation {
  const names = new Set((existing ?? []).map((expectation) => expectation.name));
  let number = (existing?.length ?? 0) + 1;
  while (names.has(`rule_${number}`)) number += 1;
  return { name: `rule_${number}`, rule: 'x is not None', action: 'warn' };
}

/** Records violating any rule, at most the records checked (a record may violate several rules). */
export function violatedTotal(counts: ExpectationCounts): number {
  return Object.values(counts.rules).reduce((sum, rule) => sum + rule.violated, 0);
}

/** A rule's violations as a share of the records checked ("–" before the first record). */
export function violationRate(violated: number, records: number): string {
  if (!records) return '–';
  const rate = (100 * violated) / records;
  return `${rate < 0.1 && rate > 0 ? rate.toFixed(2) : rate.toFixed(1)}%`;
}
