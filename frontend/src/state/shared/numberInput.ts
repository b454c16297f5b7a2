/**
 * Text a person typed into a number field, read as the JSON number a request sends. The server takes
 * only JSON numbers where its schema says integer or number (not "2", not 2.0 for an integer), so a
 * form reads its text here and sends the number, or shows the problem at the field and sends nothing.
 *
 * Only decimal notation counts: `Number()` alone would read "" as 0, "0x10" as 16, "Infinity" as an
 * infinity, and give NaN for "abc", which `JSON.stringify` sends as null.
 */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

export interface NumberBounds {
  /** A whole number only (the schema's `integer`). */
  integer?: boolean;
  min?: number;
  max?: number;
}

export type NumberRead = { value: number; problem: null } | { value: null; problem: string };

/** What a field with these bounds takes, in words: "a whole number from 1 to 1,000". */
export function describeBounds({ integer, min, max }: NumberBounds): string {
  const kind = integer ? 'a whole number' : 'a number';
  if (min !== undefined && max !== undefined) return `${kind} from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`;
  if (min !== undefined) return `${kind} of at least ${min.toLocaleString('en')}`;
  if (max !== undefined) return `${kind} of at most ${max.toLocaleString('en')}`;
  return kind;
}

/** ``text`` as a finite number within ``bounds``, or the problem with it (empty text is a problem too). */
export function readNumber(text: string, bounds: NumberBounds = {}): NumberRead {
  const trimmed = text.trim();
  const value = DECIMAL.test(trimmed) ? Number(trimmed) : NaN;
  const fits =
    Number.isFinite(value) &&
    (!bounds.integer || Number.isSafeInteger(value)) &&
    (bounds.min === undefined || value >= bounds.min) &&
    (bounds.max === undefined || value <= bounds.max);
  return fits ? { value, problem: null } : { value: null, problem: describeBounds(bounds) };
}

/** A stepper's text as the whole number it stands for, rounded and held within ``min``..``max``; ``min``
 * for text that is no number (an input emptied while typing). */
export function clampedWhole(text: string, min: number, max: number): number {
  const { value } = readNumber(text);
  return value === null ? min : Math.min(max, Math.max(min, Math.round(value)));
}
