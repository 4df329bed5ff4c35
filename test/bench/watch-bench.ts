/*
 * The watch loop of `datahub test --watch` (issue 35): time from saving one pipe's file to the result of the tests it
 * affects, in a generated 50-pipe project. Runnable alone: `node out/test/bench/watch-bench.js` (BENCH_WATCH_EDITS
 * saves, default 5).
 *
 * The project: 10 groups of 5 pipes, `g<i>-src` (embedded, 20 entities) -> `g<i>-a` (source) -> `g<i>-b` (hops into
 * g<i>-src) -> `g<i>-c` (source) -> `g<i>-d` (lookup-entity in g<i>-c), every pipe with a test whose expected file is
 * written by `datahub test --update` first. The real CLI is started with --watch; each save edits the transform of a
 * `g<i>-b` (another group each time), so that its test and those of g<i>-c and g<i>-d (3 of 50) must re-run. Shown per
 * save: the time from the write to the line that follows the result (as a user sees it) and the CLI's own "Result
 * N ms after the change was seen" (from the first file event).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(REPO, 'bin', 'datahub.js');
const GROUPS = 10;

const dtl = (rules: unknown[]): Record<string, unknown> => ({ type: 'dtl', rules: { default: rules } });

function pipeB(group: number, extra: number): Record<string, unknown> {
  return {
    _id: `g${group}-b`,
    type: 'pipe',
    source: { type: 'dataset', dataset: `g${group}-a` },
    transform: dtl([['copy', '*'], ['add', 'src', ['first', ['hops', { datasets: [`g${group}-src S`], where: [['eq', '_S._id', 'S._id']], return: 'S.n' }]]], ['add', 'extra', extra]]),
  };
}

/** The generated project's node folder. */
export function generateWatchProject(root: string): string {
  const node = join(root, 'node');
  mkdirSync(join(node, 'pipes'), { recursive: true });
  mkdirSync(join(node, 'expected'), { recursive: true });
  const put = (file: string, value: unknown): void => writeFileSync(join(node, file), `${JSON.stringify(value, null, 2)}\n`);
  for (let g = 0; g < GROUPS; g++) {
    const entities = Array.from({ length: 20 }, (_, i) => ({ _id: `e${i}`, n: i * g }));
    const pipes: Record<string, unknown>[] = [
      { _id: `g${g}-src`, type: 'pipe', source: { type: 'embedded', entities } },
      { _id: `g${g}-a`, type: 'pipe', source: { type: 'dataset', dataset: `g${g}-src` }, transform: dtl([['copy', '*'], ['add', 'a', ['plus', '_S.n', 1]]]) },
      pipeB(g, 0),
      { _id: `g${g}-c`, type: 'pipe', source: { type: 'dataset', dataset: `g${g}-b` }, transform: dtl([['copy', '*']]) },
      {
        _id: `g${g}-d`,
        type: 'pipe',
        source: { type: 'dataset', dataset: `g${g}-a` },
        transform: dtl([['copy', '_id'], ['add', 'c', ['lookup-entity', `g${g}-c`, '_S._id']]]),
      },
    ];
    for (const p of pipes) {
      put(`pipes/${String(p['_id'])}.conf.json`, p);
      put(`expected/${String(p['_id'])}.test.json`, {});
    }
  }
  const update = spawnSync(process.execPath, [CLI, 'test', root, '--update'], { encoding: 'utf8' });
  if (update.status !== 0) throw new Error(`datahub test --update failed:\n${update.stdout}${update.stderr}`);
  return node;
}

export interface WatchBenchRow {
  pipe: string;
  /** From the write to the line after the result, as the user sees it. */
  ms: number;
  /** The CLI's own figure, from the first file event. */
  cliMs: number;
  tests: string[];
}

export async function runWatchBench(edits = Number(process.env['BENCH_WATCH_EDITS'] ?? 5)): Promise<WatchBenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'datahub-watch-bench-'));
  const rows: WatchBenchRow[] = [];
  const node = generateWatchProject(root);
  const child = spawn(process.execPath, [CLI, 'test', '--watch', root], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const watching = (from: number): Promise<number> =>
      new Promise((resolve, reject) => {
        const look = (): void => {
          const i = out.indexOf('Watching for changes', from);
          if (i >= 0) return resolve(i + 1);
          if (child.exitCode !== null) return reject(new Error(`the watch ended:\n${out}`));
          setTimeout(look, 2);
        };
        look();
      });
    await watching(0);
    for (let k = 0; k < edits; k++) {
      const g = (k * 3) % GROUPS;
      const mark = out.length;
      const t0 = performance.now();
      writeFileSync(join(node, 'pipes', `g${g}-b.conf.json`), `${JSON.stringify(pipeB(g, k + 1), null, 2)}\n`);
      const end = await watching(mark);
      const ms = performance.now() - t0;
      const block = out.slice(mark, end);
      const cli = /Result (\d+) ms after the change was seen/.exec(block);
      rows.push({ pipe: `g${g}-b`, ms: Math.round(ms), cliMs: cli ? Number(cli[1]) : NaN, tests: [...block.matchAll(/^[✔✘] (\S+)/gm)].map((m) => m[1]!).sort() });
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.on('exit', r)));
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

/** The bound: the result of a one-pipe change in a 50-pipe project within 2 seconds. */
export const WATCH_TARGET_MS = 2000;

/** Rows for bench.ts's table: case, entities, seconds, entities/s, vs baseline, target, result (the median save). */
export function watchBenchRows(rows: readonly WatchBenchRow[]): string[][] {
  const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  const tests = rows[0]?.tests.length ?? 0;
  return [
    [
      `datahub test --watch: one pipe saved -> result (50 pipes, ${tests} tests re-run), median of ${rows.length}`,
      '',
      (median / 1000).toFixed(2),
      '',
      `best ${sorted[0] ?? NaN} ms, worst ${sorted[sorted.length - 1] ?? NaN} ms`,
      `<= ${WATCH_TARGET_MS} ms`,
      median <= WATCH_TARGET_MS ? 'PASS' : 'MISS',
    ],
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runWatchBench();
  console.log(`datahub test --watch, 50-pipe project, one pipe saved (${rows.length} saves):`);
  for (const r of rows) console.log(`  ${r.pipe}: ${r.ms} ms from the write to the result (CLI: ${r.cliMs} ms after the event); ran ${r.tests.join(', ')}`);
  const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
  console.log(`  median ${sorted[Math.floor(sorted.length / 2)]} ms, best ${sorted[0]} ms, worst ${sorted[sorted.length - 1]} ms`);
}
