import { describe, expect, it } from 'vitest';

// Every style sheet, as text: a rule about the run graph's nodes may live in any of them.
const sheets = import.meta.glob<string>('./*.css', { query: '?raw', import: 'default', eager: true });

/** The run graph's node text is at least this big (run.css, .run-vertex): 11 px on screen at the fitted zoom;
 * tests/e2e/test_first_hour_run_page.py measures it on screen, this catches a smaller one before a browser runs. */
const SMALLEST_NODE_TEXT_PX = 12;
const RUN_GRAPH_NODE = /\.run-(vertex|cell)(__[\w-]+)?(?![\w-])/;

/** Each rule's selector and its font sizes, from the innermost blocks (a rule inside @media too). */
function fontSizes(css: string): { selector: string; size: string }[] {
  const found: { selector: string; size: string }[] = [];
  for (const [, selector, body] of css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    for (const [, size] of body.matchAll(/(?:^|;)\s*font-size\s*:\s*([^;]+)/g)) {
      found.push({ selector: selector.trim(), size: size.trim() });
    }
  }
  return found;
}

describe('the run graph’s node text', () => {
  it('is never smaller than a person reads at a glance', () => {
    const rules = Object.entries(sheets).flatMap(([file, css]) =>
      fontSizes(css).filter(({ selector }) => RUN_GRAPH_NODE.test(selector)).map((rule) => ({ file, ...rule })));
    expect(rules.length).toBeGreaterThan(3);
    const small = rules.filter(({ size }) => !(size.endsWith('px') && parseFloat(size) >= SMALLEST_NODE_TEXT_PX));
    expect(small).toEqual([]);
  });

  it('reads the sizes of nested and commented rules', () => {
    expect(fontSizes('/* .run-cell { font-size: 1px } */ @media (x) { .run-cell__a { color: red; font-size: 10.5px } }'))
      .toEqual([{ selector: '.run-cell__a', size: '10.5px' }]);
  });
});
