/** When leaving the editor would lose edits: the warning the user confirms, or null. */
import { parseRoute } from '../../router';
import { isDirty, type EditorState } from './editorStore';

export const UNSAVED_WARNING = 'This pipeline has unsaved changes. Leave and lose them?';

type Editor = Pick<EditorState, 'pipelineId' | 'nodes' | 'revision' | 'layoutRevision' | 'savedRevision' | 'savedLayoutRevision'>;

/**
 * Null when nothing is unsaved (an empty new draft has nothing to lose), or when `to` opens this
 * same saved pipeline again (the editor keeps its edits).
 */
export function unsavedWarning(state: Editor, to: string): string | null {
  if (!isDirty(state) || (state.pipelineId === null && state.nodes.length === 0)) return null;
  const route = parseRoute(to.split(/[?#]/)[0]);
  if (route.page === 'editor' && state.pipelineId !== null && route.pipelineId === state.pipelineId) return null;
  return UNSAVED_WARNING;
}
