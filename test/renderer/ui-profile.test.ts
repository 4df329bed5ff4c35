// The explorer's profile panel in Chromium against the real hub: a click on a top value filters the grid and the
// match count says as many as the profile did; the chip takes the filter away again; "entities without it"; where
// identifiers point; the pipes around the dataset; a comparison with an earlier offset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const N = 240;
const cityOf = (i: number): string | undefined => (i % 4 <= 1 ? 'Oslo' : i % 4 === 2 ? 'Bergen' : undefined);
/** Every tenth entity points at someone who does not exist. */
const friendOf = (i: number): string => (i % 10 === 0 ? `~:people:ghost${i}` : `~:people:p${(i + 1) % N}`);
let firstOffset = 0;
/** Entity numbers in offset order: 0, 1 and 2 are written again after the rest. */
const ORDER = [...Array.from({ length: N - 3 }, (_, k) => k + 3), 0, 1, 2];
const idsWhere = (keep: (i: number) => boolean, n: number): string[] => ORDER.filter(keep).slice(0, n).map((i) => `people:p${i}`);

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  const people = Array.from({ length: N }, (_, i) => {
    const city = cityOf(i);
    return { _id: `people:p${i}`, n: i, age: 20 + (i % 40), friend: friendOf(i), tags: i % 3 === 0 ? ['vip'] : [], ...(city ? { city } : {}) };
  });
  const written = await hub.json<{ maxUpdated: number }>('/datasets/people/entities', { method: 'POST', json: people });
  firstOffset = written.maxUpdated;
  // Later: a new property on a few entities, for the comparison with the first offset.
  await hub.json('/datasets/people/entities', { method: 'POST', json: [0, 1, 2].map((i) => ({ ...people[i], score: i })) });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'people', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'people' } },
      { _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'people' }, sink: { type: 'dataset', dataset: 'people-copy' }, pump: { mode: 'manual' } },
      {
        _id: 'joiner',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'other' },
        transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'friends', ['hops', { datasets: ['people p'], where: [['eq', '_S.friend', 'p._id']] }]]] } },
        sink: { type: 'dataset', dataset: 'joined' },
        pump: { mode: 'manual' },
      },
    ],
  });
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

async function waitFor(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.screenshot({ path: join(shots, `ui-profile-failure-${what.replace(/\W+/g, '-')}.png`) });
  assert.fail(`timed out waiting for ${what}`);
}

/** The _ids of the first rows in the DOM (whole: the grid shows a namespaced id by its short part, the whole on hover). */
function firstIds(n: number): Promise<string[]> {
  return page.getByTestId('entity-row').evaluateAll((els, k) => els.slice(0, k).map((e) => e.querySelector('[role=gridcell]')?.getAttribute('title')?.trim() ?? ''), n);
}

async function openPeople(): Promise<void> {
  await page.getByRole('button', { name: /^Datasets/ }).click();
  await page.getByTestId('datasets').getByRole('button', { name: 'people', exact: true }).click();
  await waitFor('the first rows', async () => (await firstIds(1))[0] === 'people:p3');
}

const text = async (testid: string): Promise<string> => ((await page.getByTestId(testid).textContent()) ?? '').replace(/\s+/g, ' ').trim();

