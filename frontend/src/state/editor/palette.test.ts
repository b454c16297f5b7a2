import { describe, expect, it } from 'vitest';
import { OPERATORS } from '../../testing/fixtures';
import { paletteGroups } from './palette';

describe('paletteGroups', () => {
  it('groups by category in pipeline order, keeping catalog order inside a group', () => {
    const groups = paletteGroups([...OPERATORS].reverse());
    expect(groups.map((group) => group.category)).toEqual(['source', 'transform', 'aggregate', 'sink']);
    expect(groups[1].operators.map((op) => op.type)).toEqual(['transform.union', 'transform.filter', 'transform.map']);
  });

  it('filters by every word of the query over title, type and description', () => {
    expect(paletteGroups(OPERATORS, 'redis').flatMap((group) => group.operators.map((op) => op.type))).toEqual(['source.redis_stream']);
    expect(paletteGroups(OPERATORS, 'SINK collect').flatMap((group) => group.operators.map((op) => op.type))).toEqual(['sink.collect']);
    expect(paletteGroups(OPERATORS, 'no such operator')).toEqual([]);
  });

  it('puts unknown categories after the known ones', () => {
    const custom = { ...OPERATORS[0], type: 'lookup.http', category: 'lookup' };
    const groups = paletteGroups([custom, ...OPERATORS]);
    expect(groups.at(-1)?.category).toBe('lookup');
  });
});
