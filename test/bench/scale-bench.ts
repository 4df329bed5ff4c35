/*
 * The ten-million case (issue 22.5), part of `npm run bench` when BENCH_ENTITIES > SCALE_FROM (2,000,000); alone:
 * `BENCH_ENTITIES=10000000 node out/test/bench/scale-bench.js`.
 *
 * On one real hub (`datahub serve` as a child process) and N generated entities, streamed (at most two request
 * bodies exist at a time):
 *   - ingest: JSON Push (POST /api/receivers/bench/entities, batches of 10,000, two in flight) of all N, with the
 *     rate and the hub's CPU seconds of every million (of every tenth below 2M); target: the last million at
 *     >= 0.8x the rate of the first;
 *   - JSON Pull: GET /api/datasets/bench/entities, streamed and counted, with the hub process's RSS sampled every
 *     50 ms (target: growth during the pull < 100 MB; as in bench.ts, the hub that ingested, so SQLite's page cache
 *     is full before the pull);
 *   - the explorer: the dataset view opened in Chromium on this dataset, navigation to first rows (target < 1 s),
 *     on a fresh page and once more;
 *   - GET /api/datasets/bench (what the explorer and the Datasets list ask first): its time;
 *   - the data folder: its bytes at the end (the hub stopped, so the WAL is checkpointed) per stored version.
 */
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { benchEntityStream, type BenchEntity } from './bench-data.js';
import { folderBytes, readCpuSeconds, readRssKB, RssSampler, RSS_INTERVAL_MS } from './hub-stats.js';
import { pullCount } from './pull-count.js';
import { firstRows, signedInPage } from './ui-bench.js';
import { launchChromium } from '../helpers/browser.js';
import { removeDir, startHub, type HubProcess } from '../helpers/hub-process.js';

/** Above this many entities bench.ts runs this case at full size and the other parts at SCALE_CAP. */
export const SCALE_FROM = 2_000_000;
export const SCALE_TARGETS = { lastVsFirst: 0.8, pullRssGrowthMB: 100, firstRowsMs: 1000 };
const BATCH = 10_000;
const MILLION = 1_000_000;

