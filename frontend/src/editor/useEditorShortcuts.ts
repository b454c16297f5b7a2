import { useEffect } from 'react';
import { useEditorStore } from '../state/editor/editorStore';
import { useEditorViewStore } from '../state/editor/editorViewStore';

/** True when the key goes to a text field, which keeps its own undo, copy and paste. */
function typingInField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['checkbox', 'radio', 'button', 'submit', 'range', 'color', 'file'].includes(type);
}

/**
 * The editor's keyboard: Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z or Ctrl+Y redo, Ctrl/Cmd+C / V /
 * D copy, paste, duplicate, Ctrl/Cmd+A select all, Delete or Backspace remove the selection
 * (as one undo step). Keys typed into a field stay the field's.
 */
export function useEditorShortcuts(onPasted?: () => void): void {
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || typingInField(event.target)) return;
      if (useEditorViewStore.getState().diffView) return; // a diff is on screen, not the pipeline
      const store = useEditorStore.getState();
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      let handled = true;
      if (mod && key === 'z' && !event.shiftKey) store.undo();
      else if (mod && ((key === 'z' && event.shiftKey) || key === 'y')) store.redo();
      else if (mod && key === 'c') handled = !window.getSelection()?.toString() && store.copy();
      else if (mod && key === 'v') {
        handled = store.paste();
        if (handled) onPasted?.();
      } else if (mod && key === 'd') handled = store.duplicate() || true;
      else if (mod && key === 'a') store.selectAll();
      else if (!mod && (event.key === 'Delete' || event.key === 'Backspace')) store.deleteSelection();
      else handled = false;
      if (handled) event.preventDefault();
    }
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [onPasted]);
}
