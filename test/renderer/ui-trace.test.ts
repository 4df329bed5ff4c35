// Tracing in the Preview tab, in Chromium against the real hub: click an output property, see the steps that set it
// beside the editor with the step highlighted in Monaco; click a step, see the properties it touched; a filtered
// entity says which filter dropped it and why; a click in the transform text picks the step there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { runPump } from '../helpers/api.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const pageErrors: string[] = [];

const PEOPLE = [
  { _id: 'ada', name: 'Ada Lovelace', born: 1815 },
  { _id: 'alan', name: 'Alan Turing', born: 1912 },
];
const TRANSFORM = {
  type: 'dtl',
  rules: {
    default: [
      ['copy', 'born'],
      ['add', 'loud', ['upper', '_S.name']],
      ['add', 'era', ['if', ['gt', '_S.born', 1900], 'modern', 'early']],
      ['filter', ['neq', '_S._id', 'alan']],
    ],
  },
};

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await hub.json('/datasets/people/entities', { method: 'POST', json: PEOPLE });
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'eras', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, transform: TRANSFORM, pump: { mode: 'manual' } }] });
  const context = await browser.newContext({ viewport: { width: 1500, height: 1000 } });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const editor = (): Locator => page.getByTestId('preview-transform-editor');
const panel = (): Locator => page.getByTestId('trace-panel');

/** The output property `name` of the sample entity shown in result `k`. */
function property(k: number, name: string): Locator {
  return page.getByTestId('preview-result').nth(k).locator(`[data-testid="trace-property"][data-property="${name}"]`);
}

/** Wait until the editor highlights the element at this hub JSON path. */
async function highlightOf(path: string): Promise<void> {
  await page.locator(`[data-testid="preview-transform-editor"][data-highlight-path="${path}"]`).waitFor();
}

async function highlighted(): Promise<{ path: string | null; text: string | null }> {
  return { path: await editor().getAttribute('data-highlight-path'), text: await editor().getAttribute('data-highlight-text') };
}

test('click an output property: its derivation beside the editor, the step highlighted in Monaco; click a step: what it touched', async () => {
  await page.goto(`${hub.url}/#/pipes/eras/preview`);
  await editor().locator('.monaco-editor .view-lines').first().waitFor();
  await page.getByTestId('preview-output').filter({ hasText: 'ADA LOVELACE' }).waitFor();

  // The property "loud" of Ada: set by the add at default[1], from upper of _S.name.
  await property(0, 'loud').click();
  await panel().waitFor();
  await textMatches(page.getByTestId('trace-events'), /set by add at \$\.transform\.rules\.default\[1\]\s*"ADA LOVELACE"/);
  const step = page.getByTestId('trace-step');
  assert.equal(await step.getAttribute('data-at'), '$.transform.rules.default[1]');
  await textMatches(step, /upper → "ADA LOVELACE"/);
  await textMatches(step, /_S\.name → "Ada Lovelace"/);
  await highlightOf('$.transform.rules.default[1]');
  const h = await highlighted();
  assert.match(h.text ?? '', /"add",\s*"loud",\s*\[\s*"upper",\s*"_S\.name"\s*\]/, 'the highlight covers the step\'s own text');
  await editor().locator('.trace-step-highlight').first().waitFor();
  await page.screenshot({ path: join(shots, 'trace-property.png'), fullPage: true });

  // "era": the if took its else branch for Ada (born 1815); the highlight moves to that step.
  await property(0, 'era').click();
  await highlightOf('$.transform.rules.default[2]');
  await textMatches(step, /if → "early" \(took else\)/);
  await textMatches(step, /gt → false/);

  // Click a step: the properties it touched, each of them a way to its derivation.
  await panel().locator('summary').click();
  await page.getByTestId('trace-all-steps').locator('[data-testid="trace-step-button"][data-at="$.transform.rules.default[0]"]').click();
  assert.equal(await step.getAttribute('data-at'), '$.transform.rules.default[0]');
  await highlightOf('$.transform.rules.default[0]');
  const touched = page.getByTestId('trace-touched-property');
  assert.deepEqual(await touched.evaluateAll((els) => els.map((e) => e.getAttribute('data-property'))), ['born']);
  await touched.first().click();
  await textMatches(page.getByTestId('trace-events'), /set by copy at \$\.transform\.rules\.default\[0\]\s*1815/);
  await textMatches(panel().locator('.head'), /Property “born”/);

  // The trace panel and the clickable output pass axe's WCAG A/AA rules, light and dark.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const findings = [...(await axeViolations(page, '[data-testid="trace-panel"]')), ...(await axeViolations(page, '[data-testid="preview-output"]'))];
    assert.deepEqual(findings, [], `${colorScheme}: ${describeFindings(findings)}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a filtered entity: which filter dropped it and why; a click in the transform text picks the step there', async () => {
  // Alan is filtered out: his _deleted comes from the filter, whose condition was false.
  await property(1, '_deleted').click();
  await page.getByTestId('trace-stopped').waitFor();
  await textMatches(page.getByTestId('trace-stopped'), /Stopped by filter at \$\.transform\.rules\.default\[3\]: its condition gave false/);
  await textMatches(page.getByTestId('trace-events'), /by the filter at \$\.transform\.rules\.default\[3\]/);
  await highlightOf('$.transform.rules.default[3]');
  assert.deepEqual(await page.getByTestId('trace-touched-property').evaluateAll((els) => els.map((e) => e.getAttribute('data-property'))), ['_deleted', '_filtered']);
  await textMatches(page.getByTestId('trace-step'), /neq → false/);

  // A click on 1900 in the transform text: the step around it (the add of "era"), for the same entity.
  await editor().locator('.view-lines').getByText('1900').first().click();
  await page.locator('[data-testid="trace-step"][data-at="$.transform.rules.default[2]"]').waitFor();
  assert.deepEqual(await page.getByTestId('trace-touched-property').evaluateAll((els) => els.map((e) => e.getAttribute('data-property'))), ['era']);
  await textMatches(page.getByTestId('trace-step'), /if → "modern" \(took then\)/);
  await highlightOf('$.transform.rules.default[2]');
  await page.screenshot({ path: join(shots, 'trace-filter.png'), fullPage: true });

  await page.getByTestId('trace-close').click();
  await panel().waitFor({ state: 'detached' });
  assert.equal((await highlighted()).path, '');
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
});

test('an entity of the pipe\'s output: "Trace" re-runs the source entity that made it and shows its derivation', async () => {
  await runPump(hub, 'eras');
  await page.goto(`${hub.url}/#/pipes/eras/output`);
  const trace = page.locator('[data-testid="trace-output"][data-id="ada"]');
  await trace.waitFor();
  await trace.click();
  await panel().waitFor();
  await textMatches(panel().locator('.head'), /Property “_id”\s*output 1 of input ada/);
  assert.equal(await page.getByTestId('preview-result').count(), 1, 'the sample is the one source entity');
  await textMatches(page.getByTestId('preview-sample-mode'), /your own/);
  await property(0, 'era').click();
  await highlightOf('$.transform.rules.default[2]');
  await textMatches(page.getByTestId('trace-step'), /if → "early" \(took else\)/);
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
});
