import { expressionTokens } from './expressionTokens';
import { classNames } from './classNames';

/** Lines the box grows to before it scrolls. */
export const MAX_VISIBLE_LINES = 12;

interface ExpressionEditorProps extends Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onChange'> {
  value: string;
  onChange: (text: string) => void;
  invalid?: boolean;
}

/**
 * A multi-line expression field with syntax highlighting: a plain textarea (so typing,
 * selection, undo, screen readers and form tests behave as everywhere) over a highlighted
 * copy of its text drawn in the same font, cell for cell. It grows with its lines.
 */
export function ExpressionEditor({ value, onChange, invalid, className, ...textareaProps }: ExpressionEditorProps) {
  const lines = value.split('\n').length;
  return (
    <div className={classNames('expression-editor', invalid && 'is-invalid', className)}>
      <pre className="expression-editor__highlight" aria-hidden="true">
        {expressionTokens(value).map((token, index) =>
          token.kind === 'space' ? token.text : (
            <span key={index} className={`token-${token.kind}`}>
              {token.text}
            </span>
          ),
        )}
        {/* a trailing newline needs a character after it to take its line */}
        {value.endsWith('\n') ? ' ' : null}
      </pre>
      <textarea
        {...textareaProps}
        className="expression-editor__input"
        rows={Math.min(Math.max(lines, 1), MAX_VISIBLE_LINES)}
        spellCheck={false}
        autoComplete="off"
        autoCapitalize="off"
        wrap="off"
        value={value}
        aria-invalid={invalid || undefined}
        onChange={(event) => onChange(event.target.value)}
        onScroll={(event) => {
          const highlight = event.currentTarget.previousElementSibling as HTMLElement | null;
          if (highlight) {
            highlight.scrollTop = event.currentTarget.scrollTop;
            highlight.scrollLeft = event.currentTarget.scrollLeft;
          }
        }}
      />
    </div>
  );
}
