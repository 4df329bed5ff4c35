// Publishing, discovering and enriching in Chromium with two real hubs. On hub A: "Publish a dataset" creates the
// receiver pipe with registry metadata and posts a picked file, the same file dropped again (no changes, and the
// UI says so), a file that is not JSON (an error in words) and a CSV with one change. On hub B: A is added as a
// registry, searched, filtered by keyword and previewed; "Enrich" creates the chain, opens the DTL pipe, runs the
// chain, and the enriched dataset is published in B's registry and marked in B's lists.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import { runPump } from '../helpers/api.js';
import { forgetConnections, stopAndRemove } from '../helpers/connections.js';

type Json = Record<string, unknown>;

let a: HubProcess;
let b: HubProcess;
let browser: Browser;
let pageA: Page;
let pageB: Page;
const shots = join(REPO, 'test-results', 'screenshots');

const TOWNS = [
  { _id: 'oslo', name: 'Oslo', people: 709000 },
  { _id: 'bergen', name: 'Bergen', people: 291000 },
  { _id: 'tromso', name: 'Tromsø', people: 78000 },
];
const TOWNS_JSON = JSON.stringify(TOWNS);
// The same towns as JSON lines, with Bergen grown: one change.
const TOWNS_JSONL = TOWNS.map((t) => JSON.stringify(t.name === 'Bergen' ? { ...t, people: 292000 } : t)).join('\n');

before(async () => {
  mkdirSync(shots, { recursive: true });
  [a, b] = await Promise.all([startHub(), startHub()]);
  browser = await launchChromium();
  pageA = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(pageA, a);
  pageB = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(pageB, b);
});

after(async () => {
  await browser?.close();
  await forgetConnections(b);
  await stopAndRemove(a, b);
});

async function result(p: Page, pattern: RegExp): Promise<string> {
  const status = p.getByTestId('publish-result');
  await status.filter({ hasText: pattern }).waitFor({ timeout: 10_000 }).catch(() => undefined);
  const text = (await status.textContent()) ?? '';
  assert.match(text, pattern);
  return text;
}

