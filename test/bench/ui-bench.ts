/*
 * Dataset explorer bench (part of `npm run bench`; alone: `node out/test/bench/ui-bench.js`). It runs on
 * UI_BENCH_ENTITIES entities, default 1,000,000 (independent of BENCH_ENTITIES, which sizes the hub bench).
 *
 * Starts a real hub, writes the entities into dataset "ui_bench" with POST /api/datasets/ui_bench/entities (batches of
 * 10,000, two in flight; a pipe declares an index on `_S.city` after the first batch), deletes 1% of them, signs
 * Chromium in and opens the dataset view on a fresh page load. It measures:
 *   - first rows: from navigation start to the first entity row in the DOM (target < 1 s);
 *   - longest task: the longest main-thread task (PerformanceObserver 'longtask', buffered) while the table is
 *     scrolled through a large range: PageDown presses, jumps of the scroll position to the end (each reads the next
 *     page by `since`), then continuous mouse-wheel scrolling down and up (target < 100 ms);
 *   - the same for three toggles on the whole dataset, each from the click until its rows are shown and through 40
 *     page reads of scrolling after it: Newest first, Show deleted off, and a subset by the index; and for Go to
 *     offset at 90% of the dataset (target < 100 ms).
 * Long tasks are wall-clock times, stretched when other processes share the CPUs; for that reason it also reports the
 * page's main-thread CPU time while scrolling (CDP Performance metrics in thread time) and the load average.
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium } from '../helpers/browser.js';

export const UI_TARGETS = { firstRowsMs: 1000, longTaskMs: 100 };

export interface UiToggleResult {
  label: string;
  /** From the click until the rows of the new view are shown. */
  rowsMs: number;
  /** The longest main-thread task from the click through scrolling 40 pages after it. */
  longestTaskMs: number;
  /** Long tasks (> 50 ms) in that time. */
  longTasks: number;
  pass: boolean;
}

export interface UiBenchResult {
  entities: number;
  deleted: number;
  loadSeconds: number;
  firstRowsMs: number;
  /** The longest task from navigation until the first rows (information). */
  longestLoadTaskMs: number;
  longestScrollTaskMs: number;
  scrollSeconds: number;
  /** The number of the last row reached while scrolling. */
  rowsScrolled: number;
  /** Long tasks (> 50 ms) while scrolling. */
  longScrollTasks: number;
  /** Main-thread CPU seconds of the page while scrolling (thread time: not stretched when other processes share the CPUs). */
  scrollCpuSeconds: number;
  /** One-minute load average before and after scrolling: long-task durations are wall-clock times. */
  loadAverage: [number, number];
  /** Entity rows in the DOM at the end: the table is virtualised. */
  domRows: number;
  toggles: UiToggleResult[];
  pass: { firstRows: boolean; longTask: boolean; toggles: boolean };
  problems: string[];
}

const BATCH = 10_000;
const DATASET = 'ui_bench';
/** Every DELETE_EVERY-th entity is deleted after loading (1%). */
const DELETE_EVERY = 100;

/** UI_BENCH_ENTITIES, default 1,000,000. */
export function uiBenchCount(): number {
  const raw = process.env['UI_BENCH_ENTITIES'];
  if (raw === undefined || raw === '') return 1_000_000;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`UI_BENCH_ENTITIES must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

const entityId = (i: number): string => 'e' + String(i).padStart(7, '0');
const CITIES = ['Oslo', 'Bergen', 'Trondheim', 'Stavanger', 'Tromsø', 'Bodø'];

function batch(start: number, size: number): string {
  const out = new Array<unknown>(size);
  for (let k = 0; k < size; k++) {
    const i = start + k;
    out[k] = {
      _id: entityId(i),
      name: `Person ${i}`,
      email: `person${i}@example.com`,
      age: 18 + (i % 70),
      city: CITIES[i % CITIES.length],
      tags: ['alpha', i % 2 === 0 ? 'beta' : 'gamma'],
      active: i % 3 !== 0,
    };
  }
  return JSON.stringify(out);
}

async function post(hub: HubProcess, body: string): Promise<void> {
  const res = await hub.fetch(`/datasets/${DATASET}/entities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!res.ok) throw new Error(`POST /datasets/${DATASET}/entities -> ${res.status}: ${(await res.text()).slice(0, 500)}`);
  await res.arrayBuffer();
}

