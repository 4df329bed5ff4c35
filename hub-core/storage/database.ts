import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

/**
 * Open the hub's SQLite file in WAL mode with synchronous=FULL: the write-ahead log is synced to disk at every commit,
 * so an acknowledged write survives a power cut too. (With NORMAL a power cut could roll back acknowledged commits and
 * their offsets would then be handed out again under the same dataset generation; see README, Durability.)
 */
export function openDatabase(file: string, options: { durable?: boolean } = {}): Db {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true });
    // Owner only: SQLite gives its -wal and -shm files the mode of the database file.
    closeSync(openSync(file, 'a', 0o600));
    for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  }
  const db = new Database(file);
  useIncrementalVacuum(db);
  db.pragma('journal_mode = WAL');
  // A throwaway database (a test run's temporary hub) need not survive a power cut: no sync at every commit.
  db.pragma(options.durable === false ? 'synchronous = OFF' : 'synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  // Added with whole-log compaction: the offset up to which a dataset has been compacted.
  const columns = (db.prepare('PRAGMA table_info(dataset_versions)').all() as { name: string }[]).map((c) => c.name);
  if (!columns.includes('compacted_until')) db.exec('ALTER TABLE dataset_versions ADD COLUMN compacted_until INTEGER NOT NULL DEFAULT -1');
  return db;
}

/** Small databases switch to it at once (a VACUUM); a larger one keeps reusing free pages without returning them. */
const VACUUM_ON_OPEN_LIMIT = 64 * 1024 * 1024;

/**
 * Incremental auto-vacuum, so free pages (removed versions, deleted datasets) can be handed back to the OS in small
 * steps (CompactionService.reclaim). It must be chosen before the first table exists; an older database changes mode
 * with one VACUUM, done here only while the file is small.
 */
function useIncrementalVacuum(db: Db): void {
  if ((db.pragma('auto_vacuum', { simple: true }) as number) === 2) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  if ((db.pragma('auto_vacuum', { simple: true }) as number) === 2) return;
  const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  if (bytes <= VACUUM_ON_OPEN_LIMIT) db.exec('VACUUM');
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS datasets (
  num INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  generation TEXT NOT NULL,
  created_ts INTEGER NOT NULL,
  populated INTEGER NOT NULL DEFAULT 0,
  max_updated INTEGER NOT NULL DEFAULT -1,
  live_count INTEGER NOT NULL DEFAULT 0,
  deleted_count INTEGER NOT NULL DEFAULT 0,
  completeness INTEGER,
  cb_tripped INTEGER NOT NULL DEFAULT 0,
  cb_info TEXT,
  settings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS dataset_indexes (
  dataset INTEGER NOT NULL REFERENCES datasets(num) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  expression TEXT NOT NULL,
  created_ts INTEGER NOT NULL,
  PRIMARY KEY (dataset, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dataset_versions (
  dataset INTEGER PRIMARY KEY REFERENCES datasets(num) ON DELETE CASCADE,
  versions INTEGER NOT NULL,
  removed INTEGER NOT NULL DEFAULT 0,
  compacted_ts INTEGER,
  compacted_until INTEGER NOT NULL DEFAULT -1
);
CREATE TABLE IF NOT EXISTS config (
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  grp TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  updated_ts INTEGER NOT NULL,
  PRIMARY KEY (kind, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS config_history (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS config_history_id ON config_history(id, seq);
CREATE TABLE IF NOT EXISTS env (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS secrets (
  scope TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (scope, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS users (
  email TEXT PRIMARY KEY,
  password_hash TEXT NOT NULL,
  principals TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS push_sequences (
  pipe TEXT PRIMARY KEY,
  sequence_id TEXT NOT NULL,
  is_full INTEGER NOT NULL,
  last_request_id TEXT,
  started_ts INTEGER NOT NULL,
  changes INTEGER NOT NULL DEFAULT 0,
  base_count INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS push_seen (
  pipe TEXT NOT NULL,
  eid TEXT NOT NULL,
  PRIMARY KEY (pipe, eid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;
