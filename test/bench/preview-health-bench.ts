/*
 * /api/health while previews, traces, step-throughs, impacts and stage reads run away (issue 32.1). Runnable alone:
 * `node out/test/bench/preview-health-bench.js`. A script, not a timed unit test: it prints figures and judges nothing
 * but the answers' status.
 *
 * BENCH_BASE_REPO=<a built checkout of another commit> runs the same cases on that checkout's hub too, in the same
 * session, the hubs taking turns round by round (BENCH_ROUNDS, default 2), so that a before/after comparison sees the
 * same machine load. BENCH_SOURCE (default 20,000) source entities of about 1 KB; BENCH_HUB_NODE_ARGS, node flags for
 * the hubs (--cpu-prof ...).
 *
 * Each hub (the real CLI on a fresh data folder) gets a dataset "people" and a pipe "people-out" reading it. Every case
 * runs with /api/health polled every 50 ms from a worker thread of this process (health-poller.ts); the polls sent while
 * the case ran are its figures, with the CPU time the hub's own thread used meanwhile (what it did itself, whatever the
 * machine's load made the polls wait for). The runaway rule is a `count` over a `map` of 100,000 sums of 100,000 numbers, on one
 * entity only, placed where the hub has the most to do besides:
 *   idle       nothing runs: the machine's own noise, the yardstick for the others
 *   dtl        POST /dtl/preview of 1,000 sample entities with traces, the last one runaway
 *   preview    POST /pipes/<id>/preview of a draft, 1,000 entities read from the source, traces, the 1,000th runaway
 *   step       POST /pipes/<id>/step-through of the source entity near the end of the source, which is runaway
 *   impact     POST /pipes/<id>/impact of a draft runaway near the end of the source, followed until it fails
 *   stage      GET /pipes/<id>/entities?stage=sink of a stored pipe runaway near the end of its source (streamed: cut)
 *   gone       a runaway DTL preview whose client gives up after 1.5 s, then an ordinary one (the worker is replaced)
 *   ok-impact  the impact of an ordinary draft over the whole source (no runaway: the hub's share of the work)
 *   ok-preview an ordinary pipe preview of 1,000 source entities with traces (an answer of about 5 MB)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadavg } from 'node:os';
import { REPO } from '../helpers/hub-process.js';
import { HealthPoller, type HealthPoll } from './health-poller.js';

const SOURCE = Number(process.env['BENCH_SOURCE'] ?? 20_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const SPIN = ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]];
const FILLER = 'lorem ipsum dolor sit amet '.repeat(20);

type Json = Record<string, unknown>;

interface BenchHub {
  api: string;
  token: string;
  stop(): Promise<void>;
  output(): string;
  /** CPU milliseconds the hub's own thread (the one answering the API) has used so far (Linux; else NaN). */
  mainThreadCpuMs(): number;
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/** The CLI of `repo` serving a fresh data folder on a free port. */
async function startHubOf(repo: string): Promise<BenchHub> {
  const dataDir = mkdtempSync(join(tmpdir(), 'datahub-bench-'));
  const nodeArgs = (process.env['BENCH_HUB_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, join(repo, 'bin', 'datahub.js'), 'serve', '--data', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the hub did not start in 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /API listening at (http:\/\/\S+)\/api/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`the hub exited with ${code}:\n${out}`)));
  });
  const token = readFileSync(join(dataDir, 'access-token'), 'utf8').trim();
  const api = `${url}/api`;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    api,
    token,
    output: () => out,
    mainThreadCpuMs: () => {
      try {
        const fields = readFileSync(`/proc/${child.pid}/task/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return (Number(fields[11]) + Number(fields[12])) * 10;
      } catch {
        return NaN;
      }
    },
    fetch: (path, init = {}) => {
      const { json, ...rest } = init;
      const headers = { authorization: `Bearer ${token}`, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) };
      return fetch(api + path, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const rules = (...rule: unknown[]): Json => ({
  type: 'dtl',
  rules: { default: [['copy', '*'], ['add', 'upper', ['upper', '_S.title']], ['add', 'tags2', ['map', ['concat', '_.', '!'], '_S.tags']], ...rule] },
});
const spinAt = (id: string): unknown[] => ['add', 'spin', ['if', ['eq', '_S._id', id], SPIN, 0]];
const source = { type: 'dataset', dataset: 'people' };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function status(res: Response): Promise<string> {
  const text = await res.text();
  return `${res.status}${res.status >= 400 ? ` ${text.slice(0, 80)}` : ''}`;
}

async function setUp(hub: BenchHub): Promise<void> {
  for (let k = 0; k < SOURCE; k += 5000) {
    const entities = Array.from({ length: Math.min(5000, SOURCE - k) }, (_, j) => ({ _id: `e${k + j}`, title: `Title ${k + j}`, tags: ['a', 'b', String(j % 17)], text: FILLER, nested: { x: j * 1.5, y: [1, 2, 3], z: { deep: `d${j}` } } }));
    const res = await hub.fetch('/datasets/people/entities', { method: 'POST', json: entities });
    if (!res.ok) throw new Error(`push: ${await status(res)}`);
  }
  const pipes = [
    { _id: 'people-out', type: 'pipe', source, transform: rules(), pump: { mode: 'manual' } },
    { _id: 'spinning', type: 'pipe', source, transform: rules(spinAt(`e${SOURCE - 10}`)), pump: { mode: 'manual' } },
  ];
  const res = await hub.fetch('/pipes', { method: 'POST', json: pipes });
  if (!res.ok) throw new Error(`pipes: ${await status(res)}`);
}

async function impact(hub: BenchHub, draft: Json): Promise<string> {
  const started = await hub.fetch('/pipes/people-out/impact?tests=false', { method: 'POST', json: { _id: 'people-out', type: 'pipe', ...draft } });
  if (started.status !== 202) return status(started);
  for (;;) {
    await sleep(200);
    const job = (await (await hub.fetch('/pipes/people-out/impact')).json()) as Json;
    if (job['status'] !== 'running') return String(job['status']);
  }
}

const CASES: Record<string, (hub: BenchHub) => Promise<string>> = {
  idle: async () => {
    await sleep(5000);
    return 'slept';
  },
  dtl: async (hub) => {
    const sample = Array.from({ length: 1000 }, (_, j) => ({ _id: `s${j}`, title: `T${j}`, tags: ['x'], text: FILLER }));
    return status(await hub.fetch('/dtl/preview', { method: 'POST', json: { transform: rules(spinAt('s999')), entities: sample, trace: true } }));
  },
  preview: async (hub) => status(await hub.fetch('/pipes/people-out/preview', { method: 'POST', json: { config: { source, transform: rules(spinAt('e999')) }, limit: 1000, trace: true } })),
  step: async (hub) => {
    const id = `e${SOURCE - 10}`;
    return status(await hub.fetch('/pipes/people-out/step-through', { method: 'POST', json: { config: { source, transform: rules(spinAt(id)) }, 'entity-id': id } }));
  },
  impact: (hub) => impact(hub, { source, transform: rules(spinAt(`e${SOURCE - 10}`)) }),
  // The entities before the runaway one are streamed already: the hub can only cut the stream then.
  stage: async (hub) => {
    const res = await hub.fetch('/pipes/spinning/entities?stage=sink');
    return status(res).catch(() => `${res.status}, stream cut`);
  },
  gone: async (hub) => {
    const runaway = await hub.fetch('/dtl/preview', { method: 'POST', json: { transform: rules(spinAt('x')), entities: [{ _id: 'x' }] }, signal: AbortSignal.timeout(1500) }).then(status, () => 'gave up');
    const next = await status(await hub.fetch('/dtl/preview', { method: 'POST', json: { transform: rules(), entities: [{ _id: 'y', title: 'y', tags: [] }] } }));
    await sleep(1000);
    return `${runaway}, then ${next}`;
  },
  'ok-impact': (hub) => impact(hub, { source, transform: rules(['add', 'extra', 1]) }),
  'ok-preview': async (hub) => status(await hub.fetch('/pipes/people-out/preview', { method: 'POST', json: { config: { source, transform: rules() }, limit: 1000, trace: true } })),
};

interface Figures {
  polls: number[];
  failed: number;
  answers: string[];
  seconds: number[];
  /** The hub thread's CPU milliseconds during the case (the polls' own share included: compare with idle). */
  cpu: number[];
}

function describe(f: Figures | undefined): string {
  if (!f || f.polls.length === 0) return 'no poll';
  const ms = [...f.polls].sort((a, b) => a - b);
  const at = (q: number): number => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
  const over = ms.filter((m) => m > 100).length;
  return `${String(ms.length).padStart(4)} polls  p50 ${at(0.5).toFixed(0).padStart(4)}  p99 ${at(0.99).toFixed(0).padStart(4)}  slowest ${ms[ms.length - 1]!.toFixed(0).padStart(4)} ms  >100 ms: ${String(over).padStart(3)}${f.failed ? `  FAILED ${f.failed}` : ''}`;
}

async function runCases(repo: string, into: Map<string, Figures>): Promise<void> {
  const hub = await startHubOf(repo);
  try {
    await setUp(hub);
    // One ordinary preview first: compiled code and the first worker exist before the cases (as on a hub in use).
    await status(await hub.fetch('/pipes/people-out/preview', { method: 'POST', json: { limit: 5 } }));
    for (const [name, run] of Object.entries(CASES)) {
      const poller = new HealthPoller(hub.api, hub.token, 50);
      const t0 = Date.now();
      const cpu0 = hub.mainThreadCpuMs();
      let answer: string;
      try {
        answer = await run(hub);
      } catch (e) {
        throw new Error(`case ${name}: ${String(e)}\n${hub.output().slice(-3000)}`);
      } finally {
        await poller.stop();
      }
      const seconds = (Date.now() - t0) / 1000;
      const cpu = hub.mainThreadCpuMs() - cpu0;
      const polls: HealthPoll[] = await poller.stop();
      const f = into.get(name) ?? { polls: [], failed: 0, answers: [], seconds: [], cpu: [] };
      f.cpu.push(cpu);
      for (const p of polls) {
        if (p.error !== undefined) f.failed++;
        else f.polls.push(p.ms);
      }
      f.answers.push(answer);
      f.seconds.push(seconds);
      into.set(name, f);
    }
  } finally {
    await hub.stop();
  }
}

export async function previewHealthBench(): Promise<void> {
  const base = process.env['BENCH_BASE_REPO'];
  const hubs: [string, string][] = [['this', REPO], ...(base ? [['base', base] as [string, string]] : [])];
  const figures = new Map(hubs.map(([name]) => [name, new Map<string, Figures>()]));
  console.log(`preview-health bench: ${SOURCE} source entities, ${ROUNDS} rounds; hubs: ${hubs.map(([n, r]) => `${n} = ${r}`).join(', ')}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let round = 0; round < ROUNDS; round++) {
    // The hubs take turns, the other one first every other round.
    const order = round % 2 === 0 ? hubs : [...hubs].reverse();
    for (const [name, repo] of order) {
      console.log(`round ${round + 1}: ${name} (load ${loadavg()[0]!.toFixed(1)})`);
      await runCases(repo, figures.get(name)!);
    }
  }
  console.log(`\n/api/health during each case (all rounds; load at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}):`);
  for (const name of Object.keys(CASES)) {
    for (const [hub] of hubs) {
      const f = figures.get(hub)!.get(name);
      const answers = [...new Set(f?.answers ?? [])].join(' | ');
      const secs = f ? f.seconds.map((s) => s.toFixed(1)).join('/') : '';
      const cpu = f ? f.cpu.map((c) => c.toFixed(0)).join('/') : '';
      console.log(`${name.padEnd(11)} ${hub.padEnd(5)} ${describe(f)}  hub thread CPU ${cpu} ms  (${secs} s; ${answers})`);
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  previewHealthBench().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
