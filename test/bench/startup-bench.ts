/**
 * Hub start-up (part of `npm run bench`; alone: `node out/test/bench/startup-bench.js [root]`). Every test hub, every
 * `datahub serve` and the desktop app pay it. In one run, STARTUP_BENCH_ROUNDS times each (default 5), the CPU a process
 * used until it listens (read from /proc, user + system, every thread), the best round kept:
 *   - baseline: a bare Fastify server in its own process: better-sqlite3 opening a database in WAL mode, one route
 *               with a schema, listening on 127.0.0.1 — what any hub built on these parts pays at least;
 *   - hub:      `bin/datahub.js serve --port 0` on an empty data folder, until its URL line.
 * `root` (default: this checkout) lets the same run measure another build (an older commit's worktree, say).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { removeDir, tempDir } from '../helpers/hub-process.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface StartupBenchResult {
  baselineCpuMs: number;
  hubCpuMs: number;
  hubWallMs: number;
  ratio: number;
  loadAverage: number;
  problems: string[];
}

const BASELINE = `
import Fastify from 'fastify';
import Database from 'better-sqlite3';
import { join } from 'node:path';
const db = new Database(join(process.argv[1], 'base.db'));
db.pragma('journal_mode = WAL');
const app = Fastify();
app.get('/api/health', { schema: { querystring: { type: 'object', properties: { x: { type: 'integer' } } } } }, async () => ({ ok: db.prepare('select 1 as one').get() }));
await app.listen({ host: '127.0.0.1', port: 0 });
console.log('listening at http://127.0.0.1:' + app.server.address().port);
`;

/** CPU ms (user + system, all threads) of a live process. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}

/** Starts `args` with node in `cwd`; the CPU it used and the ms it took until a line matches `ready`; then stops it. */
async function startOnce(args: string[], cwd: string, ready: RegExp): Promise<{ cpu: number; wall: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATAHUB_HUB_MALLOC: '0' } });
  try {
    return await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no ready line in 60 s:\n${out}`)), 60_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (ready.test(out)) {
          clearTimeout(timer);
          resolve({ cpu: cpuMs(child.pid!), wall: performance.now() - started });
        }
      });
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => reject(new Error(`exited with ${code} before it listened:\n${out}`)));
    });
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
  }
}

export async function runStartupBench(root = ROOT): Promise<StartupBenchResult> {
  const rounds = Number(process.env['STARTUP_BENCH_ROUNDS'] ?? 5);
  const problems: string[] = [];
  let [baselineCpuMs, hubCpuMs, hubWallMs] = [Infinity, Infinity, Infinity];
  for (let i = 0; i < rounds; i++) {
    const dir = tempDir('datahub-startup-bench-');
    try {
      const base = await startOnce(['--input-type=module', '-e', BASELINE, dir], ROOT, /listening at/);
      baselineCpuMs = Math.min(baselineCpuMs, base.cpu);
      const hub = await startOnce([join(root, 'bin', 'datahub.js'), 'serve', '--data', join(dir, 'hub'), '--port', '0'], root, /API listening at/);
      hubCpuMs = Math.min(hubCpuMs, hub.cpu);
      hubWallMs = Math.min(hubWallMs, hub.wall);
    } catch (e) {
      problems.push(`start-up bench: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      removeDir(dir);
    }
  }
  return { baselineCpuMs, hubCpuMs, hubWallMs, ratio: hubCpuMs / baselineCpuMs, loadAverage: loadavg()[0]!, problems };
}

/** Rows for bench.ts's table: case, entities, seconds, rate, vs baseline, target, result. */
export function startupBenchRows(r: StartupBenchResult): string[][] {
  return [
    ['start-up baseline: bare Fastify + SQLite (CPU s)', '-', (r.baselineCpuMs / 1000).toFixed(3), '', '1.00x', '-', '-'],
    [`hub start-up to its URL line (CPU s; wall ${(r.hubWallMs / 1000).toFixed(2)} s, load ${r.loadAverage.toFixed(1)})`, '-', (r.hubCpuMs / 1000).toFixed(3), '', `${r.ratio.toFixed(2)}x time`, '-', 'info'],
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await runStartupBench(process.argv[2] ?? ROOT);
  for (const row of startupBenchRows(r)) console.log(row.join(' | '));
  for (const p of r.problems) console.error(p);
  process.exitCode = r.problems.length > 0 ? 1 : 0;
}
