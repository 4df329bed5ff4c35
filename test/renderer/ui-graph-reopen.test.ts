// The flow graph when the app is opened again (issue 33): the generated 300-pipe project (test/helpers/big-project.ts)
// in Chromium at 1440×900. The first open lays the graph out (its connected parts in workers) and keeps each part's
// layout; the app opened again draws the graph the moment Graph is clicked, with no "Laying out…" wait; a pipe changed
// meanwhile is laid out again (its part only) and the graph shows the change. Grouped by system, every group's chip at
// Fit says how many pipes it holds, worked out here from the pipe files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { writeBigProject } from '../helpers/big-project.js';

const SHOTS = process.env['SCREENS_DIR'] ?? '/tmp/ui-shots';
let hub: HubProcess;
let browser: Browser;
let context: BrowserContext;
const dir = tempDir('datahub-graph-reopen-');

type PipeFile = { _id: string; source: Record<string, unknown>; sink?: Record<string, unknown> };
const pipeFiles = (): PipeFile[] => readdirSync(join(dir, 'node', 'pipes')).map((f) => JSON.parse(readFileSync(join(dir, 'node', 'pipes', f), 'utf8')) as PipeFile);

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  writeBigProject(dir);
  hub = await startHub({ args: ['--workspace', dir] });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await signIn(await context.newPage(), hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  removeDir(dir);
});

/** The app opened afresh in a new window of the same profile, on the Pipes list, its pipes shown. */
async function openApp(): Promise<Page> {
  for (const p of context.pages()) await p.close();
  const page = await context.newPage();
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipe-row').first().waitFor({ timeout: 30_000 });
  return page;
}

interface Opened {
  /** From the click until the first nodes were in the page, and until all were drawn, ms. */
  firstNodesMs: number;
  drawnMs: number;
  /** Whether "Laying out N nodes…" showed at any moment. */
  sawLaying: boolean;
  nodes: number;
  /** Parts laid out for this graph, and how many it has. */
  laid: number;
  parts: number;
}

/** Click Graph in the sidebar and watch the page until the graph is drawn whole. A string: the app's CSP forbids eval. */
async function clickGraph(page: Page): Promise<Opened> {
  const r = (await page.evaluate(`(async () => {
    let sawLaying = false;
    const look = () => { if (document.querySelector('[data-testid="flow-laying"]')) sawLaying = true; };
    const observer = new MutationObserver(look);
    observer.observe(document.body, { childList: true, subtree: true });
    const t0 = performance.now();
    document.querySelector('[data-testid="sidebar"] button[data-view="graph"]').click();
    let first = null;
    let drawn = null;
    while (performance.now() - t0 < 60000) {
      await new Promise((r) => requestAnimationFrame(r));
      look();
      const n = document.querySelectorAll('[data-testid="flow-node"]').length;
      if (first === null && n > 0) first = performance.now() - t0;
      const flow = document.querySelector('[data-testid="flow-graph"]');
      if (n > 0 && flow && flow.getAttribute('data-drawn') === 'all' && !document.querySelector('[data-testid="flow-laying"]')) { drawn = performance.now() - t0; break; }
    }
    observer.disconnect();
    const laid = (document.querySelector('[data-testid="flow-graph"]').getAttribute('data-layout-laid') ?? '').split('/');
    return { first, drawn, sawLaying, nodes: document.querySelectorAll('[data-testid="flow-node"]').length, laid: Number(laid[0]), parts: Number(laid[1]) };
  })()`)) as { first: number | null; drawn: number | null; sawLaying: boolean; nodes: number; laid: number; parts: number };
  assert.ok(r.first !== null && r.drawn !== null, 'the graph was drawn');
  return { firstNodesMs: r.first, drawnMs: r.drawn, sawLaying: r.sawLaying, nodes: r.nodes, laid: r.laid, parts: r.parts };
}

/** Wait until the layouts the page laid out are kept in the profile's storage (written a moment after). */
async function kept(page: Page): Promise<void> {
  type Win = { localStorage: { getItem(k: string): string | null } };
  await page.waitForFunction(() => ((globalThis as unknown as Win).localStorage.getItem('datahub.flow.parts') ?? '').length > 1000, undefined, { timeout: 10_000 });
}

let firstOpen: Opened;

test('opened again, the app draws the graph at once from the layouts its first open kept', async () => {
  let page = await openApp();
  firstOpen = await clickGraph(page);
  // The first open of this profile: every part laid out, by the workers, with "Laying out…" shown meanwhile.
  assert.ok(firstOpen.parts >= 1 && firstOpen.laid === firstOpen.parts, `first open laid out ${firstOpen.laid} of ${firstOpen.parts} parts`);
  assert.ok(firstOpen.sawLaying, 'the first open waited for a layout');
  assert.ok(firstOpen.nodes > 400, `${firstOpen.nodes} nodes`);
  const positions = await nodePositions(page);
  await kept(page);

  page = await openApp();
  const second = await clickGraph(page);
  console.log(`# first open: nodes after ${firstOpen.firstNodesMs.toFixed(0)} ms, all drawn ${firstOpen.drawnMs.toFixed(0)} ms; opened again: ${second.firstNodesMs.toFixed(0)} / ${second.drawnMs.toFixed(0)} ms`);
  assert.equal(second.sawLaying, false, 'no "Laying out…" wait when the app was opened again');
  assert.equal(second.laid, 0, `no part laid out again (${second.laid} of ${second.parts})`);
  assert.equal(second.parts, firstOpen.parts);
  assert.equal(second.nodes, firstOpen.nodes);
  // Sooner than the first open showed its first nodes (a layout's wait), in the same run on the same machine.
  assert.ok(second.firstNodesMs < firstOpen.firstNodesMs, `first nodes ${second.firstNodesMs.toFixed(0)} ms after the click, ${firstOpen.firstNodesMs.toFixed(0)} ms the first time`);
  // The same picture: every node where the first open placed it (kept to a tenth of a pixel).
  const now = await nodePositions(page);
  assert.deepEqual(Object.keys(now).sort(), Object.keys(positions).sort());
  const moved = Object.entries(now).filter(([k, [x, y]]) => Math.abs(x - positions[k]![0]) > 0.1 || Math.abs(y - positions[k]![1]) > 0.1);
  assert.deepEqual(moved, [], 'no node moved');
  await page.screenshot({ path: join(SHOTS, 'graph-reopened.png') });
});

