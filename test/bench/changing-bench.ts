/*
 * Changing-dataset benchmark (called from test/bench/bench.ts; also runnable alone:
 * `node out/test/bench/changing-bench.js`).
 *
 * Two in-process hubs on temp dirs write the same N entities (BENCH_ENTITIES, default 200,000) and then six rounds
 * in which every entity changes, into one dataset each: one with the default compaction (keep 2 versions, compacted
 * by the writer), one with `compaction.sink` off (every version kept, as before compaction existed). After each round:
 * the stored versions (GET /datasets/<id>'s "stored-versions") and the data folder's size (after a WAL checkpoint),
 * and the write rate of each round, compaction on vs off, in the same run.
 * Expected stored versions, by the documented rules: on = N after the first write, 2N after every later round;
 * off = N * (rounds + 1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Hub } from '../../hub-core/hub.js';
import { DEFAULT_COMPACTION } from '../../hub-core/storage/index.js';
import type { JsonObject } from '../../hub-core/base/index.js';
import { generateBenchEntities } from './dtl-bench.js';
import { folderBytes } from './hub-stats.js';

const BATCH = 10_000;
const ROUNDS = 6;

export interface ChangingRound {
  round: number;
  versions: number;
  expectedVersions: number;
  folderMB: number;
  seconds: number;
  rate: number;
}

export interface ChangingBenchResult {
  entities: number;
  on: ChangingRound[];
  off: ChangingRound[];
  problems: string[];
}

const now = (): number => performance.now();

function runOne(entities: readonly JsonObject[], compaction: boolean): ChangingRound[] {
  const dir = mkdtempSync(join(tmpdir(), 'datahub-changing-bench-'));
  const hub = new Hub(dir);
  try {
    const ds = hub.datasets.open('changing');
    // The settings a pipe's dataset sink gives its dataset (a dataset no pipe writes does not compact as it is written).
    ds.setSettings({ ...ds.settings(), compaction: { ...DEFAULT_COMPACTION, sink: compaction } });
    const rounds: ChangingRound[] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      const batch = r === 0 ? entities : entities.map((e) => ({ ...e, round: r }));
      const t0 = now();
      for (let i = 0; i < batch.length; i += BATCH) ds.write(batch.slice(i, i + BATCH));
      const seconds = (now() - t0) / 1000;
      hub.db.pragma('wal_checkpoint(TRUNCATE)');
      const n = entities.length;
      rounds.push({
        round: r,
        versions: ds.info()['stored-versions'],
        expectedVersions: compaction ? (r === 0 ? n : 2 * n) : n * (r + 1),
        folderMB: folderBytes(dir) / 1024 / 1024,
        seconds,
        rate: n / seconds,
      });
    }
    return rounds;
  } finally {
    hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function runChangingBench(count: number): ChangingBenchResult {
  const entities = generateBenchEntities(count);
  const off = runOne(entities, false);
  const on = runOne(entities, true);
  const problems: string[] = [];
  for (const r of [...on, ...off]) {
    if (r.versions !== r.expectedVersions) problems.push(`changing dataset round ${r.round}: ${r.versions} stored versions, expected ${r.expectedVersions}`);
  }
  return { entities: count, on, off, problems };
}

/** Rows for bench.ts's table: case, entities, seconds, entities/s, vs baseline, target, result. */
export function changingBenchRows(r: ChangingBenchResult): string[][] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const rows: string[][] = [];
  for (let i = 0; i < r.on.length; i++) {
    const on = r.on[i]!;
    const off = r.off[i]!;
    rows.push([
      `changing dataset round ${on.round}: compaction on / off`,
      fmt(r.entities),
      `${on.seconds.toFixed(2)} / ${off.seconds.toFixed(2)}`,
      `${fmt(on.rate)} / ${fmt(off.rate)}`,
      `${(on.rate / off.rate).toFixed(2)}x off`,
      `versions ${fmt(on.versions)} / ${fmt(off.versions)}; ${on.folderMB.toFixed(0)} / ${off.folderMB.toFixed(0)} MB`,
      on.versions === on.expectedVersions && off.versions === off.expectedVersions ? 'PASS' : 'MISS',
    ]);
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const raw = process.env['BENCH_ENTITIES'];
  const count = raw === undefined || raw === '' ? 200_000 : Number(raw.replace(/_/g, ''));
  const result = runChangingBench(count);
  for (const row of changingBenchRows(result)) console.log(row.join(' | '));
  for (const p of result.problems) console.error(p);
  process.exitCode = result.problems.length > 0 ? 1 : 0;
}
