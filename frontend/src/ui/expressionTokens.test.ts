import { describe, expect, it } from 'vitest';
import { expressionTokens } from './expressionTokens';

describe('expressionTokens', () => {
  it('gives every character to one token, so the highlighted copy lines up with the text', () => {
    const texts = ['x * 2', "(x['amount'] *\n  2) if x['n'] > 1.5e3\n else None", 'a ** -b // 3 != 4 # note', "'open", '$ ?'];
    for (const text of texts) expect(expressionTokens(text).map((token) => token.text).join('')).toBe(text);
  });

  it('tells keywords, constants, names, numbers, strings, operators and brackets apart', () => {
    const kinds = expressionTokens("x['a'] if y is not None else 1_000.5")
      .filter((token) => token.kind !== 'space')
      .map((token) => `${token.kind}:${token.text}`);
    expect(kinds).toEqual([
      'name:x', 'bracket:[', "string:'a'", 'bracket:]', 'keyword:if', 'name:y', 'keyword:is', 'keyword:not',
      'constant:None', 'keyword:else', 'number:1_000.5',
    ]);
  });

  it('keeps an unclosed string to the end of its line', () => {
    expect(expressionTokens("'abc\nx").map((token) => token.kind)).toEqual(['string', 'space', 'name']);
  });
});