/** Loads the entities, declares the subset index after the first batch, then deletes every DELETE_EVERY-th one. */
async function load(hub: HubProcess, count: number): Promise<number> {
  await post(hub, batch(0, Math.min(BATCH, count)));
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'ui-bench-feed', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: DATASET, indexes: ['_S.city'] } }],
  });
  let next = BATCH;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const start = next;
      next += BATCH;
      await post(hub, batch(start, Math.min(BATCH, count - start)));
    }
  };
  await Promise.all([lane(), lane()]);
  const doomed: { _id: string; _deleted: true }[] = [];
  for (let i = 0; i < count; i += DELETE_EVERY) doomed.push({ _id: entityId(i), _deleted: true });
  for (let k = 0; k < doomed.length; k += BATCH) await post(hub, JSON.stringify(doomed.slice(k, k + BATCH)));
  return doomed.length;
}

/** Installed before the page's own scripts: long tasks and the time the first entity row appears. */
const PROBE = `
  window.__bench = { longTasks: [], firstRows: -1 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  const look = () => {
    if (document.querySelector('[data-testid="entity-row"]')) window.__bench.firstRows = performance.now();
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
`;

interface Probe {
  longTasks: [number, number][];
  firstRows: number;
}

/**
 * Wait until a page expression is true, checked on every animation frame. The predicate goes over as a function
 * (called through the debugger protocol): a string predicate would be eval'ed by the page, which its CSP forbids.
 */
function until(page: Page, expression: string, timeout: number): Promise<unknown> {
  const predicate = new Function(`return (${expression});`) as () => unknown;
  return page.waitForFunction(predicate, undefined, { timeout, polling: 'raf' });
}

const probe = (page: Page): Promise<Probe> => page.evaluate('window.__bench') as Promise<Probe>;
const pageNow = (page: Page): Promise<number> => page.evaluate('performance.now()') as Promise<number>;

/** The highest row number in the DOM (rows are numbered through the whole dataset). */
const LAST_ROW = `Math.max(0, ...Array.from(document.querySelectorAll('[data-testid="entity-row"] .num'), (e) => Number(e.textContent)))`;

async function lastRowNumber(page: Page): Promise<number> {
  return (await page.evaluate(LAST_ROW)) as number;
}

/**
 * Jump the table's scroll position to its end `pages` times, each time waiting for the next page to arrive (the row
 * numbers grow); stops early at the end of the dataset.
 */
async function jumpPages(page: Page, pages: number): Promise<void> {
  const grid = page.getByTestId('entities');
  for (let i = 0; i < pages; i++) {
    const before = await lastRowNumber(page);
    await grid.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const grew = await until(page, `${LAST_ROW} > ${before}`, 10_000).then(
      () => true,
      () => false,
    );
    if (!grew) return;
  }
}

/**
 * A page signed in to the hub with a one-time login link (the one it printed, or a fresh one from POST
 * /api/login-url: a printed link expires), with the probe installed for every navigation.
 */
export async function signedInPage(browser: Browser, link: string, problems: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('crash', () => problems.push('ui bench: the page crashed'));
  page.on('pageerror', (e) => problems.push(`ui bench: page error: ${e.message}`));
  await page.goto(link);
  await page.goto('about:blank');
  await page.addInitScript(PROBE);
  return page;
}

/** Open a dataset in the explorer on a fresh page load: ms from navigation start to the first entity row. */
export async function firstRows(page: Page, hubUrl: string, dataset: string, timeoutMs = 30_000): Promise<{ firstRowsMs: number; longestLoadTaskMs: number }> {
  await page.goto(`${hubUrl}/#/datasets/${encodeURIComponent(dataset)}`);
  await page.getByTestId('entity-row').first().waitFor({ timeout: timeoutMs });
  await until(page, 'window.__bench.firstRows >= 0', timeoutMs);
  const loaded = await probe(page);
  return { firstRowsMs: loaded.firstRows, longestLoadTaskMs: Math.max(0, ...loaded.longTasks.map(([, d]) => d)) };
}

