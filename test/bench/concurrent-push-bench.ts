/*
 * Four concurrent 200 MB JSON Pushes (issue 32.5): are they written side by side, and is the memory given back after
 * them? Runnable alone: `node out/test/bench/concurrent-push-bench.js` (BENCH_PUSH_MB per push, default 200;
 * BENCH_PUSHES, default 4; BENCH_ROUTE=datasets, the pushes to /api/datasets/<id>/entities; BENCH_HUB_NODE_ARGS,
 * node flags for the hub such as --cpu-prof; BENCH_HUB_OUTPUT, a file for the hub's output; BENCH_MALLOC=both (default) runs the whole thing twice, first a hub with the C library's
 * allocator defaults (DATAHUB_HUB_MALLOC=0, as `datahub serve` started before it set main/cli/malloc-env.ts's
 * settings), then `datahub serve` as it starts now; BENCH_MALLOC=off or on, one of them). A script, not a timed unit
 * test: it prints figures and judges nothing but correctness.
 *
 * One hub (the real CLI, a fresh data folder), a pipe with an http_endpoint source per push (JSON Push to
 * /api/receivers/<pipe>/entities, read as it arrives). Same run, in order:
 *   warm-up     one small push (the parser workers and compiled code exist before "before" is read)
 *   before      the hub's RSS at rest, and /api/health's answer times at rest (3 s): the yardstick of the polls
 *   alone       one push of the size on its own: its wall time is the yardstick
 *   concurrent  the pushes at once, each to a dataset of its own, bodies streamed by the client as they are made
 *   after       the RSS when the last push has been answered, then at rest 5 s and 30 s later, and after the datasets'
 *               entities were counted (reads: glibc gives freed memory back only when something is freed)
 * The RSS is sampled every 50 ms in a worker thread (hub-stats.ts); /api/health is polled every 100 ms throughout, from
 * a worker thread too (health-poller.ts), and its answer times reported (the parts of a large write are SQLite
 * transactions on the hub's thread). Each dataset must then hold exactly the entities pushed to it.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { describeMappings, readMainThreadCpuMs, readRssKB, RssSampler } from './hub-stats.js';
import { describePolls, HealthPoller, pollFigures, type PollFigures } from './health-poller.js';
import { HUB_MALLOC_SWITCH } from '../../main/cli/malloc-env.js';

const MB = 1024 * 1024;
const PUSH_MB = Number(process.env['BENCH_PUSH_MB'] ?? 200);
const PUSHES = Number(process.env['BENCH_PUSHES'] ?? 4);
/** BENCH_ROUTE=datasets: the pushes go to POST /api/datasets/<id>/entities (at most the body limit, 64 MB). */
const ROUTE = process.env['BENCH_ROUTE'] === 'datasets' ? 'datasets' : 'receivers';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const perForty = (ms: number, bytes: number): string => ((ms * 40 * MB) / bytes).toFixed(0);
const mb = (kB: number | undefined): string => (kB === undefined ? '?' : `${(kB / 1024).toFixed(0)} MB`);

/** The body of push `tag`: entities until `bytes` are made, handed out a chunk at a time. */
function* pushChunks(tag: string, bytes: number): Generator<string, number> {
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(6);
  let made = 1;
  let count = 0;
  yield '[';
  while (made < bytes) {
    let chunk = '';
    for (let k = 0; k < 1000 && made + chunk.length < bytes; k++, count++) {
      const e = { _id: `${tag}-${count}`, n: count, tag, flag: count % 3 === 0, tags: ['a', 'b', String(count % 97)], text: filler, nested: { x: count * 1.5, y: `y${count}` } };
      chunk += (count === 0 ? '' : ',') + JSON.stringify(e);
    }
    made += chunk.length;
    yield chunk;
  }
  yield ']';
  return count;
}

interface PushOutcome {
  dataset: string;
  entities: number;
  bytes: number;
  startMs: number;
  sentMs: number;
  answeredMs: number;
  status: number;
  reply: string;
}

