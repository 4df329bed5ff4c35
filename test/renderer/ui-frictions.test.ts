// Small frictions on the main path (issue 33.6 and 33.7), in Chromium against the real hub on a generated 300-pipe
// workspace with a few pipes of our own: Trace from the Output tab traces the value clicked; the typo `cocnat` suggests
// `concat` and the pipe's problem table shows the whole message at 1440 px; a pipe whose file no longer parses says so
// (the hub runs its last good version) instead of "valid"; Rename shows no error before anything is typed; Sync compare
// gives the diff the panel's width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { writeBigProject } from '../helpers/big-project.js';
import { runPump } from '../helpers/api.js';
import { forgetConnections, stopAndRemove } from '../helpers/connections.js';

const SHOTS = '/work/screens/bench-ui';
const project = tempDir('datahub-ui-frictions-');
const syncFolder = tempDir('datahub-ui-frictions-sync-');
const pipesDir = join(project, 'node', 'pipes');
let hub: HubProcess;
let remote: HubProcess;
let browser: Browser;
let page: Page;

const writePipe = (config: Record<string, unknown>): void => writeFileSync(join(pipesDir, `${String(config['_id'])}.conf.json`), JSON.stringify({ type: 'pipe', ...config }, null, 2));

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  writeBigProject(project);
  // A dataset source adds no namespaces: the output keeps the names the transform gives.
  writePipe({
    _id: 'people-loud',
    source: { type: 'dataset', dataset: 'people' },
    transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'loud', ['upper', '_S.name']]] } },
    pump: { mode: 'manual' },
  });
  // A typo deep in a nested rule set: a long JSON path and a message with a suggestion.
  writePipe({
    _id: 'greeting-with-typo',
    source: { type: 'dataset', dataset: 'people' },
    transform: {
      type: 'dtl',
      rules: {
        default: [['copy', '*'], ['create', ['apply', 'employee-contact-person-address-formatting-for-the-letter-head-of-the-yearly-salary-statement-to-staff', '_S.addresses']]],
        'employee-contact-person-address-formatting-for-the-letter-head-of-the-yearly-salary-statement-to-staff': [['add', 'greeting-line-for-the-letter-head', ['cocnat', 'Dear ', '_S.name']]],
      },
    },
    pump: { mode: 'manual' },
  });
  writePipe({ _id: 'fragile', source: { type: 'embedded', entities: [{ _id: 'x' }] }, pump: { mode: 'manual' } });
  [hub, remote] = await Promise.all([startHub({ args: ['--workspace', project] }), startHub()]);
  await hub.json('/datasets/people/entities', { method: 'POST', json: [{ _id: 'ada', name: 'Ada Lovelace' }, { _id: 'alan', name: 'Alan Turing' }] });
  await runPump(hub, 'people-loud');
  await remote.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'welcome', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a', name: 'Ada' }] }, transform: { type: 'dtl', rules: { default: [['copy', '*']] } }, pump: { mode: 'manual' } }],
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await forgetConnections(hub);
  await stopAndRemove(hub, remote);
  removeDir(project);
  removeDir(syncFolder);
});

test('Trace from the Output tab traces the property whose value was clicked', async () => {
  await page.goto(`${hub.url}/#/pipes/people-loud/output`);
  // The value of "loud" for Ada (the project has namespaced identifiers, so the column may carry the pipe's namespace).
  const value = page.locator('[data-testid="trace-output-property"]').filter({ hasText: /^\s*ADA LOVELACE\s*$/ });
  await value.waitFor();
  const property = (await value.getAttribute('data-property')) ?? '';
  assert.match(property, /(^|:)loud$/);
  await value.click();
  const panel = page.getByTestId('trace-panel');
  await panel.waitFor();
  assert.equal((await panel.locator('.head').textContent())?.includes(`Property “${property}”`), true, (await panel.locator('.head').textContent()) ?? '');
  await textMatches(page.getByTestId('trace-events'), /set by add at \$\.transform\.rules\.default\[1\]\s*"ADA LOVELACE"/);
  await page.screenshot({ path: `${SHOTS}/trace-from-output.png` });

  // The row's own Trace button still traces _id.
  await page.goto(`${hub.url}/#/pipes/people-loud/output`);
  await page.locator('[data-testid="trace-output"]').last().click();
  await panel.waitFor();
  await textMatches(panel.locator('.head'), /Property “_id”/);
});

