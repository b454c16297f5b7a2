// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useCallback, useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { useDismiss } from './useDismiss';

function Menu() {
  const [open, setOpen] = useState(false);
  const inside = useDismiss<HTMLDivElement>(open, useCallback(() => setOpen(false), []));
  return (
    <div>
      <p>elsewhere</p>
      <div ref={inside}>
        <button type="button" onClick={() => setOpen(!open)}>menu</button>
        {open && <p role="menu">items</p>}
      </div>
    </div>
  );
}

describe('a menu that closes as people expect', () => {
  afterEach(cleanup);

  it('closes on a press elsewhere and on Escape, not on a press inside it', () => {
    render(<Menu />);
    fireEvent.click(screen.getByText('menu'));
    fireEvent.pointerDown(screen.getByRole('menu'));
    expect(screen.queryByRole('menu')).not.toBeNull();
    fireEvent.pointerDown(screen.getByText('elsewhere'));
    expect(screen.queryByRole('menu')).toBeNull();
    fireEvent.click(screen.getByText('menu'));
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    fireEvent.click(screen.getByText('menu'));
    fireEvent.click(screen.getByText('menu'));
    expect(screen.queryByRole('menu')).toBeNull();
  });
});
