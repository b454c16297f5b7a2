import { describe, expect, it } from 'vitest';
import type { OperatorNode } from '../shared/graph';
import { UNSAVED_WARNING, unsavedWarning } from './unsavedChanges';

const node = { id: 'gen' } as OperatorNode;
const saved = { pipelineId: 3, nodes: [node], revision: 4, layoutRevision: 2, savedRevision: 4, savedLayoutRevision: 2 };

describe('unsavedWarning', () => {
  it('says nothing when everything is saved', () => {
    expect(unsavedWarning(saved, '/pipelines/')).toBeNull();
  });

  it('warns before an edited pipeline is left for another page, another pipeline or a new one', () => {
    const edited = { ...saved, revision: 5 };
    expect(unsavedWarning(edited, '/pipelines/')).toBe(UNSAVED_WARNING);
    expect(unsavedWarning(edited, '/pipelines/4')).toBe(UNSAVED_WARNING);
    expect(unsavedWarning(edited, '/')).toBe(UNSAVED_WARNING);
    expect(unsavedWarning({ ...saved, layoutRevision: 3 }, '/runs/1')).toBe(UNSAVED_WARNING);
  });

  it('lets the same saved pipeline open again with its edits, and an empty draft go', () => {
    expect(unsavedWarning({ ...saved, revision: 5 }, '/pipelines/3?x=1')).toBeNull();
    expect(unsavedWarning({ ...saved, pipelineId: null, nodes: [], revision: 1, savedRevision: 0 }, '/pipelines/')).toBeNull();
    expect(unsavedWarning({ ...saved, pipelineId: null, revision: 1, savedRevision: 0 }, '/')).toBe(UNSAVED_WARNING);
  });
});
