// The "Impact" button beside Save in a pipe's Config tab, in Chromium against the real hub: it shows the hub's
// progress while the draft runs over the whole source, then what saving and re-running would do (counts, changed
// properties, samples), writes nothing, and can be cancelled.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { pushEntities, runPump } from '../helpers/api.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const N = 30_000;

const V1 = {
  _id: 'people-out',
  type: 'pipe',
  source: { type: 'dataset', dataset: 'people' },
  transform: { type: 'dtl', rules: { default: [['copy', '*']] } },
  pump: { mode: 'manual' },
};
// Adults are marked and only they pass: of ages 0..59 (i % 60), 18 in every 60 are filtered out.
const V2 = {
  ...V1,
  transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'adult', ['gte', '_S.age', 18]], ['filter', ['gte', '_S.age', 18]]] } },
};

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  const people = Array.from({ length: N }, (_, i) => ({ _id: `p${i}`, age: i % 60 }));
  for (let i = 0; i < N; i += 10_000) await pushEntities(hub, 'people', people.slice(i, i + 10_000));
  await hub.json('/pipes', { method: 'POST', json: [V1] });
  await runPump(hub, 'people-out', 'start', 30_000);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

/** Replace the whole configuration text in the Config tab's editor. */
async function replaceConfig(text: string): Promise<void> {
  const editor = page.getByTestId('config-editor');
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

const n = async (l: Locator): Promise<number> => Number(await l.getAttribute('data-n'));

test('Impact shows progress, then what saving and re-running would do, and writes nothing', async () => {
  await page.goto(`${hub.url}/#/pipes/people-out/config`);
  await page.getByTestId('config-editor').locator('.monaco-editor .view-lines').first().waitFor();
  await replaceConfig(JSON.stringify(V2));
  await page.getByTestId('config-dirty').filter({ hasText: 'unsaved changes' }).waitFor();

  await page.getByTestId('config-impact').click();
  const panel = page.getByTestId('impact-panel');
  await panel.waitFor();
  await panel.getByTestId('impact-progress').waitFor();
  await textMatches(panel.getByTestId('impact-progress'), new RegExp(`of ${N.toLocaleString('en-US')}|of ${N}`));

  const result = panel.getByTestId('impact-result');
  await result.waitFor({ timeout: 60_000 });
  await page.screenshot({ path: join(shots, 'impact.png') });
  const findings = await axeViolations(page, '[data-testid="impact-panel"]');
  assert.deepEqual(findings, [], describeFindings(findings));
  // Worked out by hand: 30 000 people, ages 0..59 in turn; 18 of every 60 are under 18 and are filtered (deleted);
  // the other 21 000 gain "adult".
  assert.equal(await n(result.getByTestId('impact-added')), 0);
  assert.equal(await n(result.getByTestId('impact-changed')), 21_000);
  assert.equal(await n(result.getByTestId('impact-deleted')), 9_000);
  assert.equal(await n(result.getByTestId('impact-unchanged')), 0);
  const adult = result.getByTestId('impact-properties').locator('tr[data-property="adult"] td');
  assert.deepEqual(await adult.allTextContents(), ['adult', '21000', '0', '0']);
  const sample = result.locator('[data-testid="impact-sample"][data-kind="changed"]').first();
  await sample.locator('summary').click();
  await textMatches(sample, /adult[\s\S]*\(absent\)[\s\S]*true/);
  await result.getByTestId('impact-downstream-none').waitFor();
  await result.getByTestId('impact-tests-none').waitFor();

  // Nothing was saved or written: the stored transform is still V1's, the dataset still holds everyone.
  const stored = await hub.json<{ transform: unknown }>('/pipes/people-out/config');
  assert.deepEqual(stored.transform, V1.transform);
  assert.equal((await hub.json<{ count: number }>('/datasets/people-out')).count, N);
  await textMatches(page.getByTestId('config-dirty'), /unsaved changes/);

  await panel.getByTestId('impact-close').click();
  await panel.waitFor({ state: 'detached' });
});

test('a running impact can be cancelled from the panel', async () => {
  await page.getByTestId('config-impact').click();
  const panel = page.getByTestId('impact-panel');
  await panel.getByTestId('impact-cancel').click();
  await panel.getByTestId('impact-cancelled').waitFor();
  const job = await hub.json<{ status: string; result: unknown }>('/pipes/people-out/impact');
  assert.equal(job.status, 'cancelled');
  assert.equal(job.result, null);
  assert.equal(await page.getByTestId('config-impact').isEnabled(), true, 'a new impact can start');
});
