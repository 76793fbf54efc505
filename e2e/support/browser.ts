// Debian's Chromium driven by playwright-core (browser downloads are blocked here: `npx playwright install` fails),
// with no background traffic, which this machine's closed network would refuse. launch() gives every browser a fresh
// temporary profile of its own (Playwright refuses a --user-data-dir argument) and removes it on close.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** e2e/artifacts/<suite>: screenshots CI keeps (gitignored). */
export function artifactsDir(suite: string): string {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../artifacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A full-page screenshot named after the page it shows. */
export async function screenshot(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
