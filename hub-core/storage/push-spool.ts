import { close, mkdirSync, openSync, readdirSync, readSync, rm, rmSync, write } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { PreparedEntity } from '../base/index.js';

const READ_CHUNK = 1024 * 1024;
const NEWLINE = 0x0a;

/** Entities as lines of a spool file (see {@link PushSpool}): what a parser worker makes for the hub's thread to append. */
export function spoolText(entities: readonly PreparedEntity[]): string {
  let text = '';
  for (const p of entities) text += p.hash + (p.deleted ? '1' : '0') + JSON.stringify(p.id) + '\t' + p.body + '\n';
  return text;
}

/** Lines of a spool file made elsewhere (a parser worker), and the number of entities they hold. */
export interface SpoolLines {
  readonly bytes: Uint8Array;
  readonly count: number;
}

/**
 * The entities of one large push, prepared (and transformed) as they arrived, kept in a file until the whole body has
 * been read: memory stays bounded whatever the body's size, and the write at the end is still all or nothing.
 * One line per entity: its hash (32 hex digits), 0 or 1 for deleted, its `_id` as JSON, a tab, its body as JSON.
 * JSON text holds no raw tab or newline (JSON.stringify escapes every control character), so these separate safely.
 */
export class PushSpool {
  private readonly path: string;
  private fd: number | undefined;
  private entities = 0;
  /** The append under way (settled). */
  private writing: Promise<void> = Promise.resolve();

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, `${randomUUID()}.spool`);
    this.fd = openSync(this.path, 'w+', 0o600);
  }

  /** Remove what pushes of an earlier run left (the hub stopped in the middle of one). */
  static clear(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) if (name.endsWith('.spool')) rmSync(join(dir, name), { force: true });
  }

  get count(): number {
    return this.entities;
  }

  /**
   * Add entities at the end (one append at a time: the caller waits for each). Written without holding the event loop:
   * while several large pushes arrive, the kernel may hold a write back until it has written out what is dirty.
   */
  async append(entities: readonly PreparedEntity[]): Promise<void> {
    if (entities.length === 0) return;
    await this.appendLines([{ bytes: Buffer.from(spoolText(entities)), count: entities.length }]);
  }

  /**
   * Add lines made by {@link spoolText} (in a worker: the hub's thread only hands the bytes to the file), one append at
   * a time as {@link append}.
   */
  async appendLines(parts: readonly SpoolLines[]): Promise<void> {
    const fd = this.open();
    const writing = (async () => {
      for (const part of parts) {
        let bytes = part.bytes;
        while (bytes.length > 0) {
          const n = await new Promise<number>((resolve, reject) => write(fd, bytes, (e, written) => (e ? reject(e) : resolve(written))));
          bytes = bytes.subarray(n);
        }
      }
    })();
    this.writing = writing.catch(() => undefined);
    await writing;
    for (const part of parts) this.entities += part.count;
  }

  /** The spooled entities in the order they came, `size` at a time, read from the file as they are asked for. */
  *batches(size: number): Generator<PreparedEntity[]> {
    const fd = this.open();
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    let position = 0;
    let carry: Buffer | undefined;
    let batch: PreparedEntity[] = [];
    for (;;) {
      const n = readSync(fd, buffer, 0, READ_CHUNK, position);
      if (n === 0) break;
      position += n;
      let data = buffer.subarray(0, n);
      if (carry) data = Buffer.concat([carry, data]);
      const last = data.lastIndexOf(NEWLINE);
      if (last < 0) {
        carry = Buffer.from(data);
        continue;
      }
      carry = last + 1 < data.length ? Buffer.from(data.subarray(last + 1)) : undefined;
      const lines = data.toString('utf8', 0, last).split('\n');
      for (const line of lines) {
        const tab = line.indexOf('\t', 33);
        batch.push({ hash: line.slice(0, 32), deleted: line.charCodeAt(32) === 0x31, id: JSON.parse(line.slice(33, tab)) as string, body: line.slice(tab + 1) });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
    }
    if (carry) throw new Error(`push spool ${this.path}: the file ends inside a line`);
    if (batch.length > 0) yield batch;
  }

  /** Close and delete the file (off the event loop: a large file takes a while to delete). */
  async discard(): Promise<void> {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      // Closed once a write under way is over: its descriptor might otherwise be another file's by then.
      await this.writing;
      await new Promise<void>((resolve) => close(fd, () => resolve()));
    }
    await new Promise<void>((resolve) => rm(this.path, { force: true }, () => resolve()));
  }

  private open(): number {
    if (this.fd === undefined) throw new Error('the push spool was discarded');
    return this.fd;
  }
}