/** Stream one push body to the hub (backpressure respected) and wait for its answer. */
function push(hub: HubProcess, dataset: string, bytes: number, t0: number): Promise<PushOutcome> {
  return new Promise((resolve, reject) => {
    const startMs = performance.now() - t0;
    let sentMs = 0;
    let sent = 0;
    const req = request(`${hub.api}/${ROUTE}/${dataset}/entities`, {
      method: 'POST',
      // A connection of its own: a kept-alive one the hub closes while idle would fail the next push's first write.
      agent: false,
      headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    const chunks = pushChunks(dataset, bytes);
    let entities = 0;
    const write = (): void => {
      for (;;) {
        const next = chunks.next();
        if (next.done) {
          entities = next.value;
          req.end(() => (sentMs = performance.now() - t0));
          return;
        }
        sent += next.value.length;
        if (!req.write(next.value)) {
          req.once('drain', write);
          return;
        }
      }
    };
    req.on('response', (res) => {
      let reply = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (reply += d));
      res.on('end', () => resolve({ dataset, entities, bytes: sent, startMs, sentMs, answeredMs: performance.now() - t0, status: res.statusCode ?? 0, reply: reply.slice(0, 300) }));
    });
    // A hub that refuses the body answers before it has read it all and closes: its answer says why, not the EPIPE.
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (e) => setTimeout(() => (answered ? undefined : reject(e)), 1000));
    write();
  });
}

async function countEntities(hub: HubProcess, dataset: string): Promise<number> {
  const filter = encodeURIComponent(JSON.stringify(['eq', 1, 1]));
  return (await hub.json<{ count: number }>(`/datasets/${dataset}/matches?filter=${filter}`)).count;
}

export interface ConcurrentPushResult {
  label: string;
  pushMB: number;
  pushes: number;
  beforeKB: number;
  aloneSeconds: number;
  aloneResidueKB: number;
  /** The hub thread's CPU milliseconds during the push alone, and during the concurrent ones. */
  aloneCpuMs: number;
  concurrentCpuMs: number;
  concurrentSeconds: number;
  peakKB: number;
  afterAnsweredKB: number;
  after5sKB: number;
  after30sKB: number;
  /** After the entities were counted (reads that allocate and free: glibc gives memory back only when something is freed). */
  afterReadsKB: number;
  /** 15 s after the counts (an idle hub gives back the heap a burst grew: main/server/heap-release.ts). */
  afterReads15sKB: number;
  /** /api/health at rest before the pushes, during the push alone, and from the concurrent pushes until the last answer. */
  healthAtRest: PollFigures;
  healthAlone: PollFigures;
  healthConcurrent: PollFigures;
  outcomes: PushOutcome[];
}

