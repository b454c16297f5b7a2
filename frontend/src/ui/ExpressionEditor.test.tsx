// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ExpressionEditor, MAX_VISIBLE_LINES } from './ExpressionEditor';

function Field({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);
  return <ExpressionEditor data-testid="expression" value={text} onChange={setText} />;
}

describe('ExpressionEditor', () => {
  afterEach(cleanup);

  it('edits several lines and highlights the same text it edits', () => {
    const { container } = render(<Field initial="x * 2" />);
    const input = screen.getByTestId('expression') as HTMLTextAreaElement;
    fireEvent.change(input, { target: { value: "x['n'] * 2\nif x['n'] > 1\nelse None" } });
    expect(input.value).toBe("x['n'] * 2\nif x['n'] > 1\nelse None");
    expect(input.rows).toBe(3);
    const highlight = container.querySelector('.expression-editor__highlight') as HTMLElement;
    expect(highlight.textContent).toBe(input.value);
    expect(Array.from(highlight.querySelectorAll('.token-keyword')).map((token) => token.textContent)).toEqual(['if', 'else']);
    expect(highlight.querySelector('.token-string')?.textContent).toBe("'n'");
  });

  it('grows with its lines up to a limit, then scrolls', () => {
    render(<Field initial={Array.from({ length: 30 }, (_, line) => `x + ${line}`).join('\n')} />);
    expect((screen.getByTestId('expression') as HTMLTextAreaElement).rows).toBe(MAX_VISIBLE_LINES);
  });
});
