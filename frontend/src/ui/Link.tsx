import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../router';

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
    beforeNavigate?.();
    navigate(to);
  }
  return (
    <a href={to} onClick={handleClick} {...rest}>
      {children}
    </a>
  );
}