test('publish: the receiver pipe with registry metadata, a picked file, the same file dropped again, a bad file', async () => {
  const p = pageA;
  await p.goto(`${a.url}/#/registry`);
  await p.getByRole('heading', { name: 'Registry', level: 1 }).waitFor();
  await p.getByTestId('publish-open').click();
  await p.getByTestId('publish-pipe-id').fill('towns');
  await p.getByTestId('publish-name').fill('Towns of Norway');
  await p.getByTestId('publish-description').fill('Towns and how many live there');
  await p.getByTestId('publish-keywords').fill('places, towns');
  await p.getByTestId('publish-license').fill('CC-BY-4.0');
  await p.getByTestId('publish-create').click();
  const url = await p.getByTestId('publish-receiver-url').inputValue();
  assert.equal(url, `${a.url}/api/receivers/towns/entities`);
  await textMatches(p.getByTestId('publish-curl'), new RegExp(`curl -X POST .*--data-binary @entities\\.json "${url.replace(/[.]/g, '\\.')}"`));

  const pipe = await a.json<{ source: Json; sink: Json; metadata: Json }>('/pipes/towns/config');
  assert.deepEqual(pipe.source, { type: 'http_endpoint' });
  assert.deepEqual(pipe.sink, { type: 'dataset', dataset: 'towns' });
  assert.deepEqual(pipe.metadata, { registry: { name: 'Towns of Norway', description: 'Towns and how many live there', keywords: ['places', 'towns'], license: 'CC-BY-4.0' } });

  // A picked file.
  await p.getByTestId('publish-file').setInputFiles({ name: 'towns.json', mimeType: 'application/json', buffer: Buffer.from(TOWNS_JSON) });
  await result(p, /Posted 3 entities from towns\.json \(JSON array\): 3 new or changed/);
  assert.equal((await a.json<Json[]>('/datasets/towns/entities?history=false')).length, 3);

  // The same file, dropped: nothing changes, and the dialog says so.
  const drop = async (name: string, text: string, type: string): Promise<void> => {
    const transfer = await p.evaluateHandle(
      ([fileName, content, mime]) => {
        const g = globalThis as unknown as {
          DataTransfer: new () => { items: { add(file: unknown): void } };
          File: new (parts: string[], name: string, options: { type: string }) => unknown;
        };
        const dt = new g.DataTransfer();
        dt.items.add(new g.File([content], fileName, { type: mime }));
        return dt;
      },
      [name, text, type] as const,
    );
    await p.getByTestId('publish-drop').dispatchEvent('drop', { dataTransfer: transfer });
  };
  await drop('towns.json', TOWNS_JSON, 'application/json');
  await result(p, /Posted 3 entities from towns\.json \(JSON array\): no changes/);
  await p.screenshot({ path: join(shots, 'registry-publish.png') });
  const findings = await axeViolations(p);
  assert.equal(findings.length, 0, `the publish dialog's receiver step: ${describeFindings(findings)}`);
  const versions = await a.json<Json[]>('/datasets/towns/entities');
  assert.equal(versions.length, 3, 'posting the same entities again stored no new version');

  // Not JSON, JSON lines or CSV: said in words, nothing posted.
  await drop('notes.txt', 'hello there: this is not data', 'text/plain');
  await result(p, /notes\.txt was not posted: notes\.txt is not JSON, JSON lines or CSV/);
  await drop('broken.json', '[{"_id": "a"}, {"name": "no id"}]', 'application/json');
  await result(p, /broken\.json was not posted: Entity 2 has no "_id"/);

  // JSON lines with one town changed.
  await drop('towns.jsonl', TOWNS_JSONL, 'application/x-ndjson');
  await result(p, /Posted 3 entities from towns\.jsonl \(JSON lines\): 1 new or changed, 2 unchanged/);
  const bergen = (await a.json<Json[]>('/datasets/towns/entities?history=false')).find((e) => e['_id'] === 'bergen');
  assert.equal(bergen?.['people'], 292000);

  // A CSV with its own ids adds a fourth town.
  await drop('more.csv', '_id,name\r\nalta,"Alta, Finnmark"\r\n', 'text/csv');
  await result(p, /Posted 1 entity from more\.csv \(CSV\): 1 new or changed/);
  const alta = (await a.json<Json[]>('/datasets/towns/entities?history=false')).find((e) => e['_id'] === 'alta');
  assert.equal(alta?.['name'], 'Alta, Finnmark');

  await p.getByTestId('publish-done').click();
  await p.getByTestId('registry-row').filter({ hasText: 'Towns of Norway' }).waitFor();

  // The pipes list marks the publishing pipe; with publish_all, every pipe whose dataset the registry then lists.
  await a.json('/pipes', { method: 'POST', json: [{ _id: 'copy', type: 'pipe', source: { type: 'dataset', dataset: 'towns' }, pump: { mode: 'manual' } }] });
  await runPump(a, 'copy');
  const marked = async (): Promise<string[]> => {
    await p.goto(`${a.url}/#/pipes`);
    await p.reload();
    await p.locator('tr[data-pipe="copy"]').waitFor();
    return p.locator('tr[data-pipe]:has([data-testid="published-marker"])').evaluateAll((rows) => rows.map((r) => (r as unknown as { getAttribute(n: string): string | null }).getAttribute('data-pipe') ?? ''));
  };
  assert.deepEqual(await marked(), ['towns']);
  await a.json('/metadata', { method: 'PUT', json: { registry: { publish_all: true } } });
  assert.deepEqual((await marked()).sort(), ['copy', 'towns']);
  await a.json('/metadata', { method: 'PUT', json: {} });
});

