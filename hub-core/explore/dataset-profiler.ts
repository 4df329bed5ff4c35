// Dataset profiles on demand: one pass over the latest versions, read on a connection of its own inside one read
// transaction (a consistent snapshot while pumps go on writing), page by page with the event loop free in between.
// A finished profile is kept with the offset it describes; the next request reads only the log after that offset.

import Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DatasetStore } from '../storage/index.js';
import { HubError, badRequest } from '../base/index.js';
import { ProfileState, type PropertyProfile } from './dataset-profile.js';
import { WriteTimeline, type TimelineBucket } from './write-timeline.js';

const PAGE = 2000;


export interface DatasetProfile {
  dataset: string;
  /** The offset (max `_updated`) the profile describes. */
  offset: number | null;
  entities: number;
  deleted: number;
  properties: PropertyProfile[];
  /** Values under property paths past the limit of tracked paths. */
  untracked: number;
  /** How it was made: a full pass, or the cached profile brought up to date from the log. */
  computed: 'full' | 'incremental' | 'cached';
  /** Writes per time bucket (from `_ts`) over the whole log up to `offset`. */
  timeline: { width: number; buckets: TimelineBucket[] };
}

export interface ProfileProgress {
  running: boolean;
  done: number;
  total: number;
}

interface Cached {
  generation: string;
  offset: number;
  state: ProfileState;
  timeline: WriteTimeline;
}

interface Job {
  promise: Promise<DatasetProfile>;
  abort: AbortController;
  done: number;
  total: number;
}