test('a top value of the profile filters the grid, the count matches, and the chip removes the filter', async () => {
  await openPeople();
  await page.getByTestId('profile-toggle').click();
  await waitFor('the profile', async () => (await page.getByTestId('profile-summary').count()) > 0 && (await text('profile-summary')).startsWith(`${N} entities`));
  const city = page.locator('[data-testid="profile-property"][data-path="city"]');
  await city.locator('summary').click();
  const oslo = city.locator('[data-testid="top-value"][data-value="Oslo"]');
  const osloCount = Array.from({ length: N }, (_, i) => i).filter((i) => cityOf(i) === 'Oslo').length;
  await textMatches(oslo, new RegExp(`Oslo\\s*${osloCount}`));
  await oslo.click();
  await waitFor('the chip', async () => (await page.getByTestId('filter-chip').count()) === 1);
  assert.match(await text('filter-chip'), /city = Oslo/);
  await waitFor('the match count', async () => (await text('match-count')) === `${osloCount} of ${N} entities match`);
  const wanted = idsWhere((i) => cityOf(i) === 'Oslo', 6);
  await waitFor('only Oslo rows', async () => JSON.stringify(await firstIds(6)) === JSON.stringify(wanted));
  await page.screenshot({ path: join(shots, 'ui-profile-filtered.png') });

  await page.getByTestId('remove-filter').click();
  await waitFor('the chip to go', async () => (await page.getByTestId('filter-chip').count()) === 0);
  await waitFor('all rows again', async () => JSON.stringify(await firstIds(4)) === JSON.stringify(idsWhere(() => true, 4)));

  // Entities without a city.
  await city.getByTestId('without-it').click();
  const without = Array.from({ length: N }, (_, i) => i).filter((i) => cityOf(i) === undefined);
  await waitFor('the count without a city', async () => (await page.getByTestId('match-count').count()) > 0 && (await text('match-count')) === `${without.length} of ${N} entities match`);
  await waitFor('rows without a city', async () => (await firstIds(2)).join() === idsWhere((i) => cityOf(i) === undefined, 2).join());
  await page.getByTestId('remove-filter').click();
  await waitFor('the chip to go', async () => (await page.getByTestId('filter-chip').count()) === 0);
});

test('identifiers show where they point and how many resolve; the pipes around the dataset are jumps', async () => {
  const friend = page.locator('[data-testid="profile-property"][data-path="friend"]');
  await friend.locator('summary').click();
  await friend.getByTestId('check-relations').click();
  const resolving = Array.from({ length: N }, (_, i) => i).filter((i) => i % 10 !== 0).length;
  await waitFor('the relation', async () => (await friend.getByTestId('relation').count()) === 1);
  const rel = friend.getByTestId('relation');
  assert.equal(await rel.getAttribute('data-namespace'), 'people');
  assert.match(((await rel.textContent()) ?? '').replace(/\s+/g, ' '), new RegExp(`people → people · ${resolving} of ${N} resolve`));

  const pipes = page.getByTestId('dataset-pipes');
  assert.deepEqual(await pipes.getByTestId('writer').allTextContents(), ['people']);
  assert.deepEqual(await pipes.getByTestId('reader').allTextContents(), ['copy']);
  assert.deepEqual(await pipes.getByTestId('joiner').allTextContents(), ['joiner']);
  await pipes.getByTestId('reader').click();
  await waitFor('the pipe page', async () => page.url().endsWith('#/pipes/copy'));
});

test('compared with an earlier offset, the profile lists the property gained since', async () => {
  await page.goBack();
  await waitFor('the dataset again', async () => (await page.getByTestId('profile-toggle').count()) > 0);
  if ((await page.getByTestId('profile-panel').count()) === 0) await page.getByTestId('profile-toggle').click();
  await waitFor('the profile', async () => (await page.getByTestId('profile-summary').count()) > 0);
  await page.getByTestId('profile-compare-toggle').click();
  await page.getByTestId('compare-offset').fill(String(firstOffset));
  await page.getByTestId('profile-compare').getByRole('button', { name: 'Compare' }).click();
  await waitFor('the comparison', async () => (await page.getByTestId('compare-gained').count()) > 0);
  assert.deepEqual(await page.getByTestId('compare-gained').locator('li').evaluateAll((els) => els.map((e) => e.getAttribute('data-path'))), ['score']);
  assert.equal(await page.getByTestId('compare-lost').count(), 0);
  assert.match(await text('compare-summary'), new RegExp(`offset ${firstOffset}: ${N} entities → now ${N}`));
});
