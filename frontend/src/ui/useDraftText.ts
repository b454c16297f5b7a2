import { useEffect, useState } from 'react';

/**
 * Text an input shows while the user types, kept apart from the value it stands for, so that
 * a half-typed "1." or "x +" stays on screen (and the caret stays put) while the parsed value
 * is committed. When the value changes from elsewhere, the text follows it.
 */
export function useDraftText<V>(value: V, toText: (value: V) => string, textMeans: (text: string) => V) {
  const [text, setText] = useState(() => toText(value));
  useEffect(() => {
    setText((current) => (sameValue(textMeans(current), value) ? current : toText(value)));
    // The conversions are pure; only a new value should resync the text.
  }, [value]);
  return [text, setText] as const;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a == null && b == null) return true;
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}
