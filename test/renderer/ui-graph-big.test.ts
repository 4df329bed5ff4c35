// The flow graph at real scale (issue 33.2): the generated 300-pipe project (test/helpers/big-project.ts) opened with
// `serve --workspace` in Chromium at 1440×900. Find zooms to a node and lights it and its direct neighbours (the
// rest dimmed); focus mode shows only the pipes and datasets up to N pipes up- and downstream (a pipe's Graph tab
// starts there with N = 2); grouping by name prefix folds a prefix's pipes into one box with a count that opens on
// click; labels stay readable at Fit. The expected neighbourhoods and groups are worked out here from the pipe files
// the project wrote, not from the hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { signedInPage, closeAll } from '../helpers/browser.js';
import { waitFor } from '../helpers/api.js';
import { writeBigProject } from '../helpers/big-project.js';

const SHOTS = process.env['SCREENS_DIR'] ?? '/tmp/ui-shots';
let hub: HubProcess;
let browser: Browser;
let page: Page;
const dir = tempDir('datahub-big-graph-');

/** Edges pipe ↔ dataset from the pipe files: a dataset source reads, a dataset sink (the default) writes. */
interface Edge {
  from: string;
  to: string;
}
let edges: Edge[] = [];
let pipeIds: string[] = [];

function edgesOfProject(): Edge[] {
  const out: Edge[] = [];
  const folder = join(dir, 'node', 'pipes');
  for (const file of readdirSync(folder)) {
    const pipe = JSON.parse(readFileSync(join(folder, file), 'utf8')) as { _id: string; source: Record<string, unknown>; sink?: Record<string, unknown> };
    const p = `pipe:${pipe._id}`;
    const source = pipe.source;
    if (source['type'] === 'dataset') out.push({ from: `dataset:${String(source['dataset'])}`, to: p });
    if (Array.isArray(source['datasets'])) for (const d of source['datasets'] as string[]) out.push({ from: `dataset:${d.split(' ')[0]!}`, to: p });
    // No sink means a dataset sink named after the pipe (datanav/docs hub/configuration/sinks, "dataset sink").
    const sink = pipe.sink ?? { type: 'dataset' };
    if (sink['type'] === 'dataset') out.push({ from: p, to: `dataset:${String(sink['dataset'] ?? pipe._id)}` });
  }
  return out;
}

/** What lies up to `n` pipes upstream and downstream of `key`: 2n edges each way, pipes and datasets alternating. */
function expectedNeighbourhood(key: string, n: number): Set<string> {
  const walk = (next: (k: string) => string[]): string[] => {
    let seen = new Set([key]);
    let frontier = [key];
    for (let i = 0; i < 2 * n; i++) {
      frontier = frontier.flatMap(next).filter((k) => !seen.has(k));
      seen = new Set([...seen, ...frontier]);
    }
    return [...seen];
  };
  return new Set([...walk((k) => edges.filter((e) => e.from === k).map((e) => e.to)), ...walk((k) => edges.filter((e) => e.to === k).map((e) => e.from))]);
}

const MERGED = 'hr-employee-project-allocation-merged-with-master-data';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  pipeIds = writeBigProject(dir).pipes;
  edges = edgesOfProject();
  hub = await startHub({ args: ['--workspace', dir] });
  ({ browser, page } = await signedInPage(hub));
});

after(async () => {
  await closeAll(browser, hub, dir);
});

const graph = (): ReturnType<Page['getByTestId']> => page.getByTestId('flow-graph');
const nodeKeys = async (): Promise<string[]> => graph().getByTestId('flow-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-key') ?? ''));
const transform = async (): Promise<string> => (await graph().getByTestId('flow-viewport').getAttribute('transform')) ?? '';

/** Wait until the graph is laid out and drawn for `count` nodes. */
async function drawn(count: number): Promise<void> {
  type Doc = { document: { querySelectorAll(s: string): { length: number }; querySelector(s: string): unknown } };
  await page.waitForFunction(
    (n) => {
      const doc = (globalThis as unknown as Doc).document;
      return doc.querySelectorAll('[data-testid="flow-node"]').length === n && !doc.querySelector('[data-testid="flow-laying"]');
    },
    count,
    { timeout: 30_000 },
  );
}

