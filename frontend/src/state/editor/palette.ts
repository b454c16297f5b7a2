/** The palette's content: operators grouped by category in pipeline order, filtered by a search. */
import type { Operator } from '../../api/types';

export const CATEGORY_ORDER = ['source', 'transform', 'aggregate', 'window', 'sink'];

export interface PaletteGroup {
  category: string;
  operators: Operator[];
}

function categoryRank(category: string): number {
  const rank = CATEGORY_ORDER.indexOf(category);
  return rank === -1 ? CATEGORY_ORDER.length : rank;
}

export function matchesQuery(operator: Operator, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = `${operator.title} ${operator.type} ${operator.category} ${operator.description}`.toLowerCase();
  return words.every((word) => text.includes(word));
}

export function paletteGroups(operators: Operator[], query = ''): PaletteGroup[] {
  const groups = new Map<string, Operator[]>();
  for (const operator of operators) {
    if (!matchesQuery(operator, query)) continue;
    const list = groups.get(operator.category) ?? [];
    list.push(operator);
    groups.set(operator.category, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => categoryRank(a) - categoryRank(b) || a.localeCompare(b))
    .map(([category, list]) => ({ category, operators: list }));
}