test('the typo cocnat suggests concat, and the problem table shows the whole message without a sideways scrollbar', async () => {
  await page.goto(`${hub.url}/#/pipes/greeting-with-typo`);
  const msg = page.getByTestId('config-error-msg').filter({ hasText: 'cocnat' });
  await msg.waitFor();
  await textMatches(msg, /unknown function "cocnat"; did you mean "concat"\?/);
  const fits = (await page.evaluate(`(() => {
    const content = document.querySelector('[data-testid="content"]');
    const cell = document.querySelector('[data-testid="config-error-msg"]').getBoundingClientRect();
    return { scrolls: content.scrollWidth > content.clientWidth, right: cell.right, width: window.innerWidth };
  })()`)) as { scrolls: boolean; right: number; width: number };
  assert.equal(fits.scrolls, false, 'the page does not scroll sideways');
  assert.ok(fits.right <= fits.width, `the message ends inside the window (${fits.right} of ${fits.width})`);
  await msg.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/problem-table.png` });
});

test('a pipe whose file no longer parses says so, not "valid", while the hub runs its last good version', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipe-search').fill('fragile');
  const state = page.locator('tr[data-pipe="fragile"]').getByTestId('pipe-config-state');
  await state.filter({ hasText: 'valid' }).waitFor();
  const file = join(pipesDir, 'fragile.conf.json');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"type": "pipe",', '"type": "pipe"'));
  await state.filter({ hasText: 'file error: runs last good' }).waitFor({ timeout: 15_000 });
  assert.match((await state.getAttribute('title')) ?? '', /pipes\/fragile\.conf\.json, line \d+: .*not valid JSON/);
  assert.equal((await hub.fetch('/pipes/fragile')).status, 200, 'the hub still has the pipe');
  await page.screenshot({ path: `${SHOTS}/file-error-list.png` });

  await page.goto(`${hub.url}/#/pipes/fragile`);
  const pill = page.getByTestId('pipe-file-problem');
  await pill.filter({ hasText: 'pipes/fragile.conf.json' }).waitFor();
  await textMatches(pill, /has an error: the hub runs the last good version/);
  await page.screenshot({ path: `${SHOTS}/file-error-pipe.png` });
});

test('the Rename dialog shows no error before anything is typed; a taken id is said once typed', async () => {
  await page.goto(`${hub.url}/#/pipes/people-loud`);
  await page.getByTestId('pipe-rename').click();
  const dialog = page.getByTestId('pipe-copy-dialog');
  await dialog.getByTestId('pipe-copy-effects').waitFor();
  assert.equal(await dialog.getByTestId('pipe-copy-problem').isVisible(), false, 'no error before typing');
  assert.equal(await dialog.getByTestId('pipe-copy-id').getAttribute('aria-invalid'), 'false');
  await page.screenshot({ path: `${SHOTS}/rename-dialog.png` });
  await dialog.getByTestId('pipe-copy-id').fill('fragile');
  await dialog.getByTestId('pipe-copy-problem').filter({ hasText: 'A pipe “fragile” already exists' }).waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

test('Sync compare gives the diff the width of the panel: two wide columns, not two narrow ones', async () => {
  await page.goto(`${hub.url}/#/remote`);
  const connections = page.getByTestId('instance-connections');
  await connections.getByLabel('Instance name').fill('Staging');
  await connections.getByLabel('Instance API address').fill(remote.api);
  await connections.getByLabel('Instance token').fill(remote.token);
  await connections.getByRole('button', { name: 'Add instance' }).click();
  await connections.getByTestId('instance-row').filter({ hasText: 'Staging' }).waitFor();

  const sync = page.getByTestId('sync-panel');
  await sync.getByTestId('sync-folder').fill(syncFolder);
  await sync.getByTestId('sync-download').click();
  await sync.getByTestId('sync-confirm-yes').click();
  await sync.getByTestId('sync-in-step').waitFor();
  const file = join(syncFolder, 'node', 'pipes', 'welcome.conf.json');
  const pipe = JSON.parse(readFileSync(file, 'utf8')) as { pump: Record<string, unknown> };
  pipe.pump['schedule_interval'] = 3600;
  writeFileSync(file, JSON.stringify(pipe, null, 2));
  await sync.getByTestId('sync-compare').click();
  const diff = sync.getByTestId('sync-diff');
  await diff.filter({ hasText: 'schedule_interval' }).waitFor();

  const widths = (await page.evaluate(`(() => {
    const panel = document.querySelector('[data-testid="sync-panel"]').getBoundingClientRect().width;
    const box = document.querySelector('[data-testid="sync-diff"]').getBoundingClientRect().width;
    const cols = [...document.querySelectorAll('[data-testid="sync-diff"] .rows pre')].slice(0, 2).map((p) => p.getBoundingClientRect().width);
    return { panel, box, cols };
  })()`)) as { panel: number; box: number; cols: number[] };
  assert.ok(widths.box >= widths.panel * 0.95, `the diff takes the panel's width (${widths.box} of ${widths.panel})`);
  for (const w of widths.cols) assert.ok(w >= 380, `each side is wide enough to read (${w} px)`);
  await diff.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}/sync-compare.png` });
});
