import { useEffect, useRef } from 'react';

/**
 * A menu or popover that closes as people expect: on a press anywhere outside it (the returned
 * ref marks what counts as inside: its button and its list) and on Escape.
 */
export function useDismiss<T extends HTMLElement>(open: boolean, close: () => void) {
  const inside = useRef<T>(null);
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!inside.current?.contains(event.target as Node)) close();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close();
    };
    document.addEventListener('pointerdown', onPointerDown, true);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown, true);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open, close]);
  return inside;
}
