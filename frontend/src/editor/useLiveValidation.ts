import { useEffect } from 'react';
import { api } from '../api/client';
import { currentDefinition, useEditorStore, type EditorState } from '../state/editor/editorStore';

export const VALIDATION_DEBOUNCE_MS = 400;

const selectRevision = (state: EditorState) => state.revision;

/**
 * Validate the definition on the server shortly after every change. A result that comes
 * back after a newer change is dropped by the store; the newer change has its own request.
 */
export function useLiveValidation(enabled: boolean): void {
  const revision = useEditorStore(selectRevision);
  useEffect(() => {
    if (!enabled) return;
    const timer = setTimeout(async () => {
      const state = useEditorStore.getState();
      if (state.revision !== revision) return;
      state.validationStarted(revision);
      try {
        const result = await api.validateDefinition(currentDefinition(state), state.pipelineId);
        useEditorStore.getState().validationFinished(revision, result.errors ?? [], result.valid, result.warnings ?? []);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        useEditorStore.getState().validationUnavailable(revision, message);
      }
    }, VALIDATION_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [revision, enabled]);
}
