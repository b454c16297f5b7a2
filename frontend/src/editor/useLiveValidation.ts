import { useEffect, useRef } from 'react';
import { api } from '../api/client';
import { currentDefinition, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEnvironmentChoice, type EnvironmentChoiceState } from '../state/editor/environmentChoice';

export const VALIDATION_DEBOUNCE_MS = 400;

const selectRevision = (state: EditorState) => state.revision;
const selectEnvironment = (state: EnvironmentChoiceState) => state.selected;

/**
 * Validate the definition on the server shortly after every change, with the chosen environment's
 * values filled in (a parameter it lacks is a problem where it is used). A result that comes back
 * after a newer change, or for another environment than the one chosen now, is dropped; the newer
 * one has its own request. Choosing another environment marks the verdict as being checked at once,
 * so Run never starts on the verdict about another environment's values.
 */
export function useLiveValidation(enabled: boolean): void {
  const revision = useEditorStore(selectRevision);
  const environment = useEnvironmentChoice(selectEnvironment);
  const validatedEnvironment = useRef(environment);
  useEffect(() => {
    if (!enabled) return;
    if (validatedEnvironment.current !== environment) {
      validatedEnvironment.current = environment;
      useEditorStore.getState().validationStarted(revision);
    }
    const timer = setTimeout(async () => {
      const state = useEditorStore.getState();
      if (state.revision !== revision) return;
      state.validationStarted(revision);
      const stillAsked = () => useEnvironmentChoice.getState().selected === environment;
      try {
        const result = await api.validateDefinition(currentDefinition(state), state.pipelineId, environment);
        if (stillAsked()) useEditorStore.getState().validationFinished(revision, result.errors ?? [], result.valid, result.warnings ?? []);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (stillAsked()) useEditorStore.getState().validationUnavailable(revision, message);
      }
    }, VALIDATION_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [revision, enabled, environment]);
}
