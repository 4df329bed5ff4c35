// Review and accept in the Tests view, in Chromium, on test/helpers/review-project.ts (one failing test): the diff
// per entity (missing, unexpected, changed with the path of each changed property, nested ones too); accepting one
// property, then one entity; ignoring a property from now on; each checked on disk byte for byte (one file changed,
// the rest of its text as the user wrote it). Then "re-run affected tests on save": saving a pipe re-runs its tests
// and those downstream, and the view says which and why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { textMatches, signedInPage, closeAll } from '../helpers/browser.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import { PEOPLE_EXPECTED, PEOPLE_SPEC, writeReviewProject } from '../helpers/review-project.js';

let hub: HubProcess;
let dir: string;
let browser: Browser;
let page: Page;
const shots = [join(REPO, 'test-results', 'screenshots'), '/work/screens/tests-view'];
const file = (name: string): string => readFileSync(join(dir, 'node', 'expected', name), 'utf8');

async function shot(name: string): Promise<void> {
  for (const d of shots) {
    try {
      mkdirSync(d, { recursive: true });
      await page.screenshot({ path: join(d, name) });
    } catch {
      // /work/screens is where the UI is looked at on the build machine; elsewhere test-results is enough.
    }
  }
}

/** The text `after` is `before` with one piece of text put in: that piece (else it fails). */
function insertion(before: string, after: string): string {
  let p = 0;
  while (p < before.length && before[p] === after[p]) p++;
  let s = 0;
  while (s < before.length - p && before[before.length - 1 - s] === after[after.length - 1 - s]) s++;
  assert.equal(p + s, before.length, 'everything that was there is still there, in place');
  return after.slice(p, after.length - s);
}

before(async () => {
  dir = tempDir('ui-tests-review-');
  writeReviewProject(dir);
  hub = await startHub({ args: ['--workspace', dir] });
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub);
  if (dir) removeDir(dir);
});

const people = (): ReturnType<Page['locator']> => page.locator('[data-testid="test-result"][data-name="people"]');
const paths = (id: string): Promise<string[]> =>
  people().locator(`[data-testid="entity-diff"][data-id="${id}"] [data-testid="property-diff"]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-path') ?? ''));

async function notice(what: RegExp): Promise<void> {
  await page.getByTestId('tests-notice').filter({ hasText: what }).waitFor({ timeout: 30_000 });
}

test('a failing test shows its diff per entity, with the path of each changed property', async () => {
  await page.goto(`${hub.url}/#/tests`);
  await page.getByTestId('run-tests').click();
  await page.locator('[data-testid="test-result"][data-name="people"][data-status="failed"]').waitFor({ timeout: 60_000 });
  assert.deepEqual(await people().getByTestId('entity-diff').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-id')} ${e.getAttribute('data-kind')}`)), [
    'p2 changed',
    'p3 unexpected',
    'p4 missing',
  ]);
  assert.deepEqual(await paths('p2'), ['address.zip', 'age', 'name']);
  const zip = people().locator('[data-testid="property-diff"][data-path="address.zip"]');
  await textMatches(zip, /address\.zip\s*"0151"\s*"0150"/);
  assert.equal(await zip.locator('.parent').textContent(), 'address.', 'a nested property shows its parent');
  await textMatches(people().getByTestId('diff-counts'), /1 missing · 1 unexpected · 1 changed/);
  await shot('tests-view-diff.png');
  const found = await axeViolations(page);
  assert.deepEqual(found, [], describeFindings(found));
});

test('accepting one property writes that value only; the file keeps its layout', async () => {
  await people().locator('[data-testid="property-diff"][data-path="age"]').getByTestId('accept-property').click();
  await notice(/Accepted property age of entity p2 into expected\/people\.json/);
  assert.equal(file('people.json'), PEOPLE_EXPECTED.replace('"age": 41', '"age": 40'));
  assert.deepEqual(await paths('p2'), ['address.zip', 'name']);
});

test('accepting one entity adds it where its id sorts; nothing else of the file changes', async () => {
  const before = file('people.json');
  await people().locator('[data-testid="entity-diff"][data-id="p3"]').getByTestId('accept-entity').click();
  await notice(/Accepted entity p3 into expected\/people\.json/);
  const after = file('people.json');
  const added = insertion(before, after);
  assert.match(added, /"name": "CY"/);
  for (const line of after.split('\n').filter((l) => l.trim() !== '')) assert.match(line, /^( {4})*\S/, `four-space indents: ${JSON.stringify(line)}`);
  const entities = JSON.parse(after) as { _id: string }[];
  assert.deepEqual(entities.map((e) => e._id), ['p1', 'p2', 'p3', 'p4']);
  // Hand-worked from the source entity: copy _id, name upper-cased, age and address as they are.
  assert.deepEqual(entities[2], { _id: 'p3', address: { city: 'paris', zip: '75001' }, age: 22, name: 'CY' });
  assert.deepEqual(await people().getByTestId('entity-diff').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), ['p2', 'p4']);
});

test('ignoring a property writes it to the blacklist of the .test.json, keeping its layout', async () => {
  const expectedBefore = file('people.json');
  await people().locator('[data-testid="property-diff"][data-path="address.zip"]').getByTestId('ignore-property').click();
  await page.getByTestId('confirm-dialog').getByText(/Ignore address\.zip in people from now on/).waitFor();
  await page.getByTestId('confirm-ok').click();
  await notice(/Ignoring address\.zip from now on: "address\.zip" added to the blacklist of expected\/people\.test\.json/);
  const spec = file('people.test.json');
  assert.ok(spec.startsWith(PEOPLE_SPEC.replace('"people.json"\n}\n', '"people.json",\n    "blacklist": ')), `kept as written, the new key last: ${JSON.stringify(spec)}`);
  assert.deepEqual(JSON.parse(spec), { pipe: 'people', file: 'people.json', blacklist: ['address.zip'] });
  assert.equal(file('people.json'), expectedBefore, 'the expected file is untouched');
  assert.deepEqual(await paths('p2'), ['name'], 'address.zip is no longer compared');
  await shot('tests-view-after-accepts.png');
});

test('with "re-run affected tests on save" on, a saved pipe re-runs its tests and those downstream, and the view says why', async () => {
  // The box is checked at once; the hub learns it with the PUT: save only after the hub answered it.
  const enabled = page.waitForResponse((r) => r.url().endsWith('/workspace/test/loop') && r.request().method() === 'PUT');
  await page.getByTestId('rerun-on-save').check();
  assert.equal((await enabled).status(), 200);
  // The workbench saves a pipe with this call (its editor's Save).
  const config = await hub.json<Record<string, unknown>>('/pipes/people/config');
  const saved = await hub.fetch('/pipes/people/config', { method: 'PUT', json: { ...config, description: 'saved from the workbench' } });
  assert.equal(saved.status, 200, await saved.text());
  const run = page.locator('[data-testid="loop-run"][data-status="done"]');
  await run.waitFor({ timeout: 60_000 });
  await textMatches(run, /Re-ran after saving\s+pipes\/people\.conf\.json:\s+2 affected tests/);
  const listed = await run.getByTestId('loop-test').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-name')} ${e.getAttribute('data-status')}`));
  assert.deepEqual(listed.sort(), ['people failed', 'people-adults passed'], 'places is not affected');
  await textMatches(run.locator('[data-name="people-adults"]'), /downstream of pipe people changed/);
  await shot('tests-view-rerun-on-save.png');
});
