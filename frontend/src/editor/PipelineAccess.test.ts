import { describe, expect, it } from 'vitest';
import { comparisonVerdict } from '../git/GitBindingPage';
import { accessNotice } from './PipelineAccess';

describe('why the editor may not save or run', () => {
  const team = { role: 'viewer', roleTeam: 'payments', owner: 'ada' };
  it('says nothing to who may do both', () => {
    expect(accessNotice({ ...team, role: 'operator', mayEdit: true, mayRun: true })).toBeNull();
  });
  it('names the role, the team and whom to ask', () => {
    expect(accessNotice({ ...team, mayEdit: false, mayRun: false })).toBe(
      'You are a viewer in team payments: you may view it, but you may not save or run it (editors save versions; ask an admin of team payments for another role).',
    );
    expect(accessNotice({ ...team, role: 'editor', mayEdit: true, mayRun: false })).toContain('You are an editor in team payments: you may save versions, but you may not run it');
  });
  it('sends who has a share without a role to its owner', () => {
    expect(accessNotice({ role: null, roleTeam: null, owner: 'ada', mayEdit: false, mayRun: true })).toBe(
      'ada shared this pipeline with you: you may run it, but you may not save changes (editors save versions; ask ada to share it for more).',
    );
  });
});

describe("the Git comparison's verdict", () => {
  const comparison = { version: 4, commit: 'abc', studio_text: 'a', git_text: 'a', diff: '', logic_changed: false };
  it('is never "the same file" during a conflict', () => {
    expect(comparisonVerdict(comparison, false)).toBe('the same file');
    expect(comparisonVerdict(comparison, true)).toMatch(/^In conflict/);
    expect(comparisonVerdict({ ...comparison, diff: '-x\n+y', logic_changed: true }, true)).toMatch(/^In conflict: both sides changed/);
    expect(comparisonVerdict({ ...comparison, diff: '-x\n+y', logic_changed: true }, false)).toBe('the logic differs');
  });
});