export async function runUiBench(count: number): Promise<UiBenchResult> {
  const problems: string[] = [];
  const hub = await startHub();
  const browser = await launchChromium().catch(async (e: unknown) => {
    await hub.stop();
    removeDir(hub.dataDir);
    throw e;
  });
  try {
    const t0 = performance.now();
    const deleted = await load(hub, count);
    const loadSeconds = (performance.now() - t0) / 1000;
    const info = await hub.json<{ count: number; 'deleted-count': number; 'max-updated': number }>(`/datasets/${DATASET}`);
    if (info.count + info['deleted-count'] !== count || info['deleted-count'] !== deleted) {
      problems.push(`ui bench: the dataset holds ${info.count} + ${info['deleted-count']} deleted entities, expected ${count - deleted} + ${deleted}`);
    }

    const link = /one-time link: (\S+)/.exec(hub.output());
    if (!link) throw new Error(`the hub printed no login link:\n${hub.output()}`);
    const page = await signedInPage(browser, link[1]!, problems);
    const { firstRowsMs, longestLoadTaskMs } = await firstRows(page, hub.url, DATASET);

    // Scroll through a large range.
    const grid = page.getByTestId('entities');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    const taskSeconds = async (): Promise<number> =>
      (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? NaN;
    const cpu0 = await taskSeconds();
    const load0 = loadavg()[0]!;
    const scrollStart = await pageNow(page);
    const s0 = performance.now();
    await grid.focus();
    for (let i = 0; i < 150; i++) await page.keyboard.press('PageDown');
    await jumpPages(page, 150);
    const box = await grid.boundingBox();
    if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 300; i++) {
      await page.mouse.wheel(0, 600);
      await page.waitForTimeout(16);
    }
    const rowsScrolled = await lastRowNumber(page);
    for (let i = 0; i < 200; i++) {
      await page.mouse.wheel(0, -900);
      await page.waitForTimeout(16);
    }
    await page.waitForTimeout(300);
    const scrollSeconds = (performance.now() - s0) / 1000;
    const scrollCpuSeconds = (await taskSeconds()) - cpu0;
    const load1 = loadavg()[0]!;
    const after = await probe(page);
    const scrollTasks = after.longTasks.filter(([start]) => start >= scrollStart).map(([, d]) => d);
    const longestScrollTaskMs = Math.max(0, ...scrollTasks);
    const domRows = await page.getByTestId('entity-row').count();
    if (rowsScrolled < Math.min(count, 20_000)) {
      const state = await grid.evaluate((el) => ({
        scrollTop: el.scrollTop,
        scrollHeight: el.scrollHeight,
        clientHeight: el.clientHeight,
        loading: el.ownerDocument.querySelector('[data-testid="loading"]') !== null,
        error: el.ownerDocument.querySelector('[data-testid="dataset-error"]')?.textContent ?? null,
      }));
      problems.push(`ui bench: scrolling reached row ${rowsScrolled} only; the table: ${JSON.stringify(state)}`);
    }

    // Toggles on the whole dataset, each from the click through scrolling after it.
    const toggles: UiToggleResult[] = [];
    const row = (n: number): string => `document.querySelectorAll('[data-testid="entity-row"]')[${n}]`;
    const settled = `!document.querySelector('[data-testid="loading"]')`;
    const toggle = async (label: string, act: () => Promise<void>, shown: string): Promise<void> => {
      const start = await pageNow(page);
      await act();
      await until(page, `${settled} && (${shown})`, 180_000);
      const rowsMs = (await pageNow(page)) - start;
      await grid.focus();
      await jumpPages(page, 40);
      await page.waitForTimeout(300);
      const tasks = (await probe(page)).longTasks.filter(([s]) => s >= start).map(([, d]) => d);
      const longestTaskMs = Math.max(0, ...tasks);
      toggles.push({ label, rowsMs, longestTaskMs, longTasks: tasks.length, pass: longestTaskMs < UI_TARGETS.longTaskMs });
    };
    const resetView = async (act: () => Promise<void>, shown: string): Promise<void> => {
      await act();
      await until(page, `${settled} && (${shown})`, 60_000);
    };
    const firstId = (id: string): string => `${row(0)}?.querySelector('[role=gridcell]')?.textContent === '${id}'`;
    const newest = page.getByTestId('newest-first');
    const showDeleted = page.getByLabel('Show deleted');
    await toggle('Newest first', () => newest.check(), `${row(0)}?.getAttribute('data-offset') === '${info['max-updated']}'`);
    // Entity 0 is deleted: its latest version (the deletion) is near the end, so the table starts at entity 1.
    await resetView(() => newest.uncheck(), firstId(entityId(1)));
    const counted = `document.querySelector('[data-testid="row-count"]')?.textContent ?? ''`;
    await toggle('Show deleted off', () => showDeleted.uncheck(), `${row(0)} && !(${counted}).includes('deleted')`);
    await resetView(() => showDeleted.check(), `${row(0)} && (${counted}).includes('deleted')`);
    await page.getByTestId('subset-value').fill(CITIES[0]!);
    const ids = `[0, 1].map((n) => document.querySelectorAll('[data-testid="entity-row"]')[n]?.querySelector('[role=gridcell]')?.textContent)`;
    await toggle(`Subset _S.city = ${CITIES[0]}`, () => page.getByTestId('subset-apply').click(), `${ids}.includes('${entityId(CITIES.length)}')`);
    await resetView(() => page.getByTestId('subset-clear').click(), firstId(entityId(1)));
    // Deep into the dataset without reading what lies before: the view starts at the offset and reads back as needed.
    const deep = Math.floor(count * 0.9);
    await page.getByTestId('offset-input').fill(String(deep));
    const selectedOffset = `Number(document.querySelector('[data-testid="entity-row"][aria-selected="true"]')?.getAttribute('data-offset') ?? -1)`;
    await toggle(`Go to offset ${deep.toLocaleString('en-US')}`, () => page.getByTestId('offset-input').press('Enter'), `${selectedOffset} >= ${deep}`);
    await resetView(() => page.getByRole('button', { name: 'Back to the start' }).click(), firstId(entityId(1)));
    // The profile panel beside the grid (a full profile of the dataset on the hub), then a click on the most frequent
    // city: the grid reads the whole dataset through the filter.
    await toggle('Profile panel open', () => page.getByTestId('profile-toggle').click(), `!!document.querySelector('[data-testid="profile-summary"]')`);
    const city = page.locator('[data-testid="profile-property"][data-path="city"]');
    await toggle(
      'Filter: top city',
      async () => {
        await city.locator('summary').click();
        await city.getByTestId('top-value').first().click();
      },
      `(document.querySelector('[data-testid="match-count"]')?.textContent ?? '').includes('match') && !!${row(0)}`,
    );
    return {
      entities: count,
      deleted,
      loadSeconds,
      firstRowsMs,
      longestLoadTaskMs,
      longestScrollTaskMs,
      scrollSeconds,
      rowsScrolled,
      longScrollTasks: scrollTasks.length,
      scrollCpuSeconds,
      loadAverage: [load0, load1],
      domRows,
      toggles,
      pass: {
        firstRows: firstRowsMs < UI_TARGETS.firstRowsMs,
        longTask: longestScrollTaskMs < UI_TARGETS.longTaskMs,
        toggles: toggles.every((t) => t.pass),
      },
      problems,
    };
  } finally {
    await browser.close();
    await hub.stop();
    removeDir(hub.dataDir);
  }
}

