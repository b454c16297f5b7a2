import '../styles/dataIn.css';
import { useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { ExpressionEditor } from '../ui/ExpressionEditor';
import { applyCompletion, completionsAt, type Completion } from './completions';

type EditorProps = Parameters<typeof ExpressionEditor>[0];

/**
 * The expression editor with the fields known for its node offered as the user types (``x['…``):
 * arrows choose, Enter or Tab takes one, Escape closes the list; a click takes one too.
 */
export function ExpressionWithCompletions({ suggestions, onChange, value, ...props }: EditorProps & { suggestions: string[] }) {
  const [open, setOpen] = useState<Completion | null>(null);
  const [active, setActive] = useState(0);
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  // where the caret goes once a taken completion's text is rendered: placed in the same commit, before
  // the next key is handled (a caret placed on a later frame moved keys typed quickly after Enter)
  const caretAfterCompletion = useRef<number | null>(null);

  useLayoutEffect(() => {
    const element = textarea.current;
    const cursor = caretAfterCompletion.current;
    if (!element || cursor === null) return;
    caretAfterCompletion.current = null;
    element.focus();
    element.setSelectionRange(cursor, cursor);
  });

  const update = (element: HTMLTextAreaElement) => {
    textarea.current = element;
    const found = completionsAt(element.value, element.selectionStart ?? element.value.length, suggestions);
    setOpen(found.items.length ? found : null);
    setActive(0);
  };

  const take = (path: string) => {
    const element = textarea.current;
    if (!element || !open) return;
    const cursor = element.selectionStart ?? value.length;
    const next = applyCompletion(value, cursor, open.from, path);
    caretAfterCompletion.current = next.cursor;
    onChange(next.text);
    setOpen(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + open.items.length) % open.items.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      take(open.items[active]);
    } else if (event.key === 'Escape') {
      event.stopPropagation();
      setOpen(null);
    }
  };

  return (
    <div className="expression-completions">
      <ExpressionEditor
        {...props}
        value={value}
        onChange={(text) => {
          onChange(text);
        }}
        onKeyDown={onKeyDown}
        onKeyUp={(event) => {
          if (!['ArrowDown', 'ArrowUp', 'Enter', 'Tab', 'Escape'].includes(event.key)) update(event.currentTarget);
        }}
        onClick={(event) => update(event.currentTarget)}
        onFocus={(event) => update(event.currentTarget)}
        onBlur={() => setOpen(null)}
        aria-autocomplete="list"
      />
      {open && (
        <ul className="expression-completions__list" role="listbox" data-testid="expression-completions">
          {open.items.map((path, index) => (
            <li
              key={path}
              role="option"
              aria-selected={index === active}
              className={index === active ? 'is-active' : undefined}
              data-testid="expression-completion"
              onMouseDown={(event) => {
                event.preventDefault(); // keep the focus in the textarea
                take(path);
              }}
            >
              <code>{path}</code>
            </li>
          ))}
        </ul>
      )}
      {suggestions.length > 0 && !open && (
        <p className="form-field__help expression-completions__hint" data-testid="expression-fields-hint">
          Type <code>x</code> for the {suggestions.length} fields of the Kafka topic feeding this node.
        </p>
      )}
    </div>
  );
}
