// Whole-log compaction on a schedule, and giving freed space back to the OS (see dataset-compaction.ts for the rules).
//
// - Every `intervalMs` (DATAHUB_COMPACTION_INTERVAL_SECONDS, default 10 minutes) the datasets whose whole-log
//   compaction is due are compacted, each in steps of STEP_ENTITIES entities, one transaction per step with a turn
//   of the event loop between steps: readers and writers (pumps, JSON Push, pulls) wait at most one step.
// - Removed versions and deleted datasets leave free pages in the database file. New writes reuse them; and the
//   database is in incremental auto-vacuum mode, so they are handed back to the OS STEP_PAGES at a time (again one
//   step per turn), after which a checkpoint lets the file shrink.
// - A scheduled pass walks only the entities written since the last pass that left nothing behind; `compactNow` with
//   no start walks them all (the `compact` operation of POST /datasets/<id>, e.g. after keep_versions was lowered).

import type { Db } from './database.js';
import type { Dataset } from './dataset-log.js';
import type { DatasetStore } from './dataset-store.js';

const STEP_ENTITIES = 500;
const STEP_PAGES = 256;
const DEFAULT_INTERVAL_MS = 10 * 60_000;

export interface CompactionPass {
  dataset: string;
  removed: number;
  /** Versions beyond keep_versions left because a dependency-tracking pipe has not seen past them, or too young. */
  'held-off': number;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function configuredInterval(): number {
  const s = Number(process.env['DATAHUB_COMPACTION_INTERVAL_SECONDS']);
  return Number.isFinite(s) && s > 0 ? s * 1000 : DEFAULT_INTERVAL_MS;
}

export class CompactionService {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private started = false;
  private readonly active = new Map<Dataset, Promise<CompactionPass>>();
  private reclaiming: Promise<number> | undefined;

  constructor(
    private readonly db: Db,
    private readonly datasets: DatasetStore,
    private readonly intervalMs = configuredInterval(),
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    await Promise.all([...this.active.values()]);
    await this.reclaiming;
  }

  /** Compact every dataset that is due, then give free pages back. */
  async tick(): Promise<void> {
    for (const ds of this.datasets.list()) {
      if (!this.db.open) return;
      try {
        if (ds.wholeCompactionDue()) await this.compactNow(ds, ds.compactedUntil());
      } catch {
        // Deleted meanwhile, or the hub is closing: the next tick looks again.
      }
    }
    await this.reclaim();
  }

  /**
   * One whole-log pass over a dataset, in steps (a pass already under way is joined): the entities whose latest version
   * lies after `from` (the scheduled round starts where the last complete pass ended; asked for, a pass walks all).
   */
  compactNow(ds: Dataset, from = -1): Promise<CompactionPass> {
    const running = this.active.get(ds);
    if (running !== undefined) return running;
    const pass = (async (): Promise<CompactionPass> => {
      const end = ds.row().max_updated;
      const byAge = ds.expiresByAge();
      // keep_versions 0 walks the start of the log, the versions old enough to go, from its beginning.
      let cursor = byAge ? -1 : from;
      let removed = 0;
      let heldOff = 0;
      for (;;) {
        const step = byAge ? ds.expireWholeStep(cursor, STEP_ENTITIES) : ds.compactWholeStep(cursor, end, STEP_ENTITIES);
        removed += step.removed;
        heldOff += step.heldOff;
        if (step.next === undefined) break;
        cursor = step.next;
        await turn();
      }
      // With keep_versions 0 every version left is held off (by its age or the floor).
      if (byAge) heldOff = ds.storedVersions();
      ds.finishWholeCompaction(end, heldOff === 0);
      return { dataset: ds.name, removed, 'held-off': heldOff };
    })().finally(() => this.active.delete(ds));
    this.active.set(ds, pass);
    return pass;
  }

  /** Hand free pages back to the OS in small steps; resolves with the pages given back. */
  reclaim(): Promise<number> {
    if (this.reclaiming !== undefined) return this.reclaiming;
    this.reclaiming = (async (): Promise<number> => {
      let freed = 0;
      if ((this.db.pragma('auto_vacuum', { simple: true }) as number) !== 2) return 0;
      for (;;) {
        if (!this.db.open) return freed;
        const free = this.db.pragma('freelist_count', { simple: true }) as number;
        if (free === 0) break;
        this.db.pragma(`incremental_vacuum(${Math.min(free, STEP_PAGES)})`);
        freed += Math.min(free, STEP_PAGES);
        await turn();
      }
      if (freed > 0 && this.db.open) this.db.pragma('wal_checkpoint(PASSIVE)');
      return freed;
    })().finally(() => {
      this.reclaiming = undefined;
    });
    return this.reclaiming;
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.intervalMs);
    this.timer.unref();
  }
}
