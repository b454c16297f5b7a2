import type { HTMLAttributes } from 'react';
import type { Tone } from '../state/run/runStatus';

interface StatusBadgeProps extends HTMLAttributes<HTMLSpanElement> {
  tone: Tone;
  children: string;
}

/** A coloured pill for a status; its text is exactly the status. */
export function StatusBadge({ tone, children, className, ...rest }: StatusBadgeProps) {
  return (
    <span className={`badge tone-${tone}${className ? ` ${className}` : ''}`} {...rest}>
      {children}
    </span>
  );
}
