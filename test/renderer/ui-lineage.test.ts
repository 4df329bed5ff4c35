// "Where from?" and "Where to?" (issue 36.5), in Chromium at 1440×900 on a workspace of the lineage fixture project
// (test/fixtures/projects/lineage): the pipes run, then the lineage of an entity is opened from the dataset explorer and from a pipe's Output tab. What each step should name is worked out by hand
// from the fixture's pipes (see the `_note` of each): crm-person/ann and hr-person/h-1 share an email and merge into
// global-person/ann; person-company copies name, renames email to contact and joins company c1; person-roles emits
// one child per role.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { pushEntities, runPump } from '../helpers/api.js';

const SHOTS = process.env['SCREENS_DIR'] ?? join(REPO, 'test-results', 'screenshots', 'lineage');
const PROJECT = join(REPO, 'test', 'fixtures', 'projects', 'lineage');
let hub: HubProcess;
let browser: Browser;
let page: Page;
const dir = tempDir('datahub-lineage-ui-');
const pageErrors: string[] = [];

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  cpSync(join(PROJECT, 'node'), join(dir, 'node'), { recursive: true });
  hub = await startHub({ args: ['--workspace', dir] });
  const input = JSON.parse(readFileSync(join(PROJECT, 'input.json'), 'utf8')) as Record<string, Record<string, unknown>[]>;
  for (const [dataset, entities] of Object.entries(input)) if (!dataset.startsWith('_')) await pushEntities(hub, dataset, entities);
  for (const id of ['global-person', 'person-company', 'person-roles']) {
    const r = await runPump<{ status: string }>(hub, id, 'start', 30_000);
    assert.equal(r.status, 'completed', id);
  }
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  removeDir(dir);
});

const view = (): Locator => page.getByTestId('lineage-view');
let loads = 0;
/** A fresh load of the workbench at this hash (a hash change alone would keep the page as it is). */
async function open(hash: string): Promise<void> {
  await page.goto(`${hub.url}/?load=${++loads}#/${hash}`);
}

const steps = (): Locator => view().getByTestId('lineage-step');

async function stepTexts(): Promise<string[]> {
  return (await steps().allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
}

test('Where from? in the explorer: the pipes and source entities, a property followed back to where it started', async () => {
  await open(`datasets/person-company/id:ann`);
  await page.getByTestId('entity-detail').waitFor();
  await page.getByTestId('where-from').click();
  await steps().nth(1).waitFor();
  const texts = await stepTexts();
  assert.deepEqual(await steps().evaluateAll((ls) => ls.map((l) => `${l.getAttribute('data-depth')} ${l.getAttribute('data-pipe')}`)), ['0 person-company', '1 global-person']);
  assert.match(texts[0]!, /made person-company \/ ann .*transformed .*processed: new in the source/);
  assert.match(texts[0]!, /from global-person \/ ann/);
  assert.match(texts[0]!, /joined company by .*company \/ c1/);
  assert.match(texts[1]!, /merged from crm-person \/ ann offset \d+, hr-person \/ h-1 offset \d+/);
  await textMatches(view().getByTestId('lineage-cut'), /Complete: nothing was cut/);

  // Follow contact: renamed from email in person-company; in the merge it came from crm-person/ann's email.
  await view().getByTestId('lineage-property').selectOption('contact');
  const followed = view().getByTestId('lineage-followed');
  await followed.filter({ hasText: 'started as' }).waitFor();
  assert.match((await followed.textContent())!.replace(/\s+/g, ' '), /contact ← set by rename in pipe person-company from email of global-person\/ann ← .* from email of crm-person\/ann/);
  assert.equal(await steps().nth(0).getAttribute('data-followed'), 'true');
  assert.match((await steps().nth(0).getByTestId('lineage-step-property').textContent())!.replace(/\s+/g, ' '), /contact: set by rename at \$\.transform\.rules\.default\[2\] from email of global-person\/ann/);
  await page.screenshot({ path: join(SHOTS, 'explorer-where-from.png') });

  // Each entity links to it in the explorer.
  await view().getByTestId('lineage-root').click();
  await page.waitForURL(/#\/datasets\/crm-person\/id%3Aann$|#\/datasets\/crm-person\/id:ann$/);
  await page.getByTestId('entity-detail').filter({ hasText: 'ann@example.org' }).waitFor();
  await page.getByTestId('entity-detail').getByRole('heading', { name: /^ann at offset \d+$/ }).waitFor();
});

test('Where to? from a merge member: every entity made from it, and which property its email became in each', async () => {
  await open(`datasets/crm-person/id:ann`);
  await page.getByTestId('entity-detail').waitFor();
  await page.getByTestId('where-to').click();
  await view().getByTestId('lineage-property').selectOption('email');
  await steps().nth(3).getByTestId('lineage-step-property').waitFor({ timeout: 15_000 });
  const texts = await stepTexts();
  assert.deepEqual(await steps().evaluateAll((ls) => ls.map((l) => `${l.getAttribute('data-depth')} ${l.getAttribute('data-pipe')}`)), [
    '0 global-person',
    '1 person-company',
    '2 person-roles',
    '2 person-roles',
  ]);
  assert.match(texts[0]!, /merged crm-person \/ ann .* and made global-person \/ ann/);
  assert.match(texts[0]!, /email became email here/);
  assert.match(texts[1]!, /made person-company \/ ann .*email became contact here/);
  assert.match(texts[2]!, /made person-roles \/ ann-admin .*email is not in it/);
  assert.match(texts[3]!, /person-roles \/ ann-dev/);
  await page.screenshot({ path: join(SHOTS, 'explorer-where-to.png') });
});

test('from the Output tab: Where from? for a row, the cut said in words, Where to? and a link to the explorer', async () => {
  await open(`pipes/person-company/output`);
  await page.locator('[data-testid="output-where-from"][data-id="ann"]').click();
  await steps().nth(1).waitFor();
  await view().getByTestId('lineage-depth').selectOption('1');
  await view().getByTestId('lineage-cut').filter({ hasText: 'Not complete' }).waitFor();
  assert.match((await view().getByTestId('lineage-cut').textContent())!.replace(/\s+/g, ' '), /the walk was cut: depth 1 reached: 1 entity not followed further \(global-person\/ann/);
  assert.equal(await steps().count(), 1);
  await page.screenshot({ path: join(SHOTS, 'output-where-from-cut.png') });

  await view().getByTestId('lineage-down').click();
  await view().locator('[data-testid="lineage-step"][data-pipe="person-roles"]').first().waitFor();
  assert.deepEqual((await view().getByTestId('lineage-entity').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim()), ['person-roles / ann-admin', 'person-roles / ann-dev']);
  await page.screenshot({ path: join(SHOTS, 'output-where-to.png') });
  await view().getByTestId('lineage-entity').nth(1).click();
  await page.waitForURL(/#\/datasets\/person-roles\//);
  await page.getByTestId('entity-detail').filter({ hasText: '"role": "dev"' }).waitFor();
  assert.deepEqual(pageErrors, []);
});
