import type { Db } from '../storage/index.js';
import type { PipeRegistry } from './pipes.js';
import { prepareEntity, PreparedEntities, type PreparedEntity } from '../base/index.js';
import type { PipeRuntime, PipeRuntimes } from './pipe-runtime.js';
import type { ConfigStore } from '../config/index.js';
import { DtlRuntimeError } from '../dtl/index.js';
import type { JsonObject } from '../base/index.js';
import { HubError, badRequest, conflict } from '../base/index.js';
import { parseJson } from '../base/index.js';
import type { SpoolLines, WriteResult } from '../storage/index.js';
import { PushSpool } from '../storage/index.js';
import { writeStagedPush } from './json-push-staged.js';
import type { PushParams, PushResult } from './json-push-types.js';

export type { PushParams, PushResult } from './json-push-types.js';

/** A push whose body arrives in parts (see {@link JsonPushReceiver.staged}). */
export interface StagedPush {
  /** Transform and keep one part (one at a time); throws (400) when the transform fails on one of them. */
  add(entities: readonly PreparedEntity[]): Promise<void>;
  /** The pipe keeps entities as they come (no transform): parts may come as spool lines made elsewhere (addLines). */
  readonly passesThrough: boolean;
  /** Keep one part as spool lines (hub-core/storage/push-spool.ts), made off the hub's thread; only when passesThrough. */
  addLines(parts: readonly SpoolLines[]): Promise<void>;
  /** Entities kept so far (after the transform). */
  readonly count: number;
  /**
   * Write them in parts, readers seeing them all at once at the end (json-push-staged.ts); `signal` aborted (the client
   * went away) takes them back.
   */
  commit(params: PushParams, signal?: AbortSignal): Promise<PushResult>;
  discard(): Promise<void>;
}

interface SequenceRow {
  sequence_id: string;
  is_full: number;
  last_request_id: string | null;
  changes: number;
  base_count: number;
}

