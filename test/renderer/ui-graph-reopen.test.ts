// The flow graph when the app is opened again (issue 33): the generated 300-pipe project (test/helpers/big-project.ts)
// in Chromium at 1440×900. The first open lays the graph out (its connected parts in workers, each drawn as it comes)
// and keeps each part's layout; the app opened again draws the graph the moment Graph is clicked, with no "Laying
// out…" wait; a pipe changed meanwhile is laid out again (its part only) and the graph shows the change. Grouped by
// system, every system is a box of the pipes reading it and one of those writing to it, each chip at Fit showing the
// system's whole name, whether its pipes read or write, and how many (worked out here from the pipe files), every chip
// whole in the canvas and clear of the others, no box overlapping another node, and a box opened shows its pipes.
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
  /** The most nodes drawn in a frame while "Laying out…" still showed (the parts laid out so far), 0 if none. */
  drawnWhileLaying: number;
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
    let whileLaying = 0;
    while (performance.now() - t0 < 60000) {
      await new Promise((r) => requestAnimationFrame(r));
      look();
      const n = document.querySelectorAll('[data-testid="flow-node"]').length;
      if (first === null && n > 0) first = performance.now() - t0;
      if (document.querySelector('[data-testid="flow-laying"]')) whileLaying = Math.max(whileLaying, n);
      const flow = document.querySelector('[data-testid="flow-graph"]');
      if (n > 0 && flow && flow.getAttribute('data-drawn') === 'all' && !document.querySelector('[data-testid="flow-laying"]')) { drawn = performance.now() - t0; break; }
    }
    observer.disconnect();
    const laid = (document.querySelector('[data-testid="flow-graph"]').getAttribute('data-layout-laid') ?? '').split('/');
    return { first, drawn, sawLaying, whileLaying, nodes: document.querySelectorAll('[data-testid="flow-node"]').length, laid: Number(laid[0]), parts: Number(laid[1]) };
  })()`)) as { first: number | null; drawn: number | null; sawLaying: boolean; whileLaying: number; nodes: number; laid: number; parts: number };
  assert.ok(r.first !== null && r.drawn !== null, 'the graph was drawn');
  return { firstNodesMs: r.first, drawnMs: r.drawn, sawLaying: r.sawLaying, drawnWhileLaying: r.whileLaying, nodes: r.nodes, laid: r.laid, parts: r.parts };
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
  // The parts are drawn as they are laid out (smallest first), before the whole layout is done.
  assert.ok(firstOpen.drawnWhileLaying > 0 && firstOpen.drawnWhileLaying < firstOpen.nodes, `${firstOpen.drawnWhileLaying} of ${firstOpen.nodes} nodes drawn while the rest was laid out`);
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

test('grouped by system at Fit, every system is a box of the pipes reading it and one of those writing to it, none overlapping', async () => {
  // A pipe's system is the one its source names, else its sink's (renderer/src/lib/flow-model.ts). By system, the pipes
  // that read a dataset and write to the system fold into a box of their own, drawn where the flows end; those that
  // read the system into the system's box (renderer/src/lib/flow-groups.ts).
  const members = new Map<string, { reading: number; writing: number }>();
  for (const p of pipeFiles()) {
    const system = [p.source['system'], p.sink?.['system']].find((v): v is string => typeof v === 'string');
    if (!system) continue;
    const m = members.get(system) ?? { reading: 0, writing: 0 };
    if (p.source['type'] === 'dataset' || p.source['type'] === 'merge') m.writing++;
    else m.reading++;
    members.set(system, m);
  }
  // A system with one pipe folds nothing: that pipe stays a node of its own.
  const boxes = new Map<string, number>();
  for (const [system, m] of members) {
    if (m.reading + m.writing < 2) continue;
    if (m.reading > 0) boxes.set(`group:${system}`, m.reading);
    if (m.writing > 0) boxes.set(`group:${system} (written)`, m.writing);
  }
  assert.ok([...boxes.keys()].filter((k) => k.endsWith('(written)')).length > 10, 'systems both read and written');
  const page = await openApp();
  await clickGraph(page);
  await page.getByTestId('flow-group').selectOption('system');
  type Doc = { document: { querySelectorAll(s: string): { length: number }; querySelector(s: string): unknown } };
  await page.waitForFunction(
    (n) => {
      const doc = (globalThis as unknown as Doc).document;
      return doc.querySelectorAll('[data-testid="flow-node"][data-key^="group:"]').length === n && !doc.querySelector('[data-testid="flow-laying"]');
    },
    boxes.size,
    { timeout: 120_000 },
  );
  await page.getByTestId('flow-fit').click();
  const canvas = (await page.locator('[data-testid="flow-graph"] svg.canvas').boundingBox())!;
  const shown: { key: string; l: number; t: number; r: number; b: number }[] = [];
  for (const [key, n] of boxes) {
    const node = page.locator(`[data-testid="flow-node"][data-key="${key}"]`);
    const chip = node.locator('[data-testid="flow-group-chip"]');
    await chip.waitFor({ timeout: 10_000 });
    // What the chip shows: the system's whole name (a cut one tells no system from another), how many pipes, and
    // whether they read from the system or write to it; the title says so in words.
    const text = (await chip.textContent()) ?? '';
    const writes = key.endsWith(' (written)');
    const system = key.slice('group:'.length, writes ? -' (written)'.length : undefined);
    assert.ok(text.includes(system) && !text.includes('…'), `${key}'s chip shows the whole name ${system}: ${text}`);
    assert.match(text, new RegExp(`${writes ? 'writes' : 'reads'}\\b.*(?<!\\d)${n}(?!\\d)`), `${key}'s chip says its ${n} pipes ${writes ? 'write' : 'read'}: ${text}`);
    assert.doesNotMatch(text, writes ? /reads/ : /writes/);
    assert.match((await node.locator('title').first().textContent()) ?? '', new RegExp(`^pipes that ${writes ? 'write to' : 'read from'} ${system}:`));
    const box = (await chip.locator('rect').boundingBox())!;
    assert.ok(box.width >= 60 && box.height >= 16, `${key}'s chip readable: ${JSON.stringify(box)}`);
    assert.ok(box.x >= canvas.x && box.y >= canvas.y && box.x + box.width <= canvas.x + canvas.width && box.y + box.height <= canvas.y + canvas.height, `${key}'s chip whole in the canvas ${JSON.stringify(canvas)}: ${JSON.stringify(box)}`);
    shown.push({ key, l: box.x, t: box.y, r: box.x + box.width, b: box.y + box.height });
  }
  const covered = shown.flatMap((a, i) => shown.slice(i + 1).filter((b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b).map((b) => `${a.key} / ${b.key}`));
  assert.deepEqual(covered, [], 'no chip covers another');
  await page.screenshot({ path: join(SHOTS, 'graph-by-system-fit.png') });
  // Zoomed in on the column where the flows start: the boxes of the pipes reading each system, whole.
  const first = shown.filter((c) => !c.key.endsWith(' (written)')).sort((a, b) => a.l - b.l)[0]!;
  await page.mouse.move((first.l + first.r) / 2, canvas.y + canvas.height / 2);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -300);
  await page.screenshot({ path: join(SHOTS, 'graph-by-system-left.png') });
  // The boxes in the graph (zoomed in, where they are drawn as boxes, not chips): none overlaps another node.
  const zoomIn = page.getByRole('button', { name: 'Zoom in (+)' });
  while ((await page.getByTestId('flow-group-chip').count()) > 0) await zoomIn.click();
  const rects = await page.locator('[data-testid="flow-node"]').evaluateAll((els) =>
    els.map((e) => {
      const r = e.querySelector(':scope > rect')!.getBoundingClientRect();
      return { key: e.getAttribute('data-key') ?? '', l: r.left, t: r.top, r: r.right, b: r.bottom };
    }),
  );
  const overlaps: string[] = [];
  for (const a of rects.filter((x) => x.key.startsWith('group:')))
    for (const b of rects) if (a !== b && a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5) overlaps.push(`${a.key} / ${b.key}`);
  assert.deepEqual(overlaps, [], 'group boxes overlap nothing');
  // A box holds its members: opened, the box is gone and its pipes are drawn in its place.
  const [opened] = [...boxes].find(([k]) => k.endsWith('(written)'))!;
  const system = opened.slice('group:'.length, -' (written)'.length);
  await page.getByTestId('flow-fit').click();
  await page.locator(`[data-testid="flow-node"][data-key="${opened}"] [data-testid="flow-group-chip"]`).click();
  const writers = pipeFiles().filter((p) => p.sink?.['system'] === system && (p.source['type'] === 'dataset' || p.source['type'] === 'merge'));
  for (const p of writers) await page.locator(`[data-testid="flow-node"][data-key="pipe:${p._id}"]`).waitFor({ state: 'attached', timeout: 30_000 });
  assert.equal(await page.locator(`[data-testid="flow-node"][data-key^="group:${system}"]`).count(), 0, `both of ${system}'s boxes opened`);
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
