// Writing a pump run's batches out: the sink opened for the run, retries and dead letters, the dataset sink's
// transactions (batches with their positions, dependencies and lineage records) and the circuit breaker.
import type { Dataset } from '../storage/index.js';
import { CircuitBreakerTripped } from '../storage/index.js';
import type { EffectivePipe } from './pipe-config.js';
import type { PumpState } from './pump-state.js';
import { heapExhausted, memoryLimitError } from '../dtl/index.js';
import type { JsonObject, PreparedEntity } from '../base/index.js';
import { HubError } from '../base/index.js';
import { SinkWriteError, idsOf, type LocalSink, type RemoteSink, type Sink, type sinkType } from './sinks/index.js';
import { maskedOutboxWriter } from './outbox.js';
import type { PipeRuntime } from './pipe-runtime.js';
import type { PackedDependencies } from './packed-dependencies.js';
import type { BatchLineage, Counters, OutBatch, RunHost } from './pump-run-types.js';

/** How a sink type opens its Sink for a run. */
export type SinkOpener = NonNullable<NonNullable<ReturnType<typeof sinkType>>['open']>;

/** A run's writer: `sink` once openSink has opened it; `pushFailed` once a remote sink refused a write. */
export interface RunWriter {
  openSink(full: boolean): Promise<Sink>;
  writeOut(
    out: JsonObject[],
    prepared: readonly PreparedEntity[] | undefined,
    deps: PackedDependencies,
    count: number,
    position: ((s: PumpState) => void) | undefined,
    lineage: BatchLineage | undefined,
  ): Promise<void>;
  writeLocal(s: LocalSink, batches: readonly OutBatch[]): void;
  readonly pushFailed: boolean;
}

/** The writer of one run of pipe `id`, counting into `c`. */
export function runWriter(
  host: RunHost,
  id: string,
  runId: string,
  runtime: PipeRuntime,
  pipe: EffectivePipe,
  c: Counters,
  batchSize: number,
  opener: SinkOpener,
): RunWriter {

  // A remote sink (the json sink pushes over HTTP) sends the pending retries first, and is finished after the last
  // batch unless one of its writes failed. A local sink is written inside each batch's transaction.
  const retry = retrySettings(pipe.pump);
  let sink: Sink | undefined;
  let pushFailed = false;
  let consecutiveErrors = 0;
  const sinkFailed = (failed: readonly { entity: JsonObject; attempts: number }[], error: SinkWriteError): void => {
    // Called inside a transaction: a failed entity is kept for a later run or, its retries used up, is dead.
    pushFailed = true;
    c.writeErrors += 1;
    const dead = failed.filter((f) => f.attempts >= retry.maxRetries);
    const again = failed.filter((f) => f.attempts < retry.maxRetries);
    const message = host.runtimes.mask(error.message);
    if (again.length > 0) host.state.putRetries(id, again, message);
    if (dead.length > 0) {
      host.state.removeRetries(id, idsOf(dead.map((f) => f.entity)));
      if (retry.deadLetter !== undefined) {
        host.datasets.open(retry.deadLetter).write(
          dead.map((f) => ({ _id: f.entity['_id'] ?? null, entity: f.entity, pipe: id, attempts: f.attempts, error: message, status: error.status })),
        );
      }
      c.dead += dead.length;
    }
  };
  const sendRetries = async (p: RemoteSink): Promise<void> => {
    const pending = host.state.retries(id);
    for (let i = 0; i < pending.length; i += batchSize) {
      const chunk = pending.slice(i, i + batchSize);
      const t = performance.now();
      try {
        await p.write(chunk.map((f) => f.entity));
        host.state.transaction(() => host.state.removeRetries(id, idsOf(chunk.map((f) => f.entity))));
        c.retriedOk += chunk.length;
      } catch (e) {
        if (!(e instanceof SinkWriteError)) throw e;
        host.state.transaction(() => sinkFailed(chunk.map((f) => ({ entity: f.entity, attempts: f.attempts + 1 })), e));
        c.retriedFailed += chunk.length;
      }
      c.sinkMs += performance.now() - t;
    }
  };
  const openSink = async (full: boolean): Promise<Sink> => {
    const opened = opener(pipe, {
      ...runtime.sinkContext(),
      pipeId: id,
      runId,
      full,
      dataset: () => host.pipes.sinkDataset(id),
      seen: {
        mark: (ids) => host.state.markSeen(id, ids),
        sql: () => host.state.seenSql(id),
        clear: () => host.state.clearSeen(id),
      },
      outbox: maskedOutboxWriter(host.state.outbox.writer(id, runId), (text) => host.runtimes.mask(text)),
    });
    if (!opened.local) await sendRetries(opened);
    return opened;
  };

  // Counted for the run's summary; kept per batch for a dataset sink, by the sink offsets the batch wrote up to.
  let sinkDs: Dataset | null | undefined;
  const sinkDataset = (): Dataset | undefined => (sinkDs ??= pipe.sink.type === 'dataset' ? host.pipes.sinkDataset(id) : null) ?? undefined;
  const recordLineage = (lineage: BatchLineage | undefined, before: number | undefined): void => {
    if (!lineage) return;
    host.state.lineage.count(lineage.text, lineage.origin, c.reasons);
    const until = before === undefined ? undefined : sinkDataset()?.row().max_updated;
    if (until !== undefined && until > before!) host.state.lineage.write(id, runId, until, lineage.text, lineage.origin);
  };
  // A transformed batch (prepared for the dataset sink when a pipe worker made it) written with the new position.
  const writeOut = async (
    out: JsonObject[],
    prepared: readonly PreparedEntity[] | undefined,
    deps: PackedDependencies,
    count: number,
    position: ((s: PumpState) => void) | undefined,
    lineage: BatchLineage | undefined,
  ): Promise<void> => {
    const recordDeps = (): void => {
      host.state.replaceDependenciesOf(id, deps);
      recordLineage(lineage, undefined);
    };
    // The batch's output is about to be written (and serialized): not with the heap already past the bound.
    const heap = heapExhausted();
    if (heap) throw memoryLimitError(heap);
    c.processed += count;
    const t = performance.now();
    const s = sink!;
    if (!s.local) {
      let error: SinkWriteError | undefined;
      if (out.length > 0) {
        try {
          await s.write(out);
          if (s.offline === true && !c.offline) {
            c.offline = true;
            c.offlineReason = host.runtimes.mask(sinkOfflineReason(pipe, s));
          }
        } catch (e) {
          // Without retry settings a refused write fails the run (the position stays where it was).
          if (!(e instanceof SinkWriteError) || !retry.enabled) throw e;
          error = e;
        }
      }
      host.state.transaction(() => {
        recordDeps();
        if (error) sinkFailed(out.map((entity) => ({ entity, attempts: 0 })), error);
        else c.succeeded += out.length;
        if (position) host.state.update(id, position);
      });
      c.sinkMs += performance.now() - t;
      if (error) {
        c.failed += out.length;
        consecutiveErrors += 1;
        if (retry.maxConsecutive !== undefined && consecutiveErrors >= retry.maxConsecutive) {
          throw new HubError(502, `${consecutiveErrors} consecutive write errors`, error.message);
        }
      } else consecutiveErrors = 0;
      return;
    }
    writeLocal(s, [{ out, prepared, deps, position, lineage }]);
    c.sinkMs += performance.now() - t;
  };
  // Transformed batches for the dataset sink written in one transaction, each with its position: when the writer is
  // behind, the batches the workers have ready share one commit. A batch that trips the circuit breaker ends it.
  const writeLocal = (s: LocalSink, batches: readonly OutBatch[]): void => {
    let tripped: CircuitBreakerTripped | undefined;
    host.state.transaction(() => {
      for (const b of batches) {
        host.state.replaceDependenciesOf(id, b.deps);
        const n = b.prepared ? b.prepared.length : b.out.length;
        const before = b.lineage ? sinkDataset()?.row().max_updated : undefined;
        if (n > 0) {
          try {
            c.changes += b.prepared ? s.writePrepared!(b.prepared) : s.write(b.out);
            c.succeeded += n;
          } catch (e) {
            // The trip must be committed with the batch's pending entities; rethrown after the commit.
            if (!(e instanceof CircuitBreakerTripped)) throw e;
            tripped = e;
            return;
          }
        }
        recordLineage(b.lineage, before);
        if (b.position) host.state.update(id, b.position);
      }
    });
    if (tripped) throw tripped;
  };

  return {
    openSink: async (full) => (sink = await openSink(full)),
    writeOut,
    writeLocal,
    get pushFailed() {
      return pushFailed;
    },
  };
}

