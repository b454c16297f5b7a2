import { describe, expect, it } from 'vitest';
import { chainDepths, chainFeeders, chainLabel } from './chains';

describe('an operator chain', () => {
  it('reads as the tree it is where an operator fans out, and as a line where none does', () => {
    expect(chainLabel({ operators: ['events', 'event_time', 'clicks', 'purchases'], chain_inputs: [-1, 0, 1, 1] })).toBe('events → event_time → [clicks, purchases]');
    expect(chainLabel({ operators: ['a', 'b', 'c', 'd', 'e'], chain_inputs: [-1, 0, 1, 0, 3] })).toBe('a → [b → c, d → e]');
    expect(chainLabel({ operators: ['a', 'b', 'c'], chain_inputs: [-1, 0, 1] })).toBe('a → b → c');
  });

  it('is a line in a plan written before chains could fan out (no chain_inputs)', () => {
    expect(chainFeeders({ operators: ['a', 'b', 'c'] })).toEqual([-1, 0, 1]);
    expect(chainLabel({ operators: ['a', 'b', 'c'] })).toBe('a → b → c');
  });

  it('puts each operator one step after the one feeding it', () => {
    expect(chainDepths([-1, 0, 1, 1])).toEqual([0, 1, 2, 2]);
    expect(chainDepths([-1, 0, 1, 0, 3])).toEqual([0, 1, 2, 1, 2]);
  });
});
