// Namespaced data reads naturally (issue 33.3), in Chromium at 1440×900 on the generated 300-pipe project: the
// dataset grid groups its columns under their namespace with short names (the whole name on hover, and in raw and
// JSON mode), shows transit values typed (`~f129.90` as 129.90, `~t2020-06-08T00:00:00Z` as 2020-06-08, `~:ns:id` as a
// link that opens the entity it names), with the raw form one toggle away; the profile groups its properties too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startHub, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { textEquals, signedInPage, closeAll } from '../helpers/browser.js';
import { writeBigProject, type BigProject } from '../helpers/big-project.js';

const SHOTS = '/tmp/ui-shots';
let hub: HubProcess;
let browser: Browser;
let page: Page;
let project: BigProject;
const dir = tempDir('datahub-ns-');
const REF_DATASET = 'timesheet-cost-center-assignment';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  project = writeBigProject(dir);
  hub = await startHub({ args: ['--workspace', dir] });
  // A run by hand while the schedules are paused fills the pipe's dataset.
  await hub.json(`/pipes/${project.typedPipe}/pump`, { method: 'POST', json: { operation: 'start' } });
  for (let i = 0; i < 100 && (await hub.json<{ runs: number }>(`/pipes/${project.typedPipe}/pump`)).runs < 1; i++) await new Promise((r) => setTimeout(r, 100));
  // The entities the references name.
  await hub.json(`/datasets/${REF_DATASET}/entities`, { method: 'POST', json: [10, 11, 12].map((n) => ({ _id: `${REF_DATASET}:CC-${n}`, [`${REF_DATASET}:name`]: `Cost center ${n}` })) });
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub, dir);
});

test('the grid: columns under their namespace with short names, typed values, the raw form one toggle away', async () => {
  const ns = project.typedPipe;
  await page.goto(`${hub.url}/#/datasets/${ns}`);
  await page.getByTestId('entity-row').first().waitFor();
  const group = page.getByTestId('namespace-group').filter({ hasText: ns });
  await group.waitFor();
  const header = page.locator(`[role="columnheader"][data-column="${ns}:hourly_rate"]`);
  await textEquals(header, 'hourly_rate');
  assert.equal(await header.getAttribute('title'), `${ns}:hourly_rate`);
  // Every short name whole in its heading: a column is as wide as its name needs (issue 33: `cost_center_refere…`).
  const cutHeadings = await page
    .locator('[role="columnheader"][data-column]')
    .evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent?.trim()));
  assert.deepEqual(cutHeadings, [], 'no column name cut');
  // Columns as wide as their names and values need, not more: the grid fits a 1440 px window without scrolling
  // sideways, and no value is cut (issue 33).
  // The grid's frame (it scrolls sideways) holds the rows' box, which holds the scrolling rows.
  const sideways = await page.getByTestId('entities').evaluate((el) => {
    const frame = el.parentElement!.parentElement!;
    return frame.scrollWidth > frame.clientWidth + 1 ? frame.scrollWidth - frame.clientWidth : 0;
  });
  assert.equal(sideways, 0, `the grid scrolls sideways by ${sideways} px`);
  const cutCells = await page
    .getByTestId('entity-row')
    .first()
    .locator('[role="gridcell"]')
    .evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent?.trim()));
  assert.deepEqual(cutCells, [], 'no value cut');

  const row = page.getByTestId('entity-row').first();
  const cells = async (): Promise<string[]> => (await row.locator('[role="gridcell"]').allTextContents()).map((t) => t.trim());
  const typed = await cells();
  assert.ok(typed.includes('129.90'), `a decimal shows as a number: ${typed.join(' | ')}`);
  assert.ok(typed.includes('2020-06-08'), `a datetime at midnight shows as its date: ${typed.join(' | ')}`);
  const ref = row.getByTestId('entity-ref');
  await textEquals(ref, 'CC-10', 'a reference by its short id');
  assert.match((await ref.locator('xpath=..').getAttribute('title')) ?? '', new RegExp(`~:${REF_DATASET}:CC-10`));
  // _id values too: the part after the namespace, the whole on hover.
  const id = row.locator('[role="gridcell"]').first();
  await textEquals(id, 'E1000');
  assert.equal(await id.getAttribute('title'), `${ns}:E1000`);
  await page.screenshot({ path: `${SHOTS}/dataset-namespaced.png` });

  await page.getByTestId('raw-values').check();
  const rawCells = await cells();
  assert.ok(rawCells.includes('~f129.90') && rawCells.includes('~t2020-06-08T00:00:00Z') && rawCells.includes(`~:${REF_DATASET}:CC-10`), rawCells.join(' | '));
  await textEquals(header, `${ns}:hourly_rate`, 'raw: the whole name');
  assert.equal(await page.getByTestId('namespace-row').count(), 0);
  await page.screenshot({ path: `${SHOTS}/dataset-namespaced-raw.png` });
  await page.getByTestId('raw-values').uncheck();
  await group.waitFor();
});

test('the profile groups its properties by namespace, short names with the whole on hover', async () => {
  await page.getByTestId('profile-toggle').click();
  await page.getByTestId('profile-namespace').filter({ hasText: project.typedPipe }).waitFor();
  const prop = page.locator(`[data-testid="profile-property"][data-path="${project.typedPipe}:hourly_rate"] code.path`);
  await textEquals(prop, 'hourly_rate');
  assert.equal(await prop.getAttribute('title'), `${project.typedPipe}:hourly_rate`);
  await page.screenshot({ path: `${SHOTS}/dataset-namespaced-profile.png` });
  await page.getByTestId('profile-toggle').click();
});

test('a reference opens the entity it names', async () => {
  await page.getByTestId('entity-row').first().getByTestId('entity-ref').click();
  await page.waitForURL(new RegExp(`#/datasets/${REF_DATASET}/`));
  await page.getByText(`Cost center 10`).first().waitFor();
});
