// The write-ahead log is checkpointed off the hub's thread (wal-checkpointer.ts): the connection that commits never
// copies the log into the database file itself (SQLite's default does, in the commit that passes 1,000 pages), a
// worker thread does it soon after, and the log then starts over instead of growing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, WalCheckpointer } from '../../../hub-core/storage/index.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

const size = (f: string): number => {
  try {
    return statSync(f).size;
  } catch {
    return 0;
  }
};

test('a large write leaves the copying to a worker: the writer only appends, the log is checkpointed soon after and starts over', async () => {
  const dir = tempDir('datahub-wal-');
  const file = join(dir, 'hub.db');
  const db = openDatabase(file, { durable: false });
  const checkpointer = new WalCheckpointer(db, file);
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const body = Buffer.alloc(1000, 1);
    const write = (rows: number): void => {
      for (let part = 0; part < rows / 100; part++) db.transaction(() => {
        for (let i = 0; i < 100; i++) insert.run(body);
      })();
    };
    const dbBefore = size(file);
    // 12 MB in 120 transactions, without a turn of the event loop: only the writer itself could checkpoint here.
    write(12_000);
    assert.ok(size(`${file}-wal`) > 12 * 1024 * 1024, `the log holds the write (${size(`${file}-wal`)} bytes)`);
    assert.equal(size(file), dbBefore, 'the writing connection copied nothing into the database file');
    // A worker checkpoints it within moments.
    for (let i = 0; i < 40 && size(file) < 11_000_000; i++) await sleep(100);
    assert.ok(size(file) > 11_000_000, `the database file holds the rows after the checkpoint (${size(file)} bytes)`);
    // The next writes start the log over from its beginning: it does not grow past what it held.
    const logBefore = size(`${file}-wal`);
    write(2000);
    assert.ok(size(`${file}-wal`) <= logBefore, `the log started over (${size(`${file}-wal`)} bytes, was ${logBefore})`);
    assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 14_000);
  } finally {
    await checkpointer.close();
    db.close();
    removeDir(dir);
  }
});
