// The stylesheets' text colours on every background they are drawn on, at WCAG AA (4.5:1). The browser test
// (e2e/console-access) measures the pages it renders; this also covers states it does not (failed and skipped nodes,
// error panels, warn and error log lines).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Read from disk: vitest hands a test no stylesheet's text, ?raw included.
const css = ['styles.css', 'pages.css']
  .map((name) => readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../src', name), 'utf8'))
  .join('\n');

function luminance(hex: string): number {
  const channel = (at: number) => {
    const c = parseInt(hex.slice(at, at + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The colours a rule's declarations name (`color`, or `background`), by whether its selector is the run log's. */
function colours(property: 'color' | 'background'): { log: Set<string>; page: Set<string> } {
  const found = { log: new Set<string>(), page: new Set<string>() };
  for (const [, selector = '', body = ''] of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
    const isLog = /\.log/.test(selector);
    for (const [, value = ''] of body.matchAll(new RegExp(`(?:^|[\\s;])${property}(?:-color)?:\\s*([^;]+);`, 'g'))) {
      const hex = /#[0-9a-f]{6}\b/i.exec(value)?.[0] ?? /var\(--([\w-]+)\)/.exec(value)?.[1];
      if (!hex) continue;
      const resolved = hex.startsWith('#') ? hex : new RegExp(`--${hex}:\\s*(#[0-9a-f]{6})`, 'i').exec(css)?.[1];
      if (resolved) found[isLog ? 'log' : 'page'].add(resolved.toLowerCase());
    }
  }
  return found;
}

describe('the palette', () => {
  it('draws every text colour at 4.5:1 or more on every background', () => {
    const text = colours('color');
    const backgrounds = colours('background');
    // The page's light backgrounds take the page's text colours; the run log's dark one takes the log's.
    const pairs = [
      ...[...text.page].flatMap((fg) =>
        [...backgrounds.page, '#ffffff'].filter((bg) => luminance(bg) > 0.5).map((bg) => [fg, bg]),
      ),
      ...[...text.log].flatMap((fg) => [...backgrounds.log].map((bg) => [fg, bg])),
    ].filter(([fg, bg]) => luminance(fg!) < 0.5 !== luminance(bg!) < 0.5);
    // The parse found the palette: the panels and state backgrounds, and the log's colours.
    expect(pairs.length).toBeGreaterThan(40);
    expect(pairs.filter(([fg, bg]) => contrast(fg!, bg!) < 4.5)).toEqual([]);
  });
});
