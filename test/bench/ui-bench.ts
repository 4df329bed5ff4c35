/*
 * Dataset explorer bench (part of `npm run bench`; alone: `node out/test/bench/ui-bench.js`, BENCH_ENTITIES
 * entities, default 1,000,000 when run alone).
 *
 * Starts a real hub, writes the entities into dataset "ui_bench" with POST /api/datasets/ui_bench/entities (batches of
 * 10,000, two in flight), signs Chromium in and opens the dataset view on a fresh page load. It measures:
 *   - first rows: from navigation start to the first entity row in the DOM (target < 1 s);
 *   - longest task: the longest main-thread task (PerformanceObserver 'longtask', buffered) while the table is
 *     scrolled through a large range: PageDown presses, jumps of the scroll position to the end (each reads the next
 *     page by `since`), then continuous mouse-wheel scrolling down and up (target < 100 ms).
 * Long tasks are wall-clock times, stretched when other processes share the CPUs; for that reason it also reports the
 * page's main-thread CPU time while scrolling (CDP Performance metrics in thread time) and the load average.
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium } from '../helpers/browser.js';

export const UI_TARGETS = { firstRowsMs: 1000, longTaskMs: 100 };

export interface UiBenchResult {
  entities: number;
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
  pass: { firstRows: boolean; longTask: boolean };
  problems: string[];
}

const BATCH = 10_000;
const DATASET = 'ui_bench';
const CITIES = ['Oslo', 'Bergen', 'Trondheim', 'Stavanger', 'Tromsø', 'Bodø'];

function batch(start: number, size: number): string {
  const out = new Array<unknown>(size);
  for (let k = 0; k < size; k++) {
    const i = start + k;
    out[k] = {
      _id: 'e' + String(i).padStart(7, '0'),
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

async function load(hub: HubProcess, count: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const start = next;
      next += BATCH;
      const res = await hub.fetch(`/datasets/${DATASET}/entities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: batch(start, Math.min(BATCH, count - start)),
      });
      if (!res.ok) throw new Error(`POST /datasets/${DATASET}/entities -> ${res.status}: ${(await res.text()).slice(0, 500)}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all([lane(), lane()]);
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

const probe = (page: Page): Promise<Probe> => page.evaluate('window.__bench') as Promise<Probe>;
const pageNow = (page: Page): Promise<number> => page.evaluate('performance.now()') as Promise<number>;

/** The highest row number in the DOM (rows are numbered through the whole dataset). */
const LAST_ROW = `Math.max(0, ...Array.from(document.querySelectorAll('[data-testid="entity-row"] .num'), (e) => Number(e.textContent)))`;

async function lastRowNumber(page: Page): Promise<number> {
  return (await page.evaluate(LAST_ROW)) as number;
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
    await load(hub, count);
    const loadSeconds = (performance.now() - t0) / 1000;
    const info = await hub.json<{ count: number }>(`/datasets/${DATASET}`);
    if (info.count !== count) problems.push(`ui bench: the dataset holds ${info.count} entities, expected ${count}`);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const link = /one-time link: (\S+)/.exec(hub.output());
    if (!link) throw new Error(`the hub printed no login link:\n${hub.output()}`);
    await page.goto(link[1]!);
    await page.goto('about:blank');
    await page.addInitScript(PROBE);
    await page.goto(`${hub.url}/#/datasets/${DATASET}`);
    await page.getByTestId('entity-row').first().waitFor({ timeout: 30_000 });
    await page.waitForFunction('window.__bench.firstRows >= 0');
    const loaded = await probe(page);
    const firstRowsMs = loaded.firstRows;
    const longestLoadTaskMs = Math.max(0, ...loaded.longTasks.map(([, d]) => d));

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
    for (let i = 0; i < 150; i++) {
      const before = await lastRowNumber(page);
      await grid.evaluate((el) => (el.scrollTop = el.scrollHeight));
      // Wait for the next page to arrive (the row numbers grow) before the next jump.
      await page.waitForFunction(`${LAST_ROW} > ${before}`, undefined, { timeout: 10_000, polling: 'raf' }).catch(() => undefined);
    }
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
    if (rowsScrolled < Math.min(count, 20_000)) problems.push(`ui bench: scrolling reached row ${rowsScrolled} only`);
    return {
      entities: count,
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
      pass: { firstRows: firstRowsMs < UI_TARGETS.firstRowsMs, longTask: longestScrollTaskMs < UI_TARGETS.longTaskMs },
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
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
  return [
    ['UI: load dataset (POST entities)', fmt(r.entities), r.loadSeconds.toFixed(2), fmt(r.entities / r.loadSeconds), '-', '-', 'info'],
    ['UI: navigation to first rows', fmt(r.entities), (r.firstRowsMs / 1000).toFixed(2), '', '', `${fmt(r.firstRowsMs)} ms (< ${UI_TARGETS.firstRowsMs} ms)`, verdict(r.pass.firstRows)],
    ['UI: longest task while loading', '', '', '', '', `${fmt(r.longestLoadTaskMs)} ms`, 'info'],
    [
      `UI: longest task, scroll to row ${fmt(r.rowsScrolled)}`,
      fmt(r.rowsScrolled),
      r.scrollSeconds.toFixed(2),
      fmt(r.rowsScrolled / r.scrollSeconds),
      '',
      `${fmt(r.longestScrollTaskMs)} ms (< ${UI_TARGETS.longTaskMs} ms)`,
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
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.env['BENCH_ENTITIES'];
  const count = raw === undefined || raw === '' ? 1_000_000 : Number(raw.replace(/_/g, ''));
  const result = await runUiBench(count);
  for (const row of uiBenchRows(result)) console.log(row.join(' | '));
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}
