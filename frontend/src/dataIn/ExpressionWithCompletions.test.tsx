// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ExpressionWithCompletions } from './ExpressionWithCompletions';

const FIELDS = ["x['value']['user']", "x['value']['amount']"];

function Field({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);
  return <ExpressionWithCompletions data-testid="expression" suggestions={FIELDS} value={text} onChange={setText} />;
}

/** The textarea with ``text``, its caret at ``cursor``, and the completions opened as a key release opens them. */
function typedUpTo(text: string, cursor: number): HTMLTextAreaElement {
  render(<Field initial={text} />);
  const input = screen.getByTestId('expression') as HTMLTextAreaElement;
  input.focus();
  input.setSelectionRange(cursor, cursor);
  fireEvent.keyUp(input, { key: 'u' });
  return input;
}

describe('ExpressionWithCompletions', () => {
  afterEach(cleanup);

  it('offers the fields that continue what is typed before the caret', () => {
    typedUpTo("x['value']['u", 13);
    expect(screen.getAllByTestId('expression-completion').map((item) => item.textContent)).toEqual(["x['value']['user']"]);
  });

  it('puts the caret after a taken completion before the next key is handled', () => {
    // completed in the middle of the text: a value set from code leaves the caret at the end
    const input = typedUpTo("x['value']['u == 'u1'", 13);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe("x['value']['user'] == 'u1'");
    // no frame has passed: a key typed now lands right after the field
    expect([input.selectionStart, input.selectionEnd]).toEqual([18, 18]);
    expect(screen.queryByTestId('expression-completions')).toBeNull();
  });

  it('takes a clicked completion the same way', () => {
    const input = typedUpTo("x['value']['a + 1", 13);
    fireEvent.mouseDown(screen.getByText("x['value']['amount']"));
    expect(input.value).toBe("x['value']['amount'] + 1");
    expect(input.selectionStart).toBe(20);
  });
});
