/**
 * Tokens of an expression for highlighting, not for checking: the server's compiler is the
 * judge of what is valid. Every character of the text lands in exactly one token, so the
 * highlighted copy lines up with the text the user edits.
 */
export type TokenKind = 'keyword' | 'constant' | 'name' | 'number' | 'string' | 'operator' | 'bracket' | 'comment' | 'space';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'is', 'if', 'else', 'for', 'lambda']);
const CONSTANTS = new Set(['None', 'True', 'False']);

// One alternative per kind, tried in this order at each position; the last one takes any other character.
const TOKEN = new RegExp(
  [
    String.raw`(?<space>\s+)`,
    String.raw`(?<comment>#[^\n]*)`,
    String.raw`(?<string>[rRbBfF]{0,2}(?:'(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?))`,
    String.raw`(?<number>(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?j?)`,
    String.raw`(?<word>[A-Za-z_][A-Za-z0-9_]*)`,
    String.raw`(?<bracket>[()[\]{}])`,
    String.raw`(?<operator>\*\*|//|==|!=|<=|>=|[-+*/%<>=.,:~&|^@])`,
    String.raw`(?<other>[^])`,
  ].join('|'),
  'gy',
);

/** The text cut into highlighting tokens, in order; joined they give the text back. */
export function expressionTokens(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null && match[0] !== ''; match = TOKEN.exec(text)) {
    const groups = match.groups ?? {};
    const kind = (Object.keys(groups).find((name) => groups[name] !== undefined) ?? 'other') as keyof typeof groups;
    tokens.push({ kind: kindOf(String(kind), match[0]), text: match[0] });
  }
  return tokens;
}

function kindOf(group: string, text: string): TokenKind {
  if (group === 'word') return KEYWORDS.has(text) ? 'keyword' : CONSTANTS.has(text) ? 'constant' : 'name';
  if (group === 'other') return 'operator';
  return group as TokenKind;
}
