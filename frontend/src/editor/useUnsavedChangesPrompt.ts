import { useEffect } from 'react';
import { setLeaveGuard } from '../router';
import { useEditorStore } from '../state/editor/editorStore';
import { unsavedWarning } from '../state/editor/unsavedChanges';

/**
 * While the editor is open, leaving it with unsaved edits asks first: in-app links and Back
 * through the router's leave guard, closing or reloading the tab through `beforeunload`.
 */
export function useUnsavedChangesPrompt(): void {
  useEffect(() => {
    const removeGuard = setLeaveGuard((to) => unsavedWarning(useEditorStore.getState(), to));
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!unsavedWarning(useEditorStore.getState(), 'about:blank')) return;
      event.preventDefault();
      event.returnValue = ''; // older browsers show their prompt only when this is set
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      removeGuard();
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, []);
}
