import { useEffect, type ReactNode } from 'react';

/**
 * A modal dialog over a dimmed page: a click beside it or Escape closes it (`onClose`), as
 * Cancel or Close inside it does.
 */
export function Dialog({ label, testId, onClose, children }: { label: string; testId: string; onClose: () => void; children: ReactNode }) {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [onClose]);
  return (
    <div className="dialog-backdrop" role="presentation" onClick={onClose}>
      <div className="dialog" role="dialog" aria-modal="true" aria-label={label} data-testid={testId} onClick={(event) => event.stopPropagation()}>
        {children}
      </div>
    </div>
  );
}