export class DatasetProfiler {
  private readonly cache = new Map<string, Cached>();
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly datasets: DatasetStore,
    private readonly file: string,
  ) {}

  /** The profile of the latest entities; `at`: as the dataset stood at that offset (not cached). */
  profile(name: string, at?: number): Promise<DatasetProfile> {
    const ds = this.datasets.require(name);
    if (at !== undefined && at < 0) throw badRequest('"at" must be an offset of 0 or more');
    const key = at === undefined ? name : `${name}\u0000${at}`;
    const running = this.jobs.get(key);
    if (running) return running.promise;
    const job: Job = { promise: Promise.resolve() as unknown as Promise<DatasetProfile>, abort: new AbortController(), done: 0, total: 0 };
    job.promise = this.compute(ds.name, ds.num, at, job).finally(() => this.jobs.delete(key));
    this.jobs.set(key, job);
    return job.promise;
  }

  progress(name: string): ProfileProgress {
    this.datasets.require(name);
    const job = this.jobs.get(name);
    return job ? { running: true, done: job.done, total: job.total } : { running: false, done: 0, total: 0 };
  }

  /** Stop a running profile of the latest entities; false when none runs. */
  cancel(name: string): boolean {
    this.datasets.require(name);
    const job = this.jobs.get(name);
    if (!job) return false;
    job.abort.abort();
    return true;
  }

  close(): void {
    for (const job of this.jobs.values()) job.abort.abort();
  }

  private async compute(name: string, num: number, at: number | undefined, job: Job): Promise<DatasetProfile> {
    // A connection per job: each holds its own read transaction, and the hub's connection goes on writing.
    const db = new Database(this.file, { readonly: true, fileMustExist: true });
    const log = `d${num}_log`;
    db.exec('BEGIN');
    try {
      const row = db.prepare('SELECT generation, max_updated, live_count, deleted_count FROM datasets WHERE num = ?').get(num) as
        | { generation: string; max_updated: number; live_count: number; deleted_count: number }
        | undefined;
      if (!row) throw new HubError(404, `dataset ${JSON.stringify(name)} not found`, 'it was deleted');
      const end = at === undefined ? row.max_updated : Math.min(at, row.max_updated);
      let computed: DatasetProfile['computed'] = 'cached';
      let state: ProfileState | undefined;
      let timeline: WriteTimeline | undefined;
      const cached = at === undefined ? this.cache.get(name) : undefined;
      if (cached && cached.generation === row.generation && cached.offset <= end) {
        if (cached.offset < end) {
          const delta = db.prepare(`SELECT count(*) FROM ${log} WHERE seq > ? AND seq <= ?`).pluck().get(cached.offset, end) as number;
          // A large change is cheaper to profile again than to replay.
          if (delta <= Math.max(1000, (row.live_count + row.deleted_count) / 4)) {
            job.total = delta;
            // The replay changes the cached state in place: until it has finished, nothing is cached.
            this.cache.delete(name);
            const next = await this.replay(db, log, cached.state, cached.timeline, cached.offset, end, job);
            if (next) {
              state = next;
              timeline = cached.timeline;
              computed = 'incremental';
            }
          }
        } else {
          state = cached.state;
          timeline = cached.timeline;
        }
      }
      if (!state || !timeline) {
        state = await this.fullPass(db, log, end, at, job, at === undefined ? row.live_count + row.deleted_count : 0);
        timeline = this.timeline(db, log, end);
        computed = 'full';
      }
      if (at === undefined) this.cache.set(name, { generation: row.generation, offset: end, state, timeline });
      db.exec('COMMIT');
      return {
        dataset: name,
        offset: end < 0 ? null : end,
        entities: state.entities,
        deleted: state.deleted,
        properties: state.properties(),
        untracked: state.untracked,
        computed,
        timeline: timeline.output(),
      };
    } finally {
      db.close();
    }
  }

  private async fullPass(db: Database.Database, log: string, end: number, at: number | undefined, job: Job, total: number): Promise<ProfileState> {
    const state = new ProfileState();
    // As of an earlier offset, a version is the latest when nothing superseded it or what did came after `at`.
    // (A large write under way lies after the dataset's end too, and supersedes versions read as the latest ones.)
    const latest = at === undefined ? `(superseded = 0 OR superseded > ${end})` : `(superseded = 0 OR seq IN (SELECT prev FROM ${log} WHERE seq > ${end} AND prev IS NOT NULL))`;
    const page = db.prepare(`SELECT seq, deleted, body FROM ${log} WHERE seq > ? AND seq <= ? AND ${latest} ORDER BY seq LIMIT ?`).raw();
    job.total = total;
    let cursor = -1;
    for (;;) {
      const rows = page.all(cursor, end, PAGE) as [number, number, string][];
      for (const [, deleted, body] of rows) state.addBody(body, deleted === 1);
      job.done += rows.length;
      if (rows.length < PAGE) break;
      cursor = rows[rows.length - 1]![0];
      await this.pause(job);
    }
    return state;
  }

  /** Bring a cached profile up to `end`: each new version replaces the one before it. Undefined when that went stale. */
  private async replay(
    db: Database.Database,
    log: string,
    state: ProfileState,
    timeline: WriteTimeline,
    from: number,
    end: number,
    job: Job,
  ): Promise<ProfileState | undefined> {
    const page = db.prepare(`SELECT seq, deleted, prev, body, ts FROM ${log} WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`).raw();
    const before = db.prepare(`SELECT deleted, body FROM ${log} WHERE seq = ?`).raw();
    let cursor = from;
    for (;;) {
      const rows = page.all(cursor, end, PAGE) as [number, number, number | null, string, number][];
      for (const [, deleted, prev, body, ts] of rows) {
        timeline.add(ts, deleted === 1 ? 2 : prev === null ? 0 : 1);
        if (prev !== null) {
          const old = before.get(prev) as [number, string] | undefined;
          if (old) state.removeBody(old[1], old[0] === 1);
        }
        state.addBody(body, deleted === 1);
      }
      job.done += rows.length;
      if (state.stale) return undefined;
      if (rows.length < PAGE) break;
      cursor = rows[rows.length - 1]![0];
      await this.pause(job);
    }
    return state;
  }

  private async pause(job: Job): Promise<void> {
    await nextTurn();
    if (job.abort.signal.aborted) throw new HubError(409, 'the profile was cancelled', 'ask for it again to start it anew');
  }

  private timeline(db: Database.Database, log: string, end: number): WriteTimeline {
    const span = db.prepare(`SELECT min(ts), max(ts) FROM ${log} WHERE seq <= ?`).raw().get(end) as [number | null, number | null];
    if (span[0] === null || span[1] === null) return new WriteTimeline();
    const width = WriteTimeline.widthFor(span[0], span[1]);
    const rows = db
      .prepare(
        `SELECT ts / ${width} AS b, sum(prev IS NULL AND deleted = 0), sum(prev IS NOT NULL AND deleted = 0), sum(deleted)
         FROM ${log} WHERE seq <= ? GROUP BY b ORDER BY b`,
      )
      .raw()
      .all(end) as [number, number, number, number][];
    return WriteTimeline.fromBuckets(span[0], span[1], rows);
  }

}
