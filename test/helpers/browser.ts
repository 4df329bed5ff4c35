import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import type { HubProcess } from './hub-process.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Debian's Chromium, headless, with the flags this closed network needs. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}; install it (apt-get install chromium) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

/** Sign `page` in to the hub's UI with the one-time login link `datahub serve` printed. */
export async function signIn(page: Page, hub: Pick<HubProcess, 'output'>): Promise<void> {
  const m = /one-time link: (\S+)/.exec(hub.output());
  if (!m) throw new Error(`serve printed no login link:\n${hub.output()}`);
  await page.goto(m[1]!);
}

/** A locator's text once `ok` holds for it, or the last text read when `timeoutMs` has passed. */
async function settledText(locator: Locator, ok: (text: string) => boolean, timeoutMs: number): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    // An element that is not there (yet, or for a moment while the page redraws) reads as no text until the time is up.
    const text = (await locator.count()) === 0 ? '' : ((await locator.textContent({ timeout: Math.max(1, until - Date.now()) }).catch(() => '')) ?? '');
    if (ok(text) || Date.now() >= until) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Assert that a locator's text matches, waiting for it (up to `timeoutMs`) as a user would: the page draws what it
 * fetched after the element appears, so one read right away can see it empty. Fails with the last text read.
 */
export async function textMatches(locator: Locator, pattern: RegExp, message?: string, timeoutMs = 10_000): Promise<void> {
  assert.match(await settledText(locator, (t) => pattern.test(t), timeoutMs), pattern, message);
}

/** Assert that a locator's text, trimmed, equals `expected`, waiting for it as textMatches does. */
export async function textEquals(locator: Locator, expected: string, message?: string, timeoutMs = 10_000): Promise<void> {
  assert.equal((await settledText(locator, (t) => t.trim() === expected, timeoutMs)).trim(), expected, message);
}

/** Chromium with a page signed in to `hub`'s UI, at 1440×900 unless given another viewport. */
export async function signedInPage(hub: Pick<HubProcess, 'output'>, viewport = { width: 1440, height: 900 }): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport });
  await signIn(page, hub);
  return { browser, page };
}

/** The browser closed, the hub stopped, its data and `dirs` removed (what a UI test's after() does; any may be unset). */
export async function closeAll(browser: Browser | undefined, hub: HubProcess | undefined, ...dirs: (string | undefined)[]): Promise<void> {
  await browser?.close();
  await hub?.stop();
  for (const dir of [hub?.dataDir, ...dirs]) if (dir) rmSync(dir, { recursive: true, force: true });
}

/**
 * Wait until `expression` (script text: the tests compile without the DOM's types) is truthy in the page, read with
 * page.evaluate every 50 ms. Not page.waitForFunction with a string: that evaluates the text in the page again at
 * each poll, which the workbench's CSP (no 'unsafe-eval') refuses whenever the first try is not already true.
 */
export async function waitForScript(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() >= until) throw new Error(`not true within ${timeoutMs} ms: ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
