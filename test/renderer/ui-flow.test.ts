// The whole path of a pipe author, in Chromium against the real hub: create a pipe in the UI, shape its DTL in the
// live preview, save it, run the pump, see the sink dataset appear (pipe list and Output tab), page through the
// dataset, open an entity's history after a second run changed it, and come back to the pipe with Ctrl+K.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches, textEquals } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const pageErrors: string[] = [];
const N = 600;
const pid = (i: number): string => `p${String(i).padStart(4, '0')}`;

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  const people = Array.from({ length: N }, (_, i) => ({ _id: pid(i), name: `person ${i}`, city: i % 2 === 0 ? 'Oslo' : 'Bergen' }));
  await hub.json('/datasets/people/entities', { method: 'POST', json: people });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
  await page.getByTestId('new-pipe').waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const row = (id: string): Locator => page.locator(`[data-testid="pipe-row"][data-pipe="${id}"]`);

test('create a pipe, shape its DTL in the preview, run it, explore its output, and come back with Ctrl+K', async () => {
  // 1. A new dataset → dataset pipe from the dialog; the page opens on its Config tab.
  await page.getByTestId('new-pipe').click();
  await page.getByTestId('new-pipe-id').fill('people-loud');
  await page.getByTestId('new-pipe-source').fill('people');
  await page.getByTestId('new-pipe-create').click();
  await page.waitForURL(/#\/pipes\/people-loud\/config$/);
  await page.getByTestId('pipe-title').filter({ hasText: 'people-loud' }).waitFor();

  // 2. The preview runs the template (copy everything) on source entities; an edit changes the output live.
  await page.getByRole('tab', { name: 'Preview' }).click();
  assert.match(page.url(), /#\/pipes\/people-loud\/preview$/);
  const output = page.getByTestId('preview-output');
  await output.filter({ hasText: 'person 0' }).waitFor();
  assert.doesNotMatch((await output.textContent()) ?? '', /PERSON 0/);
  const loud = { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'name', ['upper', '_S.name']], ['add', 'greeting', ['concat', 'HELLO ', '_S.city']]] } };
  const transformEditor = page.getByTestId('preview-transform-editor');
  await transformEditor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(JSON.stringify(loud));
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
  await output.filter({ hasText: /PERSON 0/ }).waitFor();
  await textMatches(output, /HELLO Oslo/);
  assert.equal(await page.getByTestId('preview-dirty').textContent(), '● unsaved changes');
  await page.getByTestId('preview-save').click();
  await page.getByTestId('preview-status').filter({ hasText: /Saved at/ }).waitFor();
  const stored = await hub.json<{ transform: unknown }>('/pipes/people-loud/config');
  assert.deepEqual(stored.transform, loud, 'the edited transform is stored in the pipe');

  // 3. Run the pump from the Overview; the run ends with all entities processed.
  await page.getByRole('tab', { name: 'Overview' }).click();
  await page.getByTestId('pump-controls').locator('button[data-op="start"]:not([disabled])').click();
  await page.getByTestId('last-run').filter({ hasText: `completed: ${N} processed, ${N} changed` }).waitFor({ timeout: 20_000 });
  await page.locator('[data-testid="run-chart"][data-runs="1"]').waitFor();

  // 4. The sink dataset appears: the list shows the run's result, the Output tab its newest entities.
  await page.getByRole('button', { name: '← Pipes' }).click();
  await row('people-loud').getByTestId('pipe-last-run').filter({ hasText: 'ok' }).waitFor();
  await textEquals(row('people-loud').getByTestId('pipe-processed'), String(N));
  await page.screenshot({ path: join(shots, 'flow-pipe-list.png') });
  await row('people-loud').getByRole('button', { name: 'people-loud' }).click();
  await page.getByRole('tab', { name: 'Output' }).click();
  await page.getByTestId('sink-count').filter({ hasText: `${N} entities` }).waitFor();
  const newest = page.getByTestId('output-entities');
  await textMatches(newest, new RegExp(`PERSON ${N - 1}`), 'the newest entity comes first');

  // 5. From the Output tab to the dataset explorer; page through it with the keyboard.
  await page.getByTestId('open-sink-dataset').click();
  await page.waitForURL(/#\/datasets\/people-loud$/);
  const rows = page.getByTestId('entity-row');
  await rows.first().filter({ hasText: pid(0) }).waitFor();
  // The count is read after the first rows are drawn.
  await page.getByTestId('row-count').filter({ hasText: /600 entities/ }).waitFor();
  await page.getByTestId('entities').focus();
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  const selected = page.locator('[data-testid="entity-row"][aria-selected="true"]');
  const paged = Number((await selected.locator('.num').textContent())?.trim());
  assert.ok(paged > 20, `two pages down reach beyond the first rows (row ${paged})`);
  // Paging on reaches the last entity; the explorer reads further pages as the selection nears them.
  const until = Date.now() + 20_000;
  while (!((await selected.textContent()) ?? '').includes(pid(N - 1))) {
    assert.ok(Date.now() < until, `PageDown reaches ${pid(N - 1)}; the selection is at ${(await selected.textContent()) ?? ''}`);
    await page.keyboard.press('PageDown');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(Number((await selected.locator('.num').textContent())?.trim()), N, 'the last row is row 600');

  // 6. A change at the source and a second run (from the pipe page) give an entity a history with a diff.
  await hub.json('/datasets/people/entities', { method: 'POST', json: [{ _id: pid(7), name: 'person seven', city: 'Tromsø' }] });
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('pipe people-lo');
  await page.getByTestId('palette-input').press('Enter');
  await page.waitForURL(/#\/pipes\/people-loud$/);
  await page.getByTestId('pump-controls').locator('button[data-op="start"]:not([disabled])').click();
  await page.getByTestId('last-run').filter({ hasText: 'completed: 1 processed, 1 changed' }).waitFor({ timeout: 20_000 });
  await page.locator('[data-testid="run-chart"][data-runs="2"]').waitFor();
  await page.screenshot({ path: join(shots, 'flow-pipe-page.png'), fullPage: true });
  await page.getByTestId('run-chart').screenshot({ path: join(shots, 'flow-run-chart.png') });

  await page.getByRole('tab', { name: 'Output' }).click();
  await page.getByTestId('output-entities').filter({ hasText: /PERSON SEVEN/ }).waitFor();
  await page.getByTestId('open-sink-dataset').click();
  await page.getByTestId('search-id').fill(pid(7));
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByTestId('entity-json').filter({ hasText: /PERSON SEVEN/ }).waitFor();
  await page.getByTestId('versions').locator('tbody tr').nth(1).waitFor();
  // The history compares the latest version with the one before it, side by side.
  const diff = page.getByTestId('text-diff');
  const removed = (await diff.locator('td[data-op="-"]').allTextContents()).join('\n');
  const added = (await diff.locator('td[data-op="+"]').allTextContents()).join('\n');
  assert.match(removed, /^ {2}"name": "PERSON 7"$/m, `the old name is removed:\n${removed}`);
  assert.match(added, /^ {2}"name": "PERSON SEVEN"$/m, `the new name is added:\n${added}`);
  assert.match(added, /HELLO Tromsø/);
  await page.screenshot({ path: join(shots, 'flow-entity-history.png'), fullPage: true });

  // 7. Ctrl+K reaches the pipe again, on the tab named in the URL.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('pipe people-lo');
  await page.getByTestId('palette-input').press('Enter');
  await page.getByTestId('pipe-title').filter({ hasText: 'people-loud' }).waitFor();
  await page.getByRole('tab', { name: 'Execution log' }).click();
  await page.reload();
  await page.getByTestId('pump-log').filter({ hasText: 'pump-completed' }).waitFor();
  assert.equal(await page.getByRole('tab', { name: 'Execution log' }).getAttribute('aria-selected'), 'true', 'a reload keeps the tab');
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
});

test('the New pipe dialog refuses, as you type, ids the hub would refuse, and says why', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('new-pipe').click();
  const input = page.getByTestId('new-pipe-id');
  const problem = page.getByTestId('new-pipe-id-problem');
  const create = page.getByTestId('new-pipe-create');
  await input.fill('people/loud');
  await problem.filter({ hasText: /cannot hold “\/”.*address/ }).waitFor();
  assert.equal(await create.isDisabled(), true, 'Create is off while the id is refused');
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  // The hub refuses the same id: the dialog only says so earlier.
  const refused = await hub.fetch('/pipes', { method: 'POST', json: [{ _id: 'people/loud', type: 'pipe', source: { type: 'embedded', entities: [] } }] });
  assert.equal(refused.status, 400);
  await input.fill('a?b');
  await problem.filter({ hasText: /“\?”/ }).waitFor();
  await input.fill('people-loud');
  await problem.filter({ hasText: /“people-loud” already exists/ }).waitFor();
  assert.equal(await create.isDisabled(), true);
  await input.fill('people-quiet');
  await problem.waitFor({ state: 'hidden' });
  assert.equal(await create.isDisabled(), false);
  await page.getByTestId('new-pipe-dialog').getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('new-pipe-dialog').waitFor({ state: 'detached' });
  assert.equal((await hub.fetch('/pipes/people-quiet')).status, 404, 'nothing was created');
});

test('deleting a pipe from its page says its dataset is kept, and keeps it', async () => {
  const before = await hub.json<{ count: number }>('/datasets/people-loud');
  assert.ok(before.count > 0, 'the first test filled the sink');
  await page.goto(`${hub.url}/#/pipes/people-loud/overview`);
  await page.getByTestId('pipe-title').filter({ hasText: 'people-loud' }).waitFor();
  await page.getByTestId('run-state').waitFor();
  // Cancel keeps everything.
  await page.getByTestId('pipe-delete').click();
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.filter({ hasText: 'Delete the pipe people-loud?' }).waitFor();
  await textMatches(dialog, new RegExp(`Its dataset people-loud \\(${before.count.toLocaleString('en-US')} entities\\) is kept`));
  await page.getByTestId('confirm-cancel').click();
  assert.equal((await hub.fetch('/pipes/people-loud')).status, 200);

  await page.getByTestId('pipe-delete').click();
  await page.getByTestId('confirm-ok').click();
  await page.waitForURL(/#\/pipes$/);
  await page.getByTestId('toast').filter({ hasText: 'Pipe people-loud deleted. Its dataset people-loud is kept.' }).waitFor();
  assert.equal((await hub.fetch('/pipes/people-loud')).status, 404, 'the pipe is gone');
  assert.equal((await hub.json<{ count: number }>('/datasets/people-loud')).count, before.count, 'its dataset is kept, whole');
  await row('people-loud').waitFor({ state: 'detached' });
});
