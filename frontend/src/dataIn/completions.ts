/**
 * Completing an expression with known field paths (``x['value']['user']``): the text just before
 * the cursor that could start a path is replaced by the chosen one.
 */

/** Characters a field path is written with, as far back as the cursor's word goes. */
const PATH_TAIL = /[A-Za-z0-9_[\]'".-]*$/;

export interface Completion {
  /** Where the replaced text starts. */
  from: number;
  /** The paths that continue what is typed (all of them right after ``x``, none for an unrelated word). */
  items: string[];
}

export function completionsAt(text: string, cursor: number, paths: string[], limit = 12): Completion {
  const before = text.slice(0, cursor);
  const typed = before.match(PATH_TAIL)?.[0] ?? '';
  const from = cursor - typed.length;
  if (!typed.startsWith('x')) return { from, items: [] };
  const items = paths.filter((path) => path.startsWith(typed) && path !== typed).slice(0, limit);
  return { from, items };
}

/** ``text`` with the completion applied, and where the cursor goes. */
export function applyCompletion(text: string, cursor: number, from: number, path: string): { text: string; cursor: number } {
  return { text: text.slice(0, from) + path + text.slice(cursor), cursor: from + path.length };
}
