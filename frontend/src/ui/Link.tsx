import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { mayLeave, navigate } from '../router';

interface LinkProps extends AnchorHTMLAttributes<HTMLAnchorElement> {
  to: string;
  /** Runs before navigating, e.g. to reset the editor for a new pipeline. */
  beforeNavigate?: () => void;
}

/** An anchor that navigates inside the app; modified clicks open a tab as usual. */
export function Link({ to, beforeNavigate, onClick, children, ...rest }: LinkProps) {
  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (!mayLeave(to)) return; // before beforeNavigate: a user who stays keeps their edits
    beforeNavigate?.();
    navigate(to);
  }
  return (
    <a href={to} onClick={handleClick} {...rest}>
      {children}
    </a>
  );
}