/** One hub, started with `env` added to the bench's own, through the whole sequence. */
async function runOnce(label: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<ConcurrentPushResult> {
  // Four 200 MB uploads at once may take longer than the default 120 s to arrive on a loaded machine.
  const nodeArgs = (process.env['BENCH_HUB_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');
  // As a terminal starts it: the hub sets its allocator settings itself, or not (env may turn them off).
  const hub = await startHub({ args: ['--request-timeout', '3600'], nodeArgs, env, mallocEnv: false });
  const pid = hub.child.pid!;
  try {
    // JSON Push: a pipe with an http_endpoint source per push, each writing a dataset of its name.
    const names = ['warm', 'alone', ...Array.from({ length: PUSHES }, (_, i) => `push${i}`)];
    await hub.json('/pipes', { method: 'POST', json: names.map((_id) => ({ _id, type: 'pipe', source: { type: 'http_endpoint' } })) });
    const t0 = performance.now();
    const warm = await push(hub, 'warm', 256 * 1024, t0);
    if (warm.status !== 200) throw new Error(`warm-up push: ${warm.status} ${warm.reply}`);
    const poller = new HealthPoller(hub.api, hub.token);
    const restFrom = Date.now();
    await sleep(3000);
    const beforeKB = readRssKB(pid)!;
    log(`[${label}] hub RSS at rest before: ${mb(beforeKB)} (${describeMappings(pid)})`);

    const sampler = new RssSampler(pid);
    const aloneFrom = Date.now();
    const a0 = performance.now();
    const aloneCpu0 = readMainThreadCpuMs(pid);
    const alone = await push(hub, 'alone', PUSH_MB * MB, a0);
    const aloneSeconds = (performance.now() - a0) / 1000;
    const aloneCpuMs = readMainThreadCpuMs(pid) - aloneCpu0;
    const aloneUntil = Date.now();
    if (alone.status !== 200) throw new Error(`the push alone: ${alone.status} ${alone.reply}`);
    await sleep(3000);
    const aloneResidueKB = readRssKB(pid)!;
    log(`[${label}] one ${PUSH_MB} MB push alone: ${aloneSeconds.toFixed(1)} s (${alone.entities} entities); RSS 3 s after it: ${mb(aloneResidueKB)}`);
    log(`[${label}] the hub thread's CPU for the push alone: ${aloneCpuMs.toFixed(0)} ms, ${perForty(aloneCpuMs, alone.bytes)} ms per 40 MB`);

    const concurrentFrom = Date.now();
    const c0 = performance.now();
    const concurrentCpu0 = readMainThreadCpuMs(pid);
    const outcomes = await Promise.all(Array.from({ length: PUSHES }, (_, i) => push(hub, `push${i}`, PUSH_MB * MB, c0)));
    const concurrentSeconds = (performance.now() - c0) / 1000;
    const concurrentCpuMs = readMainThreadCpuMs(pid) - concurrentCpu0;
    log(`[${label}] the hub thread's CPU for the ${PUSHES} concurrent pushes (health polls included): ${concurrentCpuMs.toFixed(0)} ms, ${perForty(concurrentCpuMs, outcomes.reduce((a, o) => a + o.bytes, 0))} ms per 40 MB`);
    const concurrentUntil = Date.now();
    const afterAnsweredKB = readRssKB(pid)!;
    await sleep(5000);
    const after5sKB = readRssKB(pid)!;
    await sleep(25_000);
    const after30sKB = readRssKB(pid)!;
    const polls = await poller.stop();
    if (hub.child.exitCode !== null || hub.child.signalCode !== null) throw new Error(`the hub ended (${hub.child.exitCode ?? hub.child.signalCode}):\n${hub.output().slice(-3000)}`);
    const samples = await sampler.stop();
    const peakKB = Math.max(...samples.filter((s) => s.t >= concurrentFrom).map((s) => s.kB));

    for (const o of outcomes) {
      if (o.status !== 200) throw new Error(`${o.dataset}: ${o.status} ${o.reply}`);
      const stored = await countEntities(hub, o.dataset);
      if (stored !== o.entities) throw new Error(`${o.dataset}: ${stored} entities stored of ${o.entities} pushed`);
      log(`  ${o.dataset}: ${(o.bytes / MB).toFixed(0)} MB, ${o.entities} entities; sent ${(o.startMs / 1000).toFixed(1)}-${(o.sentMs / 1000).toFixed(1)} s, answered at ${(o.answeredMs / 1000).toFixed(1)} s`);
    }
    const afterReadsKB = readRssKB(pid)!;
    await sleep(15_000);
    const afterReads15sKB = readRssKB(pid)!;
    log(`[${label}] ${PUSHES} concurrent ${PUSH_MB} MB pushes: ${concurrentSeconds.toFixed(1)} s (${(concurrentSeconds / aloneSeconds).toFixed(2)}x one alone; ${PUSHES}x would be one after another)`);
    log(`[${label}] hub RSS: before ${mb(beforeKB)}, peak during ${mb(peakKB)}, when answered ${mb(afterAnsweredKB)}, 5 s later ${mb(after5sKB)}, 30 s later ${mb(after30sKB)} (${(after30sKB / beforeKB).toFixed(2)}x before), after the counts ${mb(afterReadsKB)}, 15 s after them ${mb(afterReads15sKB)}`);
    // What the resident memory left is made of (V8 heap, buffers) as the hub itself tells it.
    const heap = await (await hub.fetch('/status/heap')).text();
    log(`[${label}] hub memory 15 s after the counts, by kind: ${heap.trim().split('\n').map((l) => l.replace(/\s+/g, ' ')).join(', ')}`);
    log(`[${label}] hub mappings 15 s after the counts: ${describeMappings(pid)}`);
    const healthAtRest = pollFigures(polls, restFrom, aloneFrom);
    const healthAlone = pollFigures(polls, aloneFrom, aloneUntil);
    const healthConcurrent = pollFigures(polls, concurrentFrom, concurrentUntil);
    log(`[${label}] /api/health (polled every 100 ms from a worker thread) at rest: ${describePolls(polls, restFrom, aloneFrom)}`);
    log(`[${label}] /api/health during the push alone: ${describePolls(polls, aloneFrom, aloneUntil)}`);
    log(`[${label}] /api/health during the concurrent pushes: ${describePolls(polls, concurrentFrom, concurrentUntil)}; p99 ${(healthConcurrent.p99Ms / healthAtRest.p99Ms).toFixed(1)}x the p99 at rest`);
    return { label, pushMB: PUSH_MB, pushes: PUSHES, beforeKB, aloneSeconds, aloneCpuMs, concurrentCpuMs, aloneResidueKB, concurrentSeconds, peakKB, afterAnsweredKB, after5sKB, after30sKB, afterReadsKB, afterReads15sKB, healthAtRest, healthAlone, healthConcurrent, outcomes };
  } finally {
    await hub.stop();
    const outFile = process.env['BENCH_HUB_OUTPUT'];
    if (outFile !== undefined) writeFileSync(outFile, hub.output());
    removeDir(hub.dataDir);
  }
}

export async function concurrentPushBench(log: (line: string) => void = console.log): Promise<ConcurrentPushResult[]> {
  const which = process.env['BENCH_MALLOC'] ?? 'both';
  const runs: [string, NodeJS.ProcessEnv][] = [];
  if (which !== 'on') runs.push(['allocator defaults', { [HUB_MALLOC_SWITCH]: '0' }]);
  if (which !== 'off') runs.push(['datahub serve', {}]);
  const results: ConcurrentPushResult[] = [];
  for (const [label, env] of runs) results.push(await runOnce(label, env, log));
  if (results.length === 2) {
    const [a, b] = results as [ConcurrentPushResult, ConcurrentPushResult];
    const row = (r: ConcurrentPushResult): string =>
      `${r.label.padEnd(20)} RSS before ${mb(r.beforeKB)}, peak ${mb(r.peakKB)}, 30 s after ${mb(r.after30sKB)} (${(r.after30sKB / r.beforeKB).toFixed(2)}x before), after the counts ${mb(r.afterReadsKB)}, 15 s later ${mb(r.afterReads15sKB)}; health p99 ${r.healthConcurrent.p99Ms.toFixed(0)} ms, max ${r.healthConcurrent.maxMs.toFixed(0)} ms, ${r.healthConcurrent.over100Pct.toFixed(1)}% over 100 ms`;
    log('same run:');
    log(`  ${row(a)}`);
    log(`  ${row(b)}`);
    log(`  RSS 30 s after, with the settings / without: ${(b.after30sKB / a.after30sKB).toFixed(2)}x; growth over before: ${mb(a.after30sKB - a.beforeKB)} -> ${mb(b.after30sKB - b.beforeKB)}`);
  }
  return results;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  concurrentPushBench().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