interface RetrySettings {
  /** Refused entities are kept and retried (else a refused write fails the run). */
  enabled: boolean;
  /** Retries per entity, one per run, before it goes to the dead letter dataset. */
  maxRetries: number;
  deadLetter: string | undefined;
  /** Refused batches in a row that fail the run. */
  maxConsecutive: number | undefined;
}

/** The pump's write retry settings: retries happen when any of them is set. */
function retrySettings(pump: JsonObject): RetrySettings {
  const num = (k: string): number | undefined => {
    const v = pump[k];
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined;
  };
  const deadLetter = typeof pump['dead_letter_dataset'] === 'string' && pump['dead_letter_dataset'] !== '' ? pump['dead_letter_dataset'] : undefined;
  const maxRetries = num('max_retries_per_entity');
  const inRetryDataset = num('max_write_errors_in_retry_dataset');
  const maxConsecutive = num('max_consecutive_write_errors');
  return {
    enabled: deadLetter !== undefined || (maxRetries ?? 0) > 0 || (inRetryDataset ?? 0) > 0,
    maxRetries: Math.min(maxRetries ?? 5, 100),
    deadLetter,
    maxConsecutive: maxConsecutive !== undefined && maxConsecutive > 0 ? maxConsecutive : undefined,
  };
}

/** Why a sink's run went to the outbox, in words (its own reason, else its type's). */
export function sinkOfflineReason(pipe: EffectivePipe, sink: Sink): string {
  const own = (sink as { offlineReason?: string }).offlineReason;
  if (own !== undefined) return own;
  const system = typeof pipe.sink['system'] === 'string' ? ` (system ${JSON.stringify(pipe.sink['system'])})` : '';
  return `the ${pipe.sink.type} sink writes to an outside system${system}: what it would have sent is in the outbox`;
}
