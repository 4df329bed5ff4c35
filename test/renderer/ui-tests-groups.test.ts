// "Run tests" in the Tests view runs tests whose pipes share nothing apart, side by side, with the isolated-groups
// runner of `datahub test` (issue 35.5), and each test's row says which pipes it ran and how long each took.
// The project is our own: two closures with no pipe or dataset in common. Expected outputs worked out by hand from
// the DTL reference (datanav/docs hub/dtl: `copy`, `add`, `concat`, `upper`): a-label adds "item-" + _id, b-upper the
// upper-cased name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';

let hub: HubProcess;
let dir: string;
let browser: Browser;
const shots = join(REPO, 'test-results', 'screenshots');

const pipe = (id: string, source: unknown, rules: unknown[]): unknown => ({ _id: id, type: 'pipe', source, transform: { type: 'dtl', rules: { default: rules } } });

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = tempDir('tests-groups-');
  const files: Record<string, unknown> = {
    'pipes/a-seed.conf.json': pipe('a-seed', { type: 'embedded', entities: [{ _id: '1', n: 2 }, { _id: '2', n: 5 }] }, [['copy', '*']]),
    'pipes/a-label.conf.json': pipe('a-label', { type: 'dataset', dataset: 'a-seed' }, [['copy', '*'], ['add', 'label', ['concat', 'item-', '_S._id']]]),
    'pipes/b-seed.conf.json': pipe('b-seed', { type: 'embedded', entities: [{ _id: 'x', name: 'ann' }] }, [['copy', '*']]),
    'pipes/b-upper.conf.json': pipe('b-upper', { type: 'dataset', dataset: 'b-seed' }, [['copy', '*'], ['add', 'up', ['upper', '_S.name']]]),
    'expected/a-label.test.json': {},
    'expected/a-label.json': [{ _id: '1', n: 2, label: 'item-1' }, { _id: '2', n: 5, label: 'item-2' }],
    'expected/b-upper.test.json': {},
    'expected/b-upper.json': [{ _id: 'x', name: 'ann', up: 'ANN' }],
  };
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(join(dir, 'node', file, '..'), { recursive: true });
    writeFileSync(join(dir, 'node', file), `${JSON.stringify(value, null, 2)}\n`);
  }
  hub = await startHub({ args: ['--workspace', dir] });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  if (dir) removeDir(dir);
});

test('"Run tests" runs the two closures apart and shows per test the pipes it ran, each with its time', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signIn(page, hub);
  await page.goto(`${hub.url}/#/tests`);
  await page.getByTestId('run-tests').click();
  await page.getByTestId('test-results').waitFor({ timeout: 60_000 });
  await textMatches(page.getByTestId('tests-summary'), /2 passed, 0 failed/);
  await textMatches(page.getByTestId('test-groups'), /2 groups of tests with no pipe or dataset in common ran apart, side by side/);
  for (const [name, pipes] of [
    ['a-label', ['a-seed', 'a-label']],
    ['b-upper', ['b-seed', 'b-upper']],
  ] as const) {
    const row = page.locator(`[data-testid="test-result"][data-name="${name}"]`);
    assert.equal(await row.getAttribute('data-status'), 'passed');
    const shown = await row.getByTestId('test-pipe').evaluateAll((els) => els.map((e) => [e.getAttribute('data-pipe'), e.textContent ?? '']));
    assert.deepEqual(shown.map(([p]) => p).sort(), [...pipes].sort(), `${name} ran only the pipes of its own closure`);
    for (const [p, text] of shown) assert.match(text, new RegExp(`^${p} \\d+ ms$`));
  }
  await page.screenshot({ path: join(shots, 'tests-view-groups.png') });
  await page.close();
});
