// The DTL function reference beside the config editor (search, a function's examples run in place) and the
// light/dark/system theme toggle, in Chromium against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { seedCrew } from '../helpers/crew.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  await seedCrew(hub);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.emulateMedia({ colorScheme: 'light' });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('the DTL functions pane: search, open a function, run its example in place', async () => {
  await page.goto(`${hub.url}/#/pipes/shout/config`);
  await page.getByTestId('config-editor').locator('.view-lines').filter({ hasText: '"upper"' }).waitFor();
  await page.getByTestId('config-reference-toggle').click();
  const reference = page.getByTestId('dtl-reference');
  await reference.getByTestId('dtl-function').first().waitFor();
  await reference.getByTestId('dtl-reference-search').fill('concat');
  const concat = reference.locator('[data-testid="dtl-function"][data-name="concat"]');
  assert.equal(await reference.getByTestId('dtl-function').first().getAttribute('data-name'), 'concat', 'a name match comes first');
  await concat.getByRole('button', { name: /concat/ }).click();
  const doc = concat.getByTestId('dtl-function-doc');
  await doc.filter({ hasText: 'VALUES(value-expression{>=1})' }).waitFor();
  // The second example: ["concat", "Hello ", "_S.name", "!"] on {"name": "John"}.
  await doc.getByTestId('dtl-example-run').nth(1).click();
  await doc.getByTestId('dtl-example-result').filter({ hasText: '"Hello John!"' }).waitFor();

  await reference.getByTestId('dtl-reference-search').fill('upper-case');
  await reference.locator('[data-testid="dtl-function"][data-name="upper"]').waitFor();
});

test('the theme toggle goes light, dark and back to the system, and is remembered', async () => {
  await page.goto(`${hub.url}/#/pipes/shout/config`);
  await page.locator('.monaco-editor.vs').first().waitFor();
  const toggle = page.getByTestId('theme-toggle');
  const background = (): Promise<string> => page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
  assert.equal(await toggle.getAttribute('data-theme-choice'), 'system');
  await toggle.click();
  assert.equal(await toggle.getAttribute('data-theme-choice'), 'light');
  assert.equal(await background(), 'rgb(255, 255, 255)');
  await toggle.click();
  assert.equal(await toggle.getAttribute('data-theme-choice'), 'dark');
  assert.equal(await background(), 'rgb(21, 24, 28)', 'dark although the system is light');
  await page.locator('.monaco-editor.vs-dark').first().waitFor();

  await page.reload();
  await page.locator('.monaco-editor.vs-dark').first().waitFor();
  assert.equal(await page.getByTestId('theme-toggle').getAttribute('data-theme-choice'), 'dark', 'remembered');

  await page.getByTestId('theme-toggle').click();
  assert.equal(await page.getByTestId('theme-toggle').getAttribute('data-theme-choice'), 'system');
  assert.equal(await background(), 'rgb(255, 255, 255)', 'the system is light');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await background(), 'rgb(21, 24, 28)', 'and follows it');
  await page.emulateMedia({ colorScheme: 'light' });
});
