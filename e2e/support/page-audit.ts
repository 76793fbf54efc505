// The checks run in the page: DOM types for the functions page.evaluate sends there.
/// <reference lib="dom" />
// Accessibility checks of a page in the browser, in the spirit of axe-core (not a dependency: these three checks are
// the ones issue 20 asks for): every form control has a name, text contrast meets WCAG AA, and Tab reaches every
// control with its focus visible. Each answers what fails, so a failed assertion names the element.
import type { Page } from 'playwright-core';

/** Inputs, selects and textareas with neither a <label> nor aria-label(ledby). */
export function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input:not([type=hidden]), select, textarea')]
      .filter(
        (el) => !(el.labels?.length || el.getAttribute('aria-label')?.trim() || el.getAttribute('aria-labelledby')),
      )
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

/** Visible text below 4.5:1 against its background (3:1 for large text); disabled controls are exempt (WCAG 1.4.3). */
export function lowContrastText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const parse = (css: string): Rgba => {
      const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
      return [r, g, b, a];
    };
    const over = (top: Rgba, under: Rgba): Rgba => {
      const a = top[3];
      return [0, 1, 2].map((i) => top[i]! * a + under[i]! * (1 - a)).concat(1) as Rgba;
    };
    const luminance = ([r, g, b]: Rgba) => {
      const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    // The backgrounds under an element, topmost first, laid over white where they let it through.
    const background = (el: Element): Rgba => {
      const layers: Rgba[] = [];
      for (let at: Element | null = el; at; at = at.parentElement) {
        const layer = parse(getComputedStyle(at).backgroundColor);
        if (layer[3] > 0) layers.push(layer);
        if (layer[3] >= 1) break;
      }
      return layers.reduceRight<Rgba>((under, top) => over(top, under), [255, 255, 255, 1]);
    };
    const found: string[] = [];
    const seen = new Set<Element>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const el = text.parentElement;
      if (!el || seen.has(el) || !text.textContent?.trim()) continue;
      seen.add(el);
      const style = getComputedStyle(el);
      if (el.getClientRects().length === 0 || style.visibility === 'hidden' || el.closest(':disabled, [aria-hidden]'))
        continue;
      const bg = background(el);
      const fg = over(parse(style.color), bg);
      const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a) as [number, number];
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        found.push(
          `${ratio.toFixed(2)}:1 ${style.color} on rgb(${bg.slice(0, 3).join(', ')}): ${el.outerHTML.slice(0, 100)}`,
        );
    }
    return found;
  });
}

export interface TabWalk {
  /** Controls Tab never reached. */
  missed: string[];
  /** Stops whose focus showed no outline or ring. */
  unseen: string[];
  stops: number;
}

/** Presses Tab from the top of the page until focus leaves it or comes round again, and compares with its controls. */
export async function tabThrough(page: Page, maxStops = 150): Promise<TabWalk> {
  const controls = await page.evaluate(() => {
    const focusable =
      'a[href], button:not(:disabled), input:not(:disabled):not([type=hidden]), select:not(:disabled), ' +
      'textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';
    const visible = [...document.querySelectorAll<HTMLElement>(focusable)].filter(
      (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden',
    );
    visible.forEach((el, i) => el.setAttribute('data-audit-stop', String(i)));
    (document.activeElement as HTMLElement | null)?.blur();
    return visible.map((el) => el.outerHTML.slice(0, 100));
  });
  const reached = new Set<string>();
  const unseen: string[] = [];
  let stops = 0;
  for (; stops < maxStops; stops++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return undefined;
      const style = getComputedStyle(el);
      const ring =
        el.matches(':focus-visible') &&
        ((style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none');
      return { id: el.getAttribute('data-audit-stop') ?? el.outerHTML.slice(0, 100), ring };
    });
    if (!stop || reached.has(stop.id)) break;
    reached.add(stop.id);
    if (!stop.ring) unseen.push(controls[Number(stop.id)] ?? stop.id);
  }
  return { missed: controls.filter((_, i) => !reached.has(String(i))), unseen, stops };
}
