import { describe, expect, it } from 'vitest';
import type { StateCompatibility } from '../api/types';
import { stateVerdict } from './UpgradeDialog';

function check(fields: Partial<StateCompatibility>): StateCompatibility {
  return { from: 1, to: 2, compatible: true, needs_allow_non_restored_state: false, kept: [], dropped: [], added: [], changed_type: [], message: 'for API users', ...fields };
}

describe("the deploy dialog's verdict on the state", () => {
  it('says in words what happens, never the REST flag', () => {
    const verdicts = [
      stateVerdict(check({ kept: ['sum'] })),
      stateVerdict(check({ dropped: ['per_key'], needs_allow_non_restored_state: true })),
      stateVerdict(check({ dropped: ['a', 'b', 'c'], needs_allow_non_restored_state: true })),
      stateVerdict(check({ changed_type: ['sum'], compatible: false })),
    ];
    expect(verdicts).toEqual([
      'Every stateful operator of the running version keeps its state.',
      'per_key is not in v2: its state would be dropped.',
      'a, b and c are not in v2: their state would be dropped.',
      'sum changed operator type: its state cannot be restored. Keep the type, or give the node a new id so that it starts empty.',
    ]);
    expect(verdicts.join(' ')).not.toContain('allow_non_restored_state');
  });
});
