import type { InputHTMLAttributes } from 'react';
import { useDraftText } from './useDraftText';
import { classNames } from './classNames';

interface IntegerInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'type'> {
  value: number | undefined;
  /** Called with each whole number typed, or undefined when the input is emptied and `optional`. */
  onCommit: (value: number | undefined) => void;
  optional?: boolean;
  min?: number;
}

const toText = (value: number | undefined) => (value === undefined ? '' : String(value));

function parseWholeNumber(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : null;
}

/**
 * A text input for a whole number. What does not parse, or is below `min`, is kept on screen
 * and marked invalid, and is not committed.
 */
export function IntegerInput({ value, onCommit, optional = false, min, className, ...rest }: IntegerInputProps) {
  const [text, setText] = useDraftText(value, toText, (raw) => parseWholeNumber(raw) ?? value);
  const parsed = parseWholeNumber(text);
  const invalid = parsed === null || (parsed === undefined && !optional) || (parsed !== undefined && min !== undefined && parsed < min);
  return (
    <input
      type="text"
      inputMode="numeric"
      autoComplete="off"
      className={classNames('input', 'is-number', invalid && 'is-invalid', className)}
      aria-invalid={invalid || undefined}
      value={text}
      onChange={(event) => {
        setText(event.target.value);
        const next = parseWholeNumber(event.target.value);
        if (next === null || (next === undefined && !optional)) return;
        if (next !== undefined && min !== undefined && next < min) return;
        onCommit(next);
      }}
      {...rest}
    />
  );
}