/** Receives JSON Push batches for pipes with an `http_endpoint` source, including full syncs. Owns the push state. */
export class JsonPushReceiver {
  /** Per pipe, the end of the last push that came (pushes to one pipe are written one after another). */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly pipes: PipeRegistry,
    private readonly runtimes: PipeRuntimes,
    config: ConfigStore,
    /** Where large pushes are kept while they arrive (emptied here: a push the hub stopped in is gone). */
    private readonly spoolDir?: string,
  ) {
    if (spoolDir !== undefined) PushSpool.clear(spoolDir);
    // However a pipe goes (its endpoint, a replaced config group, a workspace reload), its push state goes with it.
    // Announced inside the deleting transaction: act once it is over, and only if the pipe is really gone.
    config.onChange((change) => {
      if (change.kind !== 'pipe' || change.entity !== undefined) return;
      setImmediate(() => {
        try {
          if (this.pipes.get(change.id) === undefined) this.forget(change.id);
        } catch {
          // The hub closed meanwhile: nothing to clean up any more.
        }
      });
    });
  }

  /** Drop a pipe's push state: a sequence in progress and what its full sync has seen. */
  forget(pipeId: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM push_sequences WHERE pipe = ?').run(pipeId);
      this.db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
    })();
  }

  /** Received entities go through the pipe's transform and sink step, as with any other source. */
  private transformed(runtime: PipeRuntime, prepared: readonly PreparedEntity[]): readonly PreparedEntity[] {
    if (runtime.passesThrough) return prepared;
    const out: PreparedEntity[] = [];
    const one: JsonObject[] = [];
    for (const p of prepared) {
      const entity = parseJson(p.body) as JsonObject;
      entity['_id'] = p.id;
      if (p.deleted) entity['_deleted'] = true;
      one[0] = entity;
      let outputs: JsonObject[];
      try {
        outputs = runtime.process(one);
      } catch (e) {
        if (e instanceof DtlRuntimeError || e instanceof HubError) {
          throw badRequest(`the transform of pipe ${JSON.stringify(runtime.id)} failed on entity ${JSON.stringify(p.id)}`, e.message);
        }
        throw e;
      }
      for (const o of outputs) out.push(prepareEntity(o, out.length));
    }
    return out;
  }

  /** The pipe's runtime, when it may receive: an http_endpoint source and no configuration errors. */
  private receiving(pipeId: string): PipeRuntime {
    const runtime = this.runtimes.of(this.pipes.require(pipeId));
    const pipe = runtime.pipe;
    if (pipe.source.type !== 'http_endpoint') {
      throw badRequest(`pipe ${JSON.stringify(pipeId)} does not receive entities`, `its source type is "${pipe.source.type}", not "http_endpoint"`);
    }
    if (!runtime.isValid) {
      throw conflict(`pipe ${JSON.stringify(pipeId)} has configuration errors`, runtime.errors.map((e) => e.msg).join('; '));
    }
    return runtime;
  }

  receive(pipeId: string, body: unknown, params: PushParams): PushResult {
    const runtime = this.receiving(pipeId);
    let prepared: readonly PreparedEntity[];
    if (body instanceof PreparedEntities) prepared = body.entities;
    else {
      const values = Array.isArray(body) ? body : body !== null && typeof body === 'object' ? [body] : undefined;
      if (!values) throw badRequest('the body must be a JSON array of entities (or one entity object)');
      prepared = values.map((v, i) => prepareEntity(v, i));
    }
    prepared = this.transformed(runtime, prepared);
    return this.write(pipeId, prepared, params);
  }

  /**
   * A large push, received in parts: each part is transformed as it arrives and kept in a spool file; `commit` writes
   * them all (all or nothing to readers, as for one request) and `discard` forgets them. Either ends the push.
   */
  staged(pipeId: string): StagedPush {
    if (this.spoolDir === undefined) throw new Error('this receiver has no folder for large pushes');
    const runtime = this.receiving(pipeId);
    const spool = new PushSpool(this.spoolDir);
    return {
      add: (entities) => spool.append(this.transformed(runtime, entities)),
      passesThrough: runtime.passesThrough,
      addLines: (parts) => {
        if (!runtime.passesThrough) throw new Error(`pipe ${JSON.stringify(pipeId)} transforms what it receives: add entities, not lines`);
        return spool.appendLines(parts);
      },
      get count() {
        return spool.count;
      },
      commit: (params, signal) =>
        this.inTurn(pipeId, async () => {
          try {
            // The pipe may have changed while the body arrived.
            this.receiving(pipeId);
            const dataset = this.pipes.sinkDataset(pipeId);
            return await writeStagedPush({
              db: this.db,
              pipeId,
              dataset,
              params,
              batches: (size) => spool.batches(size),
              advance: () => this.db.transaction(() => this.advanceSequence(pipeId, params, dataset.row().live_count))(),
              ...(signal ? { signal } : {}),
            });
          } finally {
            await spool.discard();
            // A large write fills SQLite's page cache (up to cache_size, 64 MB) with pages no one reads next: give it back.
            this.db.pragma('shrink_memory');
          }
        }),
      discard: () => spool.discard(),
    };
  }

  /** A push of one request (see receive), after the pushes to the same pipe that came before it. */
  receiveInTurn(pipeId: string, body: unknown, params: PushParams): Promise<PushResult> {
    return this.inTurn(pipeId, async () => this.receive(pipeId, body, params));
  }

  /** Run `work` after the pushes to the same pipe that came before it (a large one is written over many turns). */
  private inTurn<T>(pipeId: string, work: () => Promise<T>): Promise<T> {
    const before = this.turns.get(pipeId) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.turns.set(pipeId, settled);
    void settled.then(() => {
      if (this.turns.get(pipeId) === settled) this.turns.delete(pipeId);
    });
    return mine;
  }

  /** Write one request's entities in one transaction. */
  private write(pipeId: string, prepared: readonly PreparedEntity[], params: PushParams): PushResult {
    const dataset = this.pipes.sinkDataset(pipeId);

    // A write refused with 409 (the circuit breaker tripped, or is tripped) aborts the sequence. That abort, and the trip
    // the dataset recorded, must be committed: the error is thrown only after the transaction ends.
    let refused: HubError | undefined;
    const abort = (e: unknown): undefined => {
      if (!(e instanceof HubError && e.status === 409)) throw e;
      this.db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
      this.db.prepare('DELETE FROM push_sequences WHERE pipe = ?').run(pipeId);
      refused = e;
      return undefined;
    };
    const outcome = this.db.transaction((): PushResult | undefined => {
      const state = this.advanceSequence(pipeId, params, dataset.row().live_count);
      const isFull = params.isFull === true;
      const markSeen = isFull
        ? ((stmt) => (id: string) => void stmt.run(pipeId, id))(this.db.prepare('INSERT OR IGNORE INTO push_seen (pipe, eid) VALUES (?, ?)'))
        : undefined;
      const run = { changes: state?.changes ?? 0, baseCount: state?.base_count ?? dataset.row().live_count };
      const options = { force: params.force === true, run, ...(markSeen ? { seen: markSeen } : {}) };
      const result: WriteResult = { received: 0, written: 0, unchanged: 0, maxUpdated: dataset.row().max_updated };
      try {
        Object.assign(result, dataset.writePrepared(prepared, options));
      } catch (e) {
        return abort(e);
      }
      if (state) this.db.prepare('UPDATE push_sequences SET changes = ? WHERE pipe = ?').run(run.changes, pipeId);
      let deleted = 0;
      const ends = params.isLast === true || params.sequenceId === undefined;
      if (ends) {
        if (isFull) {
          try {
            deleted = dataset.deleteAllExcept('SELECT eid FROM push_seen WHERE pipe = ?', [pipeId], run);
          } catch (e) {
            // The deletions tripped the circuit breaker: they wait as uncommitted entities, the sync is aborted and
            // the dataset is not marked populated. (The entities of this last request are already written.)
            return abort(e);
          }
          dataset.setPopulated(true);
        }
        this.db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
        this.db.prepare('DELETE FROM push_sequences WHERE pipe = ?').run(pipeId);
      }
      return { ...result, deleted, populated: dataset.row().populated === 1, maxUpdated: dataset.row().max_updated };
    })();
    if (refused) throw refused;
    return outcome!;
  }

  private advanceSequence(pipeId: string, p: PushParams, liveCount: number): SequenceRow | undefined {
    if (p.sequenceId === undefined) {
      if (p.isFirst || p.isLast || p.previousRequestId) {
        throw badRequest('sequence parameters without sequence_id', 'is_first, is_last and previous_request_id belong to a sequence: send sequence_id too');
      }
      this.db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
      return undefined;
    }
    const current = this.db.prepare('SELECT * FROM push_sequences WHERE pipe = ?').get(pipeId) as SequenceRow | undefined;
    const isFull = p.isFull === true;
    if (p.isFirst === true || (!current && p.previousRequestId === undefined)) {
      this.db.prepare('DELETE FROM push_seen WHERE pipe = ?').run(pipeId);
      this.db
        .prepare(
          `INSERT INTO push_sequences (pipe, sequence_id, is_full, last_request_id, started_ts, changes, base_count) VALUES (?, ?, ?, ?, ?, 0, ?)
           ON CONFLICT(pipe) DO UPDATE SET sequence_id = excluded.sequence_id, is_full = excluded.is_full,
             last_request_id = excluded.last_request_id, started_ts = excluded.started_ts, changes = 0, base_count = excluded.base_count`,
        )
        .run(pipeId, p.sequenceId, isFull ? 1 : 0, p.requestId ?? null, Date.now(), liveCount);
      return this.db.prepare('SELECT * FROM push_sequences WHERE pipe = ?').get(pipeId) as SequenceRow;
    }
    if (!current || current.sequence_id !== p.sequenceId) {
      throw conflict(
        `unknown sequence ${JSON.stringify(p.sequenceId)} for pipe ${JSON.stringify(pipeId)}`,
        'a sequence starts with is_first=true; a newer sequence may have replaced this one - restart the sync',
      );
    }
    if ((current.is_full === 1) !== isFull) {
      throw badRequest('is_full changed within a sequence', 'send the same is_full value in every request of a sequence');
    }
    const retry = p.requestId !== undefined && p.requestId === current.last_request_id;
    if (!retry && p.previousRequestId !== current.last_request_id) {
      throw conflict(
        'request out of order',
        `previous_request_id ${JSON.stringify(p.previousRequestId ?? null)} does not match the last request ${JSON.stringify(current.last_request_id)}`,
      );
    }
    this.db.prepare('UPDATE push_sequences SET last_request_id = ? WHERE pipe = ?').run(p.requestId ?? null, pipeId);
    return current;
  }
}