/** Rows for bench.ts's table: case, entities, seconds, entities/s, vs baseline, target, result. */
export function uiBenchRows(r: UiBenchResult): string[][] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  /** The long-task timeline lists only tasks over 50 ms: none means the longest was shorter. */
  const longest = (ms: number): string => (ms === 0 ? 'none > 50 ms' : `${fmt(ms)} ms`);
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
  return [
    ['UI: load dataset (POST entities)', fmt(r.entities), r.loadSeconds.toFixed(2), fmt(r.entities / r.loadSeconds), '-', '-', 'info'],
    ['UI: navigation to first rows', fmt(r.entities), (r.firstRowsMs / 1000).toFixed(2), '', '', `${fmt(r.firstRowsMs)} ms (< ${UI_TARGETS.firstRowsMs} ms)`, verdict(r.pass.firstRows)],
    ['UI: longest task while loading', '', '', '', '', longest(r.longestLoadTaskMs), 'info'],
    [
      `UI: longest task, scroll to row ${fmt(r.rowsScrolled)}`,
      fmt(r.rowsScrolled),
      r.scrollSeconds.toFixed(2),
      fmt(r.rowsScrolled / r.scrollSeconds),
      '',
      `${longest(r.longestScrollTaskMs)} (< ${UI_TARGETS.longTaskMs} ms)`,
      verdict(r.pass.longTask),
    ],
    [
      `UI: scrolling: ${r.longScrollTasks} tasks > 50 ms, page main-thread CPU`,
      '',
      r.scrollCpuSeconds.toFixed(2),
      '',
      '',
      `load avg ${r.loadAverage[0].toFixed(1)} -> ${r.loadAverage[1].toFixed(1)}`,
      'info',
    ],
    ['UI: entity rows in the DOM after scrolling', fmt(r.domRows), '', '', '', 'virtualised', 'info'],
    ...r.toggles.map((t) => [
      `UI: longest task, ${t.label} + 40 pages (${t.longTasks} > 50 ms)`,
      fmt(r.entities),
      (t.rowsMs / 1000).toFixed(2),
      '',
      '',
      `${longest(t.longestTaskMs)} (< ${UI_TARGETS.longTaskMs} ms)`,
      verdict(t.pass),
    ]),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runUiBench(uiBenchCount());
  for (const row of uiBenchRows(result)) console.log(row.join(' | '));
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}
