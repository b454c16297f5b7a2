import { useEffect } from 'react';
import { api } from '../api/client';
import { canRun, currentDefinition, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore, type EditorViewState } from '../state/editor/editorViewStore';

const PLAN_DEBOUNCE_MS = 300;
const selectValidRevision = (state: EditorState) => (canRun(state) ? state.revision : 0);
const selectEnabled = (state: EditorViewState) => state.planEnabled;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * While the plan overlay is on, ask the planner for the plan of the current definition
 * (POST /api/plan) each time it was validated as valid; an invalid definition has no plan.
 */
export function usePlanOverlay(): void {
  const enabled = useEditorViewStore(selectEnabled);
  const validRevision = useEditorStore(selectValidRevision);
  useEffect(() => {
    if (!enabled || validRevision === 0) return;
    const timer = setTimeout(async () => {
      const state = useEditorStore.getState();
      if (state.revision !== validRevision) return;
      useEditorViewStore.getState().planLoading();
      try {
        const plan = await api.planOf(currentDefinition(state));
        if (useEditorStore.getState().revision === validRevision) useEditorViewStore.getState().planLoaded(validRevision, plan);
      } catch (error) {
        if (useEditorStore.getState().revision === validRevision) useEditorViewStore.getState().planFailed(validRevision, messageOf(error));
      }
    }, PLAN_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [enabled, validRevision]);
}
