import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';
import { Dataset, type DatasetRow } from './dataset-log.js';
import { DiskUsageCounter } from './disk-usage.js';
import { badRequest, notFound } from '../base/index.js';

/** All datasets of a hub, by name. Dataset objects are cached: they hold prepared statements. */
export class DatasetStore {
  private readonly cache = new Map<string, Dataset>();
  /** The offset a dataset's compaction must not go past (set by the pumps: dependency tracking holds it off). */
  private compactionFloor: (name: string) => number = () => Number.POSITIVE_INFINITY;

  /** Counts the bytes on disk of large datasets off the event loop (none for an in-memory database). */
  private readonly usage: DiskUsageCounter | undefined;

  constructor(private readonly db: Db) {
    this.usage = db.memory ? undefined : new DiskUsageCounter(db.name);
  }

  /** Ends the disk-usage worker (Hub.close). */
  close(): void {
    this.usage?.close();
  }

  names(): string[] {
    return (this.db.prepare('SELECT name FROM datasets ORDER BY name').pluck().all() as string[]);
  }

  list(): Dataset[] {
    return this.names().map((n) => this.get(n)).filter((d): d is Dataset => d !== undefined);
  }

  get(name: string): Dataset | undefined {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const row = this.db.prepare('SELECT * FROM datasets WHERE name = ?').get(name) as DatasetRow | undefined;
    if (!row) return undefined;
    const ds = new Dataset(this.db, row, () => this.compactionFloor(name), this.usage);
    this.cache.set(name, ds);
    return ds;
  }

  setCompactionFloor(floor: (name: string) => number): void {
    this.compactionFloor = floor;
  }

  require(name: string): Dataset {
    const ds = this.get(name);
    if (!ds) throw notFound(`dataset ${JSON.stringify(name)}`);
    return ds;
  }

  /** Get a dataset, creating it (with a fresh generation UUID) when it does not exist. */
  open(name: string): Dataset {
    const existing = this.get(name);
    if (existing) return existing;
    validateDatasetName(name);
    this.db.transaction(() => {
      const info = this.db
        .prepare('INSERT INTO datasets (name, generation, created_ts) VALUES (?, ?, ?)')
        .run(name, randomUUID(), Date.now() * 1000);
      Dataset.createTables(this.db, Number(info.lastInsertRowid));
    })();
    return this.require(name);
  }

  delete(name: string): void {
    const ds = this.require(name);
    this.db.transaction(() => {
      Dataset.dropTables(this.db, ds.num);
      this.db.prepare('DELETE FROM datasets WHERE num = ?').run(ds.num);
    })();
    this.cache.delete(name);
  }
}

export function validateDatasetName(name: string): void {
  if (typeof name !== 'string' || name.length === 0 || name.length > 512) {
    throw badRequest('invalid dataset id', 'a dataset id is a non-empty string of at most 512 characters');
  }
  if (/[\u0000-\u001f/\\]/.test(name)) {
    throw badRequest(`invalid dataset id ${JSON.stringify(name)}`, 'a dataset id may not contain control characters or slashes');
  }
}