/** Each drawn node's place in the graph (its transform: translate(x,y)), by key. */
async function nodePositions(page: Page): Promise<Record<string, [number, number]>> {
  const pairs = await page.getByTestId('flow-node').evaluateAll((els) => els.map((e) => [e.getAttribute('data-key') ?? '', e.getAttribute('transform') ?? ''] as const));
  return Object.fromEntries(pairs.map(([k, t]) => [k, (/translate\(([-\d.e]+),\s*([-\d.e]+)\)/.exec(t)?.slice(1).map(Number) ?? [NaN, NaN]) as [number, number]]));
}

test('grouped by system at Fit, every group shows how many pipes it holds', async () => {
  // A pipe's system is the one its source names, else its sink's (renderer/src/lib/flow-model.ts).
  const counts = new Map<string, number>();
  for (const p of pipeFiles()) {
    const system = [p.source['system'], p.sink?.['system']].find((v): v is string => typeof v === 'string');
    if (system) counts.set(system, (counts.get(system) ?? 0) + 1);
  }
  // A system with one pipe folds nothing: that pipe stays a node of its own (renderer/src/lib/flow-groups.ts).
  for (const [system, n] of counts) if (n < 2) counts.delete(system);
  assert.ok(counts.size > 10, `${counts.size} systems with pipes`);
  const page = await openApp();
  await clickGraph(page);
  await page.getByTestId('flow-group').selectOption('system');
  type Doc = { document: { querySelectorAll(s: string): { length: number }; querySelector(s: string): unknown } };
  await page.waitForFunction(
    (n) => {
      const doc = (globalThis as unknown as Doc).document;
      return doc.querySelectorAll('[data-testid="flow-node"][data-key^="group:"]').length === n && !doc.querySelector('[data-testid="flow-laying"]');
    },
    counts.size,
    { timeout: 120_000 },
  );
  await page.getByTestId('flow-fit').click();
  for (const [system, n] of counts) {
    const chip = page.locator(`[data-testid="flow-node"][data-key="group:${system}"] [data-testid="flow-group-chip"]`);
    await chip.waitFor({ timeout: 10_000 });
    const text = (await chip.textContent()) ?? '';
    assert.match(text, new RegExp(`(?<!\\d)${n} pipes|\\(${n}\\)`), `${system}'s chip says ${n} pipes: ${text}`);
    const box = await chip.locator('rect').boundingBox();
    assert.ok(box && box.width >= 60 && box.height >= 18 && box.x >= 0 && box.y >= 0 && box.x + box.width <= 1440 && box.y + box.height <= 900, `${system}'s chip readable and in view: ${JSON.stringify(box)}`);
  }
  await page.screenshot({ path: join(SHOTS, 'graph-by-system-fit.png') });
});

test('a pipe changed between two opens is laid out again (its part only) and the graph shows the change', async () => {
  assert.ok(firstOpen, 'the test before ran');
  // A pipe of a chain now reads a dataset nothing writes: a new node, and an edge from it to the pipe.
  const pipe = pipeFiles().find((p) => p.source['type'] === 'dataset' && typeof p.source['dataset'] === 'string')!;
  const before = String(pipe.source['dataset']);
  await hub.json(`/pipes/${encodeURIComponent(pipe._id)}/config`, { method: 'PUT', json: { ...pipe, source: { type: 'dataset', dataset: 'graphopen-new-source' } } });
  const page = await openApp();
  const opened = await clickGraph(page);
  const graph = page.getByTestId('flow-graph');
  assert.equal(await graph.locator('[data-testid="flow-node"][data-key="dataset:graphopen-new-source"]').count(), 1, 'the new source is drawn');
  assert.equal(await graph.locator(`[data-testid="flow-edge"][data-from="dataset:graphopen-new-source"][data-to="pipe:${pipe._id}"]`).count(), 1, 'and read by the pipe');
  assert.equal(await graph.locator(`[data-testid="flow-edge"][data-from="dataset:${before}"][data-to="pipe:${pipe._id}"]`).count(), 0, 'the old source no longer is');
  // The changed part (now maybe two) laid out again, every other part kept from the first open.
  assert.ok(opened.laid >= 1, `the changed part laid out again (${opened.laid} of ${opened.parts})`);
  assert.ok(opened.parts - opened.laid >= firstOpen.parts - 1, `the ${firstOpen.parts - 1} unchanged parts kept (${opened.laid} of ${opened.parts} laid out)`);
});
