import { describe, expect, it } from 'vitest';
import { applyCompletion, completionsAt } from './completions';

const PATHS = ["x['value']", "x['value']['user']", "x['value']['amount']", "x['key']"];

describe('completionsAt', () => {
  it('offers every path after x and narrows as the path is typed', () => {
    expect(completionsAt('x', 1, PATHS).items).toEqual(PATHS);
    expect(completionsAt("x['value']['u", 13, PATHS)).toEqual({ from: 0, items: ["x['value']['user']"] });
    expect(completionsAt("x['k", 4, PATHS).items).toEqual(["x['key']"]);
  });

  it('completes the word at the cursor inside a longer expression, and nothing for other words', () => {
    const text = "x['value']['amount'] > 10 and x['va";
    const found = completionsAt(text, text.length, PATHS);
    expect(found.from).toBe(text.indexOf("x['va", 5));
    expect(found.items).toEqual(["x['value']", "x['value']['user']", "x['value']['amount']"]);
    expect(completionsAt('len(', 4, PATHS).items).toEqual([]);
    expect(completionsAt("x['key']", 8, PATHS).items).toEqual([]); // complete already
  });

  it('replaces what was typed and puts the cursor after the path', () => {
    expect(applyCompletion("len(x['v) > 2", 8, 4, "x['value']['user']")).toEqual({
      text: "len(x['value']['user']) > 2",
      cursor: 22,
    });
  });
});
