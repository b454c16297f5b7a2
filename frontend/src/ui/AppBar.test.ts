import { describe, expect, it } from 'vitest';
import baseCss from '../styles/base.css?raw';

/** The declarations of the first rule for exactly `selector` in `css`. */
function rule(css: string, selector: string): string {
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`(?:^|\\n)\\s*${escaped}\\s*\\{([^}]*)\\}`).exec(css);
  expect(found, selector).not.toBeNull();
  return found![1];
}

describe('the app bar', () => {
  // at 1024 px its entries wrapped onto two lines ("Alert rules", "New pipeline"), taller than the bar
  it('keeps every entry whole on one line, its entries never shrinking', () => {
    expect(rule(baseCss, '.app-nav a')).toContain('white-space: nowrap');
    expect(rule(baseCss, '.app-nav')).toContain('flex-shrink: 0');
    expect(rule(baseCss, '.brand')).toContain('white-space: nowrap');
  });

  it("gives way with the user's name, cut with an ellipsis", () => {
    const button = rule(baseCss, '.user-menu__button');
    for (const declaration of ['white-space: nowrap', 'overflow: hidden', 'text-overflow: ellipsis', 'max-width: 100%']) expect(button).toContain(declaration);
    expect(rule(baseCss, '.user-menu')).toContain('min-width: 0');
  });

  it('takes tighter gaps below 1200 px', () => {
    const narrow = /@media \(max-width: 1199px\) \{([\s\S]*?)\n\}/.exec(baseCss);
    expect(narrow).not.toBeNull();
    expect(rule(narrow![1], '.app-bar')).toContain('gap: 16px');
    expect(rule(narrow![1], '.app-nav')).toContain('gap: 12px');
  });
});