test('the whole project at Fit: every node drawn, laid out in workers, labels readable and apart', async () => {
  await page.goto(`${hub.url}/#/graph`);
  const all = new Set(edges.flatMap((e) => [e.from, e.to]));
  assert.equal(pipeIds.length, 300);
  await drawn(all.size);
  assert.deepEqual(new Set(await nodeKeys()), all);
  // How long the layout took, and by how many workers (0 would be the fallback on the UI thread).
  const ms = await graph().getAttribute('data-layout-ms');
  assert.ok(ms !== null && Number(ms) >= 0, `laid out (data-layout-ms=${ms})`);
  const workers = Number(await graph().getAttribute('data-layout-workers'));
  assert.ok(workers >= 1, `laid out off the UI thread, by ${workers} workers`);
  console.log(`# ${all.size} nodes laid out in ${ms} ms by ${workers} workers`);
  // At Fit the nodes' own text is left out; screen-size labels stand in, none smaller than 11 px, none overlapping.
  await page.getByTestId('flow-fit').click();
  type Rect = { left: number; right: number; top: number; bottom: number };
  type Styles = { getComputedStyle(el: unknown): { fontSize: string } };
  const boxes = await graph()
    .getByTestId('flow-label')
    .evaluateAll((els) => els.map((e) => ({ text: e.textContent, r: e.getBoundingClientRect().toJSON() as Rect, size: parseFloat((globalThis as unknown as Styles).getComputedStyle(e).fontSize) })));
  assert.ok(boxes.length >= 20, `labels shown at Fit: ${boxes.length}`);
  assert.ok(boxes.every((b) => b.size >= 11), 'labels at a readable size');
  const overlaps = boxes.filter((a, i) => boxes.some((b, j) => j > i && a.r.left < b.r.right - 1 && a.r.right > b.r.left + 1 && a.r.top < b.r.bottom - 1 && a.r.bottom > b.r.top + 1));
  assert.equal(overlaps.length, 0, `no label covers another: ${JSON.stringify(overlaps.slice(0, 3))}`);
  await page.screenshot({ path: join(SHOTS, 'graph-fit.png') });
});