/** The count the other parts run at in scale mode: BENCH_SCALE_CAP, default 1,000,000. */
export function scaleCap(): number {
  const raw = process.env['BENCH_SCALE_CAP'];
  if (raw === undefined || raw === '') return MILLION;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_SCALE_CAP must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

export interface ScaleSegment {
  /** Entities acknowledged at the end of this segment. */
  upTo: number;
  seconds: number;
  rate: number;
  hubCpuSeconds: number;
}

export interface ScaleBenchResult {
  entities: number;
  segmentSize: number;
  ingest: { seconds: number; rate: number; written: number; hubCpuSeconds: number; segments: ScaleSegment[] };
  /** Rate of the last segment / rate of the first, and the same for hub CPU seconds per entity (first / last). */
  lastVsFirst: number;
  lastVsFirstCpu: number;
  folder: { bytes: number; bytesWhileRunning: number; storedVersions: number; bytesPerVersion: number; jsonBytesPerEntity: number };
  infoMs: number;
  pull: { seconds: number; rate: number; counted: number; bytes: number; firstByteMs: number; rssBeforeMB: number; rssPeakMB: number; rssGrowthMB: number };
  explorer: { firstRowsMs: number; againMs: number; longestLoadTaskMs: number };
  hubPeakRssMB: number;
  loadAverage: [number, number];
  pass: { ingest: boolean; pullRss: boolean; firstRows: boolean };
  problems: string[];
}

/** Await `p`, saying so when it takes longer than a minute (a step of the explorer that hangs). */
async function step<T>(label: string, p: Promise<T>): Promise<T> {
  const timer = setTimeout(() => console.log(`scale: still waiting for ${label}`), 60_000);
  try {
    return await p;
  } finally {
    clearTimeout(timer);
  }
}

/** Request bodies of BATCH entities, made one at a time as the lanes ask for them. */
function bodies(count: number): () => { body: Buffer; size: number; jsonBytes: number } | undefined {
  const it = benchEntityStream(count);
  return () => {
    const batch: BenchEntity[] = [];
    for (let i = 0; i < BATCH; i++) {
      const n = it.next();
      if (n.done) break;
      batch.push(n.value);
    }
    if (batch.length === 0) return undefined;
    const body = Buffer.from(JSON.stringify(batch));
    return { body, size: batch.length, jsonBytes: body.length - 1 - batch.length };
  };
}

async function ingest(hub: HubProcess, count: number, segmentSize: number, problems: string[]): Promise<ScaleBenchResult['ingest'] & { jsonBytes: number }> {
  const pid = hub.child.pid!;
  const next = bodies(count);
  const segments: ScaleSegment[] = [];
  let acked = 0;
  let written = 0;
  let jsonBytes = 0;
  const t0 = performance.now();
  const cpu0 = readCpuSeconds(pid);
  let mark = { t: t0, cpu: cpu0, upTo: 0 };
  const lane = async (): Promise<void> => {
    for (let b = next(); b !== undefined; b = next()) {
      jsonBytes += b.jsonBytes;
      const res = await hub.fetch('/receivers/bench/entities', { method: 'POST', headers: { 'content-type': 'application/json' }, body: b.body });
      const text = await res.text();
      if (!res.ok) throw new Error(`POST /receivers/bench/entities -> HTTP ${res.status}: ${text.slice(0, 2000)}`);
      const reply = JSON.parse(text) as { written?: number };
      written += reply.written ?? 0;
      acked += b.size;
      if (acked - mark.upTo >= segmentSize || acked === count) {
        const t = performance.now();
        const cpu = readCpuSeconds(pid);
        const seconds = (t - mark.t) / 1000;
        segments.push({ upTo: acked, seconds, rate: (acked - mark.upTo) / seconds, hubCpuSeconds: cpu - mark.cpu });
        const s = segments[segments.length - 1]!;
        console.log(`  ingest ${acked.toLocaleString('en-US')}: ${Math.round(s.rate).toLocaleString('en-US')} entities/s, hub ${s.hubCpuSeconds.toFixed(1)} CPU s (load ${loadavg()[0]!.toFixed(1)})`);
        mark = { t, cpu, upTo: acked };
      }
    }
  };
  await Promise.all([lane(), lane()]);
  const seconds = (performance.now() - t0) / 1000;
  if (written !== count) problems.push(`scale: the hub wrote ${written} entities, expected ${count}`);
  return { seconds, rate: count / seconds, written, hubCpuSeconds: readCpuSeconds(pid) - cpu0, segments, jsonBytes };
}

export async function runScaleBench(count: number): Promise<ScaleBenchResult> {
  const problems: string[] = [];
  const segmentSize = count >= 2 * MILLION ? MILLION : Math.max(BATCH, Math.floor(count / 10 / BATCH) * BATCH);
  const load0 = loadavg()[0]!;
  const hub = await startHub();
  const dataDir = hub.dataDir;
  const sampler = new RssSampler(hub.child.pid!);
  try {
    await hub.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'bench', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'bench' } }],
    });
    console.log(`scale: ingest of ${count.toLocaleString('en-US')} entities into a hub at ${hub.url} (pid ${hub.child.pid})`);
    const ing = await ingest(hub, count, segmentSize, problems);
    const i0 = performance.now();
    const info = await hub.json<{ 'stored-versions': number; count: number }>('/datasets/bench');
    const infoMs = performance.now() - i0;
    if (info.count !== count) problems.push(`scale: GET /datasets/bench counts ${info.count} entities, expected ${count}`);
    const bytesWhileRunning = folderBytes(dataDir);
    console.log(`scale: GET /datasets/bench ${infoMs.toFixed(0)} ms; ${info['stored-versions'].toLocaleString('en-US')} stored versions; JSON Pull`);
    const pid = hub.child.pid!;

    // JSON Pull with the hub's RSS.
    await new Promise((r) => setTimeout(r, 2 * RSS_INTERVAL_MS));
    const beforeKB = readRssKB(pid) ?? 0;
    const w0 = Date.now();
    const p0 = performance.now();
    const pulled = await pullCount(`${hub.api}/datasets/bench/entities`, { authorization: `Bearer ${hub.token}` });
    const pullSeconds = (performance.now() - p0) / 1000;
    const w1 = Date.now();
    const afterKB = readRssKB(pid) ?? 0;
    if (pulled.count !== count) problems.push(`scale: the pull counted ${pulled.count} entities, expected ${count}`);

    console.log(`scale: pulled ${pulled.count.toLocaleString('en-US')} entities in ${pullSeconds.toFixed(1)} s; the explorer`);
    // The explorer's first rows.
    const browser = await launchChromium();
    let explorer: ScaleBenchResult['explorer'] = { firstRowsMs: NaN, againMs: NaN, longestLoadTaskMs: NaN };
    try {
      // The link the hub printed has expired by now (ingest and pull take longer than its lifetime): ask for one.
      const { url: link } = await hub.json<{ url: string }>('/login-url', { method: 'POST' });
      const page = await step('sign in', signedInPage(browser, link, problems));
      const first = await step('first rows', firstRows(page, hub.url, 'bench', 180_000));
      console.log(`scale: first rows after ${first.firstRowsMs.toFixed(0)} ms`);
      await step('blank', page.goto('about:blank'));
      const again = await step('first rows again', firstRows(page, hub.url, 'bench', 180_000));
      explorer = { firstRowsMs: first.firstRowsMs, againMs: again.firstRowsMs, longestLoadTaskMs: first.longestLoadTaskMs };
    } catch (e) {
      problems.push(`scale: the explorer showed no rows: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    } finally {
      await step('browser close', browser.close());
    }

    const samples = await step('RSS samples', sampler.stop());
    // The data folder at rest: a stopped hub has checkpointed its WAL.
    const stopped = await hub.stop();
    if (stopped !== 0) problems.push(`scale: the hub exited with ${stopped} after SIGTERM`);
    const bytes = folderBytes(dataDir);
    const during = samples.filter((s) => s.t >= w0 && s.t <= w1).map((s) => s.kB);
    const pullPeakKB = Math.max(beforeKB, afterKB, ...during);
    const hubPeakKB = samples.reduce((m, s) => Math.max(m, s.kB), 0);
    const first = ing.segments[0]!;
    const last = ing.segments[ing.segments.length - 1]!;
    const lastVsFirst = last.rate / first.rate;
    const perEntityCpu = (s: ScaleSegment, i: number): number => s.hubCpuSeconds / (s.upTo - (i === 0 ? 0 : ing.segments[i - 1]!.upTo));
    const lastVsFirstCpu = perEntityCpu(first, 0) / perEntityCpu(last, ing.segments.length - 1);
    const pullGrowthMB = (pullPeakKB - beforeKB) / 1024;
    const { jsonBytes, ...ingestResult } = ing;
    return {
      entities: count,
      segmentSize,
      ingest: ingestResult,
      lastVsFirst,
      lastVsFirstCpu,
      folder: {
        bytes,
        bytesWhileRunning,
        storedVersions: info['stored-versions'],
        bytesPerVersion: bytes / info['stored-versions'],
        jsonBytesPerEntity: jsonBytes / count,
      },
      infoMs,
      pull: {
        seconds: pullSeconds,
        rate: count / pullSeconds,
        counted: pulled.count,
        bytes: pulled.bytes,
        firstByteMs: pulled.firstByteSeconds * 1000,
        rssBeforeMB: beforeKB / 1024,
        rssPeakMB: pullPeakKB / 1024,
        rssGrowthMB: pullGrowthMB,
      },
      explorer,
      hubPeakRssMB: hubPeakKB / 1024,
      loadAverage: [load0, loadavg()[0]!],
      pass: {
        ingest: lastVsFirst >= SCALE_TARGETS.lastVsFirst,
        pullRss: pullGrowthMB < SCALE_TARGETS.pullRssGrowthMB,
        firstRows: explorer.firstRowsMs < SCALE_TARGETS.firstRowsMs,
      },
      problems,
    };
  } finally {
    await sampler.stop().catch(() => undefined);
    await hub.stop();
    if (process.env['BENCH_KEEP'] === '1') console.log(`kept: ${dataDir}`);
    else removeDir(dataDir);
  }
}

/** Rows for bench.ts's table: case, entities, seconds, entities/s, vs baseline, target, result. */
export function scaleBenchRows(r: ScaleBenchResult): string[][] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
  const segs = r.ingest.segments;
  const first = segs[0]!;
  const last = segs[segs.length - 1]!;
  const size = (s: ScaleSegment, i: number): number => s.upTo - (i === 0 ? 0 : segs[i - 1]!.upTo);
  const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;
  return [
    ['scale: ingest (2 in flight)', fmt(r.entities), r.ingest.seconds.toFixed(1), fmt(r.ingest.rate), '', `hub ${r.ingest.hubCpuSeconds.toFixed(0)} CPU s`, 'info'],
    ...segs.map((s, i) => [`  entities ${fmt(s.upTo - size(s, i) + 1)}-${fmt(s.upTo)}`, fmt(size(s, i)), s.seconds.toFixed(1), fmt(s.rate), '', `hub ${s.hubCpuSeconds.toFixed(1)} CPU s`, 'info']),
    [
      `scale: last ${fmt(size(last, segs.length - 1))} vs first ${fmt(size(first, 0))}`,
      '',
      '',
      '',
      `${r.lastVsFirst.toFixed(2)}x`,
      `>= ${SCALE_TARGETS.lastVsFirst}x (CPU/entity ${r.lastVsFirstCpu.toFixed(2)}x)`,
      verdict(r.pass.ingest),
    ],
    [
      'scale: data folder per stored version',
      fmt(r.folder.storedVersions),
      '',
      '',
      '',
      `${fmt(r.folder.bytesPerVersion)} B (${mb(r.folder.bytes)}; JSON ${fmt(r.folder.jsonBytesPerEntity)} B/entity)`,
      'info',
    ],
    ['scale: GET /datasets/bench', fmt(r.entities), (r.infoMs / 1000).toFixed(3), '', '', '-', 'info'],
    ['scale: full JSON pull (stream)', fmt(r.pull.counted), r.pull.seconds.toFixed(1), fmt(r.pull.rate), '', `first byte ${fmt(r.pull.firstByteMs)} ms`, 'info'],
    [
      'scale: hub RSS growth during pull',
      '',
      '',
      '',
      '',
      `${r.pull.rssGrowthMB.toFixed(1)} MB (< ${SCALE_TARGETS.pullRssGrowthMB} MB; peak ${r.pull.rssPeakMB.toFixed(0)} MB)`,
      verdict(r.pass.pullRss),
    ],
    [
      'scale: explorer, navigation to first rows',
      fmt(r.entities),
      (r.explorer.firstRowsMs / 1000).toFixed(2),
      '',
      '',
      `${fmt(r.explorer.firstRowsMs)} ms (< ${SCALE_TARGETS.firstRowsMs} ms; again ${fmt(r.explorer.againMs)} ms)`,
      verdict(r.pass.firstRows),
    ],
    ['scale: hub peak RSS', '', '', '', '', `${r.hubPeakRssMB.toFixed(0)} MB`, 'info'],
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.env['BENCH_ENTITIES'];
  const count = raw === undefined || raw === '' ? 2 * MILLION : Number(raw.replace(/_/g, ''));
  const result = await runScaleBench(count);
  for (const row of scaleBenchRows(result)) console.log(row.filter((c) => c !== '').join(' | '));
  console.log(`load average ${result.loadAverage[0].toFixed(1)} -> ${result.loadAverage[1].toFixed(1)}`);
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}