test('discover: B adds A as a registry, searches, filters by keyword and previews the first entities', async () => {
  const p = pageB;
  await p.goto(`${b.url}/#/registry`);
  await p.getByTestId('registry-add-url').fill(a.url);
  await p.getByTestId('registry-add-label').fill('Hub A');
  await p.getByTestId('registry-add-submit').click();
  // Not shared and no token: refused in words.
  await p.getByTestId('registry-add-error').filter({ hasText: /token/ }).waitFor();
  await p.getByTestId('registry-add-token').fill(a.token);
  await p.getByTestId('registry-add-submit').click();
  await p.getByTestId('registry-source').filter({ hasText: 'Hub A' }).waitFor();
  await p.getByTestId('registry-row').filter({ hasText: 'Towns of Norway' }).waitFor();

  await p.getByTestId('registry-search').fill('nothing like this');
  await p.getByTestId('registry-count').filter({ hasText: /^\s*0 of 0 published datasets/ }).waitFor();
  await p.getByTestId('registry-search').fill('how many');
  await p.getByTestId('registry-count').filter({ hasText: /^\s*1 of 1 published datasets/ }).waitFor();
  await p.getByTestId('registry-keyword').filter({ hasText: 'places' }).click();
  assert.equal(await p.getByTestId('registry-row').count(), 1);
  await p.getByTestId('registry-row').filter({ hasText: 'Towns of Norway' }).click();
  await p.getByTestId('registry-entry-title').filter({ hasText: 'Towns of Norway' }).waitFor();
  assert.equal(await p.getByTestId('registry-entry-license').textContent(), 'CC-BY-4.0');
  await p.getByTestId('registry-preview').getByTestId('entity-row').first().waitFor();
  assert.equal(await p.getByTestId('registry-preview').getByTestId('entity-row').count(), 4);
  const text = (await p.getByTestId('registry-preview').textContent()) ?? '';
  for (const name of ['Oslo', 'Bergen', 'Tromsø', 'Alta, Finnmark']) assert.ok(text.includes(name), `the preview shows ${name}`);

  await p.screenshot({ path: join(shots, 'registry-entry.png'), fullPage: true });

  // A download through the host: the browser's download manager gets the CSV.
  const [download] = await Promise.all([p.waitForEvent('download'), p.getByTestId('download-csv').click()]);
  const file = await download.createReadStream();
  let csv = '';
  for await (const chunk of file) csv += (chunk as Buffer).toString('utf8');
  assert.match(csv.split('\r\n')[0] ?? '', /^_id,name,people$/);
  assert.ok(csv.includes('"Alta, Finnmark"'), csv);
  await p.getByTestId('download-status').filter({ hasText: /Downloaded towns\.csv/ }).waitFor();
});

test('enrich: the three components are created, the DTL pipe opens, the chain runs and the result is published', async () => {
  const p = pageB;
  await p.getByTestId('registry-enrich').click();
  await p.getByTestId('enrich-pipe-id').fill('towns-plus');
  await p.getByTestId('enrich-keywords').fill('towns, enriched');
  await p.getByTestId('enrich-create').click();
  await p.waitForURL(/#\/pipes\/towns-plus\/config$/);
  await p.getByTestId('toast').filter({ hasText: /The chain ran/ }).waitFor({ timeout: 20_000 });

  const out = await b.json<Json[]>('/datasets/towns-plus/entities?history=false&deleted=false');
  assert.deepEqual(out.map((e) => e['_id']).sort(), ['alta', 'bergen', 'oslo', 'tromso']);
  const page = await (await fetch(`${b.url}/registry/entries`, { headers: { authorization: `Bearer ${b.token}` } })).json() as { entries: Json[] };
  assert.deepEqual(page.entries.map((e) => [e['dataset_id'], e['name'], e['license'], e['keywords']]), [['towns-plus', 'Towns of Norway (enriched)', 'CC-BY-4.0', ['towns', 'enriched']]]);

  // The lists mark what is published.
  await p.goto(`${b.url}/#/datasets`);
  await p.getByTestId('published-marker').first().waitFor();
  const marked = await p.getByTestId('published-marker').evaluateAll((els) => els.map((e) => (e as unknown as { closest(s: string): { getAttribute(n: string): string | null } | null }).closest('[data-dataset]')?.getAttribute('data-dataset') ?? null));
  assert.deepEqual(marked, ['towns-plus']);
  await p.goto(`${b.url}/#/pipes`);
  await p.getByTestId('published-marker').first().waitFor();
  const pipes = await p.getByTestId('published-marker').evaluateAll((els) => els.map((e) => (e as unknown as { closest(s: string): { getAttribute(n: string): string | null } | null }).closest('[data-pipe]')?.getAttribute('data-pipe') ?? null));
  assert.deepEqual(pipes, ['towns-plus']);
});
