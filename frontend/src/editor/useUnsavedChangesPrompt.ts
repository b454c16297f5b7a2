import { useEffect } from 'react';
import { holdBack, isLeaving, setLeaveGuard, SOMEWHERE_ELSE } from '../router';
import { useEditorStore } from '../state/editor/editorStore';
import { unsavedWarning } from '../state/editor/unsavedChanges';

/**
 * While the editor is open, leaving it with unsaved edits asks first: in-app links and Back
 * through the router's leave guard (Back held from the first unsaved edit on, so that the address
 * changes only once the user said so), closing or reloading the tab through `beforeunload`.
 */
export function useUnsavedChangesPrompt(): void {
  useEffect(() => {
    const removeGuard = setLeaveGuard((to) => unsavedWarning(useEditorStore.getState(), to));
    const holdWhenUnsaved = (state: ReturnType<typeof useEditorStore.getState>) => {
      if (unsavedWarning(state, SOMEWHERE_ELSE)) holdBack();
    };
    holdWhenUnsaved(useEditorStore.getState());
    const unsubscribe = useEditorStore.subscribe(holdWhenUnsaved);
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (isLeaving() || !unsavedWarning(useEditorStore.getState(), SOMEWHERE_ELSE)) return;
      event.preventDefault();
      event.returnValue = ''; // older browsers show their prompt only when this is set
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      unsubscribe();
      removeGuard();
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, []);
}
