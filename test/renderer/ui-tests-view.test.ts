// Tests from the workbench: "Run" one test (only its pipe and the pipes upstream of it run, in a fresh temporary
// hub), "Accept as expected" for a failing one, and "Add test…" on a pipe, which writes expected/<name>.test.json and
// the expected file after the user has seen it. The expected entities below are worked out by hand from the fixture
// project `broken` (items: three embedded items, price made a decimal; items-out: label is the upper-cased name,
// in_stock whether stock > 0).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import type { WorkspaceTestReport } from '../../main/server/desktop/workspace-test-run.js';

let hub: HubProcess;
let dir: string;
const shots = join(REPO, 'test-results', 'screenshots');

async function desktop(path: string, json: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${hub.url}/desktop${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

const expected = (file: string): string => join(dir, 'node', 'expected', file);

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = tempDir('tests-view-');
  cpSync(join(REPO, 'test', 'fixtures', 'projects', 'broken'), dir, { recursive: true });
  hub = await startHub({ args: ['--workspace', dir] });
});

after(async () => {
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  if (dir) removeDir(dir);
});

describe('the API behind the buttons', () => {
  test('one test runs only its pipe and the pipes upstream of it', async () => {
    const r = await desktop('/workspace/test', { tests: ['items'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const report = r.body as WorkspaceTestReport;
    assert.deepEqual(report.tests.map((t) => `${t.name} ${t.status}`), ['items passed']);
    assert.deepEqual(report.pipes.map((p) => p.pipe), ['items'], 'items-out is downstream: it does not run');
  });

  test('bad requests are 4xx in words', async () => {
    const unknown = await desktop('/workspace/test', { tests: ['nope'] });
    assert.equal(unknown.status, 400);
    assert.match((unknown.body as { error: string }).error, /no test "nope"/);
    for (const [body, status, what] of [
      [{ name: '../escape', pipe: 'items' }, 400, /invalid test name/],
      [{ name: 'items', pipe: 'items' }, 409, /exists already/],
      [{ name: 'fresh', pipe: 'no-such-pipe' }, 400, /no pipe "no-such-pipe"/],
      [{ name: 'fresh', pipe: 'items', stage: 'middle' }, 400, /invalid request|stage/],
    ] as const) {
      const r = await desktop('/workspace/tests', body);
      assert.equal(r.status, status, JSON.stringify(r.body));
      assert.match((r.body as { error: string }).error, what);
    }
    assert.equal(existsSync(expected('fresh.test.json')), false, 'nothing written');
  });
});

describe('the Tests view and Add test', () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, hub);
  });
  after(async () => {
    await browser?.close();
  });

  test('"Run" checks one test and shows its per-entity diff; "Accept as expected" rewrites its file', async () => {
    await page.goto(`${hub.url}/#/tests`);
    const listed = page.locator('[data-testid="test-listed"][data-name="items-out"]');
    await listed.getByTestId('test-run-one').click();
    const row = page.locator('[data-testid="test-result"][data-name="items-out"]');
    await row.waitFor({ timeout: 30_000 });
    assert.equal(await row.getAttribute('data-status'), 'failed');
    assert.deepEqual(await row.getByTestId('entity-diff').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-id')} ${e.getAttribute('data-kind')}`)), [
      'i1 changed',
      'i2 unexpected',
      'i3 changed',
      'i4 missing',
    ]);
    // The other tests were not run.
    assert.deepEqual(await page.getByTestId('test-not-run').evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))), ['items', 'skipped']);
    await page.screenshot({ path: join(shots, 'tests-view-one.png') });
    const inView = await axeViolations(page);
    assert.deepEqual(inView, [], describeFindings(inView));

    await row.getByTestId('test-accept').click();
    await page.getByTestId('confirm-dialog').getByText(/Accept the output of pipe items-out/).waitFor();
    await page.getByTestId('confirm-ok').click();
    await page.locator('[data-testid="test-result"][data-name="items-out"][data-status="passed"]').waitFor({ timeout: 30_000 });
    await textMatches(row, /wrote expected\/items-out\.json/);
    const written = JSON.parse(readFileSync(expected('items-out.json'), 'utf8')) as { _id: string; label: string; in_stock: boolean }[];
    assert.deepEqual(written.map((e) => [e._id, e.label, e.in_stock]), [['i1', 'HAMMER', true], ['i2', 'SAW', false], ['i3', 'DRILL', true]]);
  });

  test('"Add test…" on a pipe shows the expected output, then writes both files; the new test passes', async () => {
    await page.goto(`${hub.url}/#/pipes/items-out`);
    await page.getByTestId('pipe-add-test').click();
    const dialog = page.getByTestId('add-test-dialog');
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('add-test-name').inputValue(), 'items-out');
    await dialog.getByTestId('add-test-name').fill('items-out-labels');
    await dialog.getByTestId('add-test-blacklist').fill('price');
    await dialog.getByTestId('add-test-preview-button').click();
    await dialog.getByTestId('add-test-preview').waitFor({ timeout: 30_000 });
    assert.equal(await dialog.getByTestId('add-test-count').textContent(), '3');
    assert.equal(existsSync(expected('items-out-labels.test.json')), false, 'nothing is written before the user confirms');
    await page.screenshot({ path: join(shots, 'add-test.png') });
    const inDialog = await axeViolations(page, '[data-testid="add-test-dialog"]');
    assert.deepEqual(inDialog, [], describeFindings(inDialog));
    await dialog.getByTestId('add-test-create').click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 }).catch(async () => dialog.waitFor({ state: 'hidden' }));
    await page.getByTestId('toast').filter({ hasText: /Test items-out-labels added/ }).waitFor();

    assert.deepEqual(JSON.parse(readFileSync(expected('items-out-labels.test.json'), 'utf8')), { pipe: 'items-out', blacklist: ['price'] });
    assert.deepEqual(JSON.parse(readFileSync(expected('items-out-labels.json'), 'utf8')), [
      { _id: 'i1', in_stock: true, label: 'HAMMER' },
      { _id: 'i2', in_stock: false, label: 'SAW' },
      { _id: 'i3', in_stock: true, label: 'DRILL' },
    ]);

    await page.goto(`${hub.url}/#/tests`);
    const listed = page.locator('[data-testid="test-listed"][data-name="items-out-labels"]');
    await listed.getByTestId('test-run-one').click();
    await page.locator('[data-testid="test-result"][data-name="items-out-labels"][data-status="passed"]').waitFor({ timeout: 30_000 });
  });
});