test('Find zooms to the node and lights it and its direct neighbours, the rest dimmed', async () => {
  const before = await transform();
  const zoomBefore = Number(await graph().locator('svg.canvas').getAttribute('data-zoom'));
  await page.getByTestId('flow-find').fill(MERGED);
  await page.getByTestId('flow-find').press('Enter');
  const key = `pipe:${MERGED}`;
  await graph().locator(`[data-key="${key}"][data-highlight="found"]`).waitFor();
  await graph()
    .getByTestId('flow-viewport')
    .and(page.locator(`:not([transform="${before}"])`))
    .waitFor();
  const zoom = Number(await graph().locator('svg.canvas').getAttribute('data-zoom'));
  assert.ok(zoom >= 1 && zoom > zoomBefore, `zoomed in: ${zoomBefore} → ${zoom}`);
  const neighbours = new Set(edges.filter((e) => e.from === key || e.to === key).map((e) => (e.from === key ? e.to : e.from)));
  const lit = await graph().locator('[data-testid="flow-node"][data-highlight="neighbour"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));
  assert.deepEqual(new Set(lit), neighbours);
  const dimmed = await graph().locator('[data-testid="flow-node"][data-highlight="dimmed"]').count();
  assert.equal(dimmed, (await nodeKeys()).length - neighbours.size - 1, 'every other node dimmed');
  // The found node is on screen, with its own label at a readable size.
  const canvas = (await graph().locator('svg.canvas').boundingBox())!;
  const box = (await graph().locator(`[data-key="${key}"]`).boundingBox())!;
  assert.ok(box.x >= canvas.x && box.x + box.width <= canvas.x + canvas.width && box.y >= canvas.y && box.y + box.height <= canvas.y + canvas.height, 'in view');
  const text = (await graph().locator(`[data-key="${key}"] text`).first().boundingBox())!;
  assert.ok(text.height >= 12, `label height ${text.height}px`);
  await page.screenshot({ path: join(SHOTS, 'graph-find.png') });
});

test('focus mode shows only the N-step neighbourhood, and N can be changed', async () => {
  await page.getByTestId('flow-focus-found').click();
  const key = `pipe:${MERGED}`;
  const two = expectedNeighbourhood(key, 2);
  await drawn(two.size);
  assert.deepEqual(new Set(await nodeKeys()), two);
  await page.screenshot({ path: join(SHOTS, 'graph-focus.png') });
  await page.getByTestId('flow-depth').fill('1');
  const one = expectedNeighbourhood(key, 1);
  assert.ok(one.size < two.size);
  await drawn(one.size);
  assert.deepEqual(new Set(await nodeKeys()), one);
  await page.getByTestId('flow-show-all').click();
  await drawn(new Set(edges.flatMap((e) => [e.from, e.to])).size);
});

test("a pipe's Graph tab opens in focus mode, two steps around the pipe", async () => {
  const id = 'finance-salary-history-record-enriched';
  await page.goto(`${hub.url}/#/pipes/${id}/graph`);
  const expected = expectedNeighbourhood(`pipe:${id}`, 2);
  await drawn(expected.size);
  assert.deepEqual(new Set(await nodeKeys()), expected);
  assert.equal(await page.getByTestId('flow-depth').inputValue(), '2');
  // Fitted inside the window: the canvas ends above the window's bottom and holds every node.
  const canvas = (await graph().locator('svg.canvas').boundingBox())!;
  assert.ok(canvas.y + canvas.height <= 900, `canvas bottom ${canvas.y + canvas.height}`);
  for (const k of expected) {
    const b = (await graph().locator(`[data-key="${k}"]`).boundingBox())!;
    assert.ok(b.y >= canvas.y - 1 && b.y + b.height <= canvas.y + canvas.height + 1 && b.x >= canvas.x - 1 && b.x + b.width <= canvas.x + canvas.width + 1, `${k} inside the canvas`);
  }
  await page.screenshot({ path: join(SHOTS, 'graph-pipe-tab.png') });
});

test('grouping by name prefix folds hr-employee-* into one box with its count, which opens on click', async () => {
  await page.goto(`${hub.url}/#/graph`);
  await graph().getByTestId('flow-node').first().waitFor();
  await page.getByTestId('flow-group').selectOption('prefix-2');
  const box = graph().locator('[data-key="group:hr-employee-*"]');
  await box.waitFor();
  // The box holds the prefix's pipes, and the datasets only those pipes touch.
  const members = new Set(pipeIds.filter((p) => p.startsWith('hr-employee-')).map((p) => `pipe:${p}`));
  const datasets = [...new Set(edges.flatMap((e) => [e.from, e.to]).filter((k) => k.startsWith('dataset:')))];
  const inside = datasets.filter((d) => edges.filter((e) => e.from === d || e.to === d).every((e) => members.has(e.from === d ? e.to : e.from)));
  assert.equal(Number(await box.getAttribute('data-count')), members.size + inside.length);
  const keys = await nodeKeys();
  assert.ok(!keys.some((k) => members.has(k)), 'its pipes are folded');
  assert.ok(keys.length < 300, `far fewer nodes: ${keys.length}`);
  // At Fit the boxes are drawn at screen size with their name and count, and no other label lies over one.
  await page.getByTestId('flow-fit').click();
  await graph().locator('[data-key="group:hr-employee-*"] [data-testid="flow-group-chip"]').waitFor();
  type Rect = { left: number; right: number; top: number; bottom: number };
  const rects = (selector: string): Promise<{ text: string | null; r: Rect }[]> =>
    graph()
      .locator(selector)
      .evaluateAll((els) => els.map((e) => ({ text: e.textContent, r: e.getBoundingClientRect().toJSON() as Rect })));
  const chips = await rects('[data-testid="flow-group-chip"] rect');
  const groups = await graph().locator('[data-testid="flow-node"][data-key^="group:"]').count();
  assert.ok(chips.length >= groups * 0.8, `${chips.length} of ${groups} boxes shown as chips at Fit`);
  // A one-line chip is 18 px high, for a 12 px line of text (renderer/src/lib/flow-chip-forms.ts); a hair less in floats.
  const small = chips.filter((c) => !(c.r.bottom - c.r.top >= 17.9 && c.r.right - c.r.left >= 60));
  assert.deepEqual(small.map((c) => [c.text, c.r.right - c.r.left, c.r.bottom - c.r.top]), [], 'chips at a readable size');
  const chip = (await graph().locator('[data-key="group:hr-employee-*"] [data-testid="flow-group-chip"]').textContent()) ?? '';
  assert.match(chip, /hr-employee-\*/);
  assert.match(chip, new RegExp(`${members.size} pipes|\\(${members.size}\\)`), `its count: ${chip}`);
  const labels = await rects('[data-testid="flow-label"]');
  const covered = labels.filter((l) => chips.some((c) => l.r.left < c.r.right - 1 && l.r.right > c.r.left + 1 && l.r.top < c.r.bottom - 1 && l.r.bottom > c.r.top + 1));
  assert.deepEqual(covered.map((l) => l.text), [], 'no label over a box');
  await page.screenshot({ path: join(SHOTS, 'graph-grouped.png') });
  await box.click();
  await box.waitFor({ state: 'detached' });
  for (const k of members) await graph().locator(`[data-key="${k}"]`).waitFor();
  assert.equal(await graph().locator('[data-key="group:finance-salary-*"]').count(), 1, 'the other boxes stay folded');
  // By the first part of the name: one box per prefix, side by side in one row at Fit. Each is a chip with its whole
  // name, also on hover.
  await page.getByTestId('flow-group').selectOption('prefix-1');
  const prefixes = new Set(pipeIds.map((p) => p.split('-')[0]!));
  await page.getByTestId('flow-fit').click();
  await waitFor('a chip per prefix at Fit', async () => ((await graph().locator('[data-testid="flow-group-chip"]').count()) === prefixes.size ? true : undefined), 10_000);
  for (const prefix of prefixes) {
    const group = graph().locator(`[data-key="group:${prefix}-*"]`);
    assert.equal(await group.locator('[data-testid="flow-group-chip"]').count(), 1, `${prefix}-* as a chip`);
    assert.match((await group.locator('title').first().textContent()) ?? '', new RegExp(`${prefix}-\\*`));
  }
});
