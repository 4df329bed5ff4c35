// The raw baseline every bench ratio is measured against: better-sqlite3 in this process, the hub's pragmas
// (WAL, synchronous=FULL), JSON.stringify + md5 + insert per entity, in transactions of 10,000. `synchronous` and
// `batch` measure what the durability choice costs (NORMAL was the hub's setting before).
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

const DEFAULT_BATCH = 10_000;

export interface BaselineResult {
  seconds: number;
  rate: number;
  cpuSeconds: number;
}

export interface BaselineOptions {
  synchronous?: 'FULL' | 'NORMAL';
  batch?: number;
}

export function rawInsertBaseline<E extends { _id: unknown } | { [key: string]: unknown }>(
  entities: readonly E[],
  dir: string,
  options: BaselineOptions = {},
): BaselineResult {
  const batch = options.batch ?? DEFAULT_BATCH;
  const file = join(dir, `baseline-${options.synchronous ?? 'FULL'}-${batch}.sqlite`);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    db.exec('CREATE TABLE entities (id TEXT PRIMARY KEY, hash TEXT, body TEXT)');
    const insert = db.prepare('INSERT INTO entities (id, hash, body) VALUES (?, ?, ?)');
    const insertBatch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const e = entities[i]!;
        const body = JSON.stringify(e);
        insert.run((e as { _id?: unknown })._id, createHash('md5').update(body).digest('hex'), body);
      }
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < entities.length; i += batch) insertBatch(i, Math.min(i + batch, entities.length));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const n = (db.prepare('SELECT count(*) AS n FROM entities').get() as { n: number }).n;
    if (n !== entities.length) throw new Error(`baseline: ${n} rows instead of ${entities.length}`);
    return { seconds, rate: entities.length / seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  } finally {
    db.close();
  }
}
