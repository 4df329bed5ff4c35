// Runs every pipe of a hub until nothing changes: the engine behind `datahub test`/`datahub run` (project-runner.ts)
// and the hosted service's internal scheduler, `POST /pipes/run-all-pipes`, which its command-line client uses for
// `sesam run` and `sesam test`. Optionally first resets the pumps and deletes the sink datasets, then pumps every pipe,
// upstream pipes first, round after round until `extraZeroRuns` rounds in a row change nothing (or a limit is hit),
// keeping a log the client prints as it goes. One run at a time per hub (RunAllService).

import { randomUUID } from 'node:crypto';
import type { PipeRegistry } from './pipes.js';
import type { DatasetStore } from '../storage/index.js';
import type { EnvStore } from '../security/index.js';
import type { PumpService } from './pump-operations.js';
import { checkPipeConfig, effectivePipeConfig, pipeDependencies, type EffectivePipe } from './pipe-config.js';
import { isPumpable } from './pump-runner.js';
import { SOURCES } from './sources/index.js';
import { conflict } from '../base/index.js';
import { isJsonObject, type JsonValue } from '../base/index.js';

export interface RunAllOptions {
  /** Rounds in a row that change nothing before the run counts as finished (at least 1). */
  extraZeroRuns: number;
  /** At most this many rounds. */
  maxRuns: number;
  /** Give up (failed) after this many seconds; null: no limit. */
  maxRunTime: number | null;
  /** Reset every pump and delete every sink dataset first. */
  resetPipesAndDeleteSinkDatasets: boolean;
  /** With the reset: also delete the datasets of input pipes (embedded sources, HTTP receivers). */
  deleteInputDatasets: boolean;
  /** A failing input pipe fails the run too (otherwise only other pipes do). */
  checkInputPipes: boolean;
  /** Per-pipe statistics in `additional_info`. */
  outputRunStatistics: boolean;
  /** Run only these pipes and the pipes upstream of them (`datahub test --pipe`); all pipes when left out. */
  only?: readonly string[];
}

/** The hosted service's defaults, as its client relies on them. */
export const RUN_ALL_DEFAULTS: RunAllOptions = {
  extraZeroRuns: 2,
  maxRuns: 100,
  maxRunTime: 15 * 60,
  resetPipesAndDeleteSinkDatasets: true,
  deleteInputDatasets: true,
  checkInputPipes: false,
  outputRunStatistics: false,
};

export interface PipeRunSummary {
  pipe: string;
  /** Runs of the pipe over all rounds (0: the hub cannot pump it). */
  runs: number;
  processed: number;
  changes: number;
  /**
   * `offline`: the pipe needs something no offline hub has (an outside system, a microservice, a system the project
   * lacks); what it read or would have sent is said in `error` (its sink's requests are in the outbox).
   */
  status: 'ok' | 'failed' | 'skipped' | 'offline';
  /** The reason of the last failure, why the pipe was skipped, or why it is offline. */
  error: string | null;
  /** For a failed pipe in a project: its file and the line its error points at ("pipes/x.conf.json:12"). */
  location?: string | null;
  /** Milliseconds its runs took, over all rounds. */
  ms?: number;
}

export interface RunAllLogLine {
  timestamp: string;
  loglevel: 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';
  logdata: string;
}

export type RunAllStatus = 'running' | 'success' | 'failed';

/** For each dataset, the pipes whose dataset sink writes it. */
function datasetWriters(pipes: ReadonlyMap<string, EffectivePipe>): Map<string, string[]> {
  const writers = new Map<string, string[]>();
  for (const [id, p] of pipes) {
    const ds = p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
    if (ds !== undefined) writers.set(ds, [...(writers.get(ds) ?? []), id]);
  }
  return writers;
}

/** The datasets a pipe reads: its source's and those its transform hops into. */
function pipeInputs(p: EffectivePipe): string[] {
  return [...pipeDependencies(p), ...transformDatasets(p['transform'])].sort();
}

/** The given pipes and every pipe upstream of them (writing a dataset they read, transitively). */
export function upstreamClosure(pipes: ReadonlyMap<string, EffectivePipe>, ids: readonly string[]): Set<string> {
  const writers = datasetWriters(pipes);
  const closure = new Set<string>();
  const visit = (id: string): void => {
    if (closure.has(id) || !pipes.has(id)) return;
    closure.add(id);
    for (const ds of pipeInputs(pipes.get(id)!)) for (const w of writers.get(ds) ?? []) visit(w);
  };
  ids.forEach(visit);
  return closure;
}

/** Pipe ids ordered so that a pipe reading (or hopping into) a dataset comes after the pipes writing it. */
export function pipeRunOrder(pipes: ReadonlyMap<string, EffectivePipe>): string[] {
  const writers = datasetWriters(pipes);
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string): void => {
    if (state.has(id)) return; // done, or a cycle: the repeated rounds settle cycles
    state.set(id, 'visiting');
    const p = pipes.get(id)!;
    for (const ds of pipeInputs(p)) {
      for (const w of writers.get(ds) ?? []) if (w !== id) visit(w);
    }
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of [...pipes.keys()].sort()) visit(id);
  return order;
}

/** Datasets a transform or source reaches into: `datasets` of hops specs and multi-dataset sources ("name alias"). */
export function transformDatasets(value: JsonValue | undefined): string[] {
  const out: string[] = [];
  const walk = (v: JsonValue | undefined): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isJsonObject(v)) {
      const ds = v['datasets'];
      if (Array.isArray(ds)) for (const d of ds) if (typeof d === 'string') out.push(d.trim().split(/\s+/)[0]!);
      // A source that names one dataset (for example a conditional source's dataset alternative).
      if (typeof v['dataset'] === 'string' && v['type'] === 'dataset') out.push(v['dataset']);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return out;
}

/**
 * For each pipe, the pipes before it in `order` it must wait for in a round: those that write a dataset it reads or
 * writes, or read the dataset it writes. A dataset named anywhere in a transform counts as read (lookup-entity too).
 */
export function roundBlockers(order: readonly string[], pipes: ReadonlyMap<string, EffectivePipe>): Map<string, string[]> {
  const written = new Map<string, Set<string>>();
  for (const [id, p] of pipes) {
    const ds = p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
    written.set(id, new Set(ds === undefined ? [] : [ds]));
  }
  const allWritten = new Set([...written.values()].flatMap((w) => [...w]));
  const read = new Map<string, Set<string>>();
  for (const [id, p] of pipes) {
    const text = JSON.stringify(p['transform'] ?? null) + JSON.stringify(p.source);
    read.set(id, new Set([...pipeInputs(p), ...[...allWritten].filter((ds) => text.includes(JSON.stringify(ds)))]));
  }
  const meets = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => [...a].some((x) => b.has(x));
  const out = new Map<string, string[]>();
  order.forEach((id, j) => {
    const w = written.get(id)!;
    const r = read.get(id)!;
    out.set(
      id,
      order.slice(0, j).filter((before) => {
        const bw = written.get(before)!;
        return meets(bw, r) || meets(bw, w) || meets(w, read.get(before)!);
      }),
    );
  });
  return out;
}

/** An input pipe gets its entities from outside the hub: embedded test data or an HTTP receiver (a conditional source's chosen alternative counts). */
function isInputPipe(pipe: EffectivePipe, env: (name: string) => string | undefined): boolean {
  let source: JsonValue = pipe.source;
  if (isJsonObject(source) && source['type'] === 'conditional' && isJsonObject(source['alternatives'])) {
    const condition = typeof source['condition'] === 'string' ? source['condition'].replace(/\$ENV\(([^)]*)\)/g, (_m, n: string) => env(n) ?? '') : '';
    source = source['alternatives'][condition] ?? null;
  }
  return isJsonObject(source) && (source['type'] === 'embedded' || source['type'] === 'http_endpoint');
}

/** What a run of all pipes uses of the hub (the Hub itself provides it; hub.ts imports this module). */
export interface RunAllHub {
  readonly pipes: PipeRegistry;
  readonly datasets: DatasetStore;
  readonly env: EnvStore;
  readonly pumps: PumpService;
}

type Hub = RunAllHub;

/** Wait for a pipe's runs to end. */
async function settled(hub: Hub, id: string): Promise<void> {
  while (hub.pumps.isRunning(id)) await new Promise((r) => setTimeout(r, 2));
}

/** One run of all pipes: its log, its state while it goes and its result. */
export class RunAll {
  readonly token = randomUUID();
  readonly startedAt = new Date().toISOString();
  endedAt: string | null = null;
  status: RunAllStatus = 'running';
  additionalInfo: string | null = null;
  rounds = 0;
  /** The last `extraZeroRuns` rounds changed nothing. */
  converged = false;
  pipes: PipeRunSummary[] = [];
  readonly log: RunAllLogLine[] = [];
  readonly done: Promise<void>;
  private stopRequested: string | null = null;
  /** The pipes running now. */
  private readonly current = new Set<string>();
  private lastMs = 0;

  constructor(
    private readonly hub: Hub,
    readonly options: RunAllOptions,
  ) {
    this.done = this.execute().catch((e: unknown) => {
      this.fail(`the run of all pipes crashed: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  /** Ask the run to end (it ends "failed" with the reason); the pipe running now stops after its current batch. */
  stop(reason: string): void {
    if (this.status !== 'running' || this.stopRequested !== null) return;
    this.stopRequested = reason;
    this.write('WARNING', `Stopping: ${reason}`);
    for (const id of this.current) void this.hub.pumps.runner.stop(id);
  }

  /** Log lines after `since` (a timestamp of an earlier line), oldest first. */
  linesSince(since: string | undefined): RunAllLogLine[] {
    return since === undefined ? [...this.log] : this.log.filter((l) => l.timestamp > since);
  }

  private write(loglevel: RunAllLogLine['loglevel'], logdata: string): void {
    // Strictly increasing timestamps, so that `since` (the last timestamp a client saw) never skips a line.
    const ms = Math.max(Date.now(), this.lastMs + 1);
    this.lastMs = ms;
    this.log.push({ timestamp: new Date(ms).toISOString(), loglevel, logdata });
  }

  private fail(info: string): void {
    this.write('ERROR', info);
    this.additionalInfo = info;
    this.status = 'failed';
    this.endedAt = new Date().toISOString();
  }

  /**
   * One round with pipes running side by side, at most `limit` at a time: a pipe starts once every pipe before it in
   * the run order that it shares a dataset with (one writes what the other reads or writes) has ended, so every
   * dataset ends the round as it would one pipe after the other.
   */
  private async roundInParallel(order: readonly string[], blockers: ReadonlyMap<string, string[]>, limit: number, runPipe: (id: string) => Promise<void>): Promise<void> {
    const done = new Set<string>();
    const started = new Set<string>();
    const workers = this.hub.pumps.workers;
    let active = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const next = (): void => {
          if (this.stopRequested === null) {
            for (const id of order) {
              if (active >= limit) break;
              if (started.has(id) || !(blockers.get(id) ?? []).every((b) => done.has(b))) continue;
              started.add(id);
              active++;
              runPipe(id).then(() => {
                done.add(id);
                active--;
                next();
              }, reject);
            }
          }
          // Pipes side by side take a worker each; a pipe that runs alone may be read in parts by all of them.
          workers.readInParts = active <= 1;
          if (active === 0) resolve();
        };
        next();
      });
    } finally {
      workers.readInParts = true;
    }
  }

  private async execute(): Promise<void> {
    await new Promise((r) => setImmediate(r)); // the caller gets the handle (and its token) first
    const { hub, options } = this;
    const env = (name: string): string | undefined => hub.env.get(name);
    const effective = new Map<string, EffectivePipe>();
    for (const id of hub.pipes.ids()) effective.set(id, effectivePipeConfig(hub.pipes.require(id)));
    const closure = options.only === undefined ? undefined : upstreamClosure(effective, options.only);
    const order = pipeRunOrder(effective).filter((id) => closure === undefined || closure.has(id));
    const inputs = new Set(order.filter((id) => isInputPipe(effective.get(id)!, env)));
    this.write('INFO', `Running ${order.length} pipe(s): ${order.join(', ') || '(none)'}`);

    if (options.resetPipesAndDeleteSinkDatasets) {
      let reset = 0;
      const deleted: string[] = [];
      for (const id of order) {
        if (inputs.has(id) && !options.deleteInputDatasets) continue;
        await hub.pumps.runner.stop(id);
        resetPump(hub, id);
        reset++;
        const sink = effective.get(id)!.sink;
        const name = sink.type === 'dataset' && typeof sink['dataset'] === 'string' ? sink['dataset'] : undefined;
        if (name !== undefined && hub.datasets.get(name) !== undefined) {
          hub.datasets.delete(name);
          deleted.push(name);
        }
      }
      this.write('INFO', `Reset ${reset} pipe(s) and deleted ${deleted.length} sink dataset(s)${deleted.length > 0 ? `: ${deleted.join(', ')}` : ''}`);
    }

    const summaries = new Map<string, PipeRunSummary>();
    for (const id of order) {
      const p = effective.get(id)!;
      const pumpable = isPumpable(p);
      const receiver = p.source.type === 'http_endpoint';
      // A type no one knows (a typo, say) is an error of the pipe, as serving it would be; a type this hub knows but
      // does not pump (it runs on the service) is skipped.
      const unknown = pumpable ? [] : checkPipeConfig(hub.pipes.require(id)).filter((e) => e.level === 'error' && /^\$\.(source|sink)\.type$/.test(e.elements));
      summaries.set(id, {
        pipe: id,
        runs: 0,
        processed: 0,
        changes: 0,
        ms: 0,
        status: pumpable ? 'ok' : unknown.length > 0 ? 'failed' : receiver || SOURCES.has(p.source.type) ? 'skipped' : 'offline',
        error: pumpable ? null : unknown.length > 0 ? unknown.map((e) => `${e.elements}: ${e.msg}`).join('; ') : receiver ? 'it receives its entities over HTTP (JSON Push)' : notPumpedReason(p),
      });
      if (unknown.length > 0) this.write('ERROR', `Pipe '${id}' failed: ${summaries.get(id)!.error!}`);
      else if (!pumpable && !receiver) this.write('WARNING', `Pipe '${id}' is ${summaries.get(id)!.status}: ${summaries.get(id)!.error!}`);
    }
    this.pipes = order.map((id) => summaries.get(id)!);

    const deadline = options.maxRunTime === null ? undefined : Date.now() + options.maxRunTime * 1000;
    const timer = deadline === undefined ? undefined : setTimeout(() => this.stop(`max_run_time of ${options.maxRunTime} seconds reached`), deadline - Date.now());
    timer?.unref();
    try {
      // A pipe with a dataset source reads only what is new, so it runs every round. A pipe whose source is read
      // another way runs again only when a dataset its source or transform reaches into has changed since its last
      // run: otherwise its output cannot differ, and values like ["now"] would keep the rounds going for ever.
      const hopMarks = new Map<string, string>();
      const marks = (names: readonly string[]): string => JSON.stringify(names.map((n) => hub.datasets.get(n)?.row().max_updated ?? -1));
      const allMarks = (): string => marks(hub.datasets.names().filter((n) => !n.startsWith('system:')).sort());
      const zeroNeeded = Math.max(1, options.extraZeroRuns);
      let zeroRounds = 0;
      // One pipe's run in a round.
      const runPipe = async (id: string): Promise<void> => {
        const s = summaries.get(id)!;
        const p = effective.get(id)!;
        if (s.status === 'skipped' || !isPumpable(p)) return;
        // A source read whole (embedded, merge, union, conditional, ...) reruns when what it reads or joins changed.
        const hops = [...transformDatasets(p['transform']), ...transformDatasets(p.source)];
        if (p.source.type !== 'dataset' && hopMarks.get(id) === marks(hops)) return;
        await settled(hub, id);
        this.current.add(id);
        const began = performance.now();
        hub.pumps.runner.start(id, 'incremental', 'manual');
        await settled(hub, id);
        s.ms = Math.round((s.ms ?? 0) + performance.now() - began);
        this.current.delete(id);
        hopMarks.set(id, marks(hops));
        const last = hub.pumps.state.get(id).lastRun;
        s.runs++;
        if (!last) return;
        s.processed += last.processed;
        s.changes += last.changes;
        if (last.status === 'failed' && last['unset_variable'] === true) {
          // A variable the environment does not set (a test env that lacks it): this pipe cannot run, the others do.
          s.status = 'skipped';
          s.error = `not run: ${last.reason_why_stopped ?? ''}`;
          this.write('WARNING', `Pipe '${id}' is not run: ${last.reason_why_stopped ?? ''}`);
        } else if (last.status === 'failed') {
          s.status = 'failed';
          s.error = last.reason_why_stopped ?? 'the run failed';
          this.write('ERROR', `Pipe '${id}' failed: ${s.error}`);
        } else if (last['offline'] === true) {
          s.status = 'offline';
          s.error = typeof last['offline_reason'] === 'string' ? last['offline_reason'] : 'it needs an outside system';
          this.write('WARNING', `Pipe '${id}' is offline: ${s.error}`);
        } else if (s.status !== 'offline') {
          // An offline pipe stays offline for the rest of the rounds: a later run with nothing to send says nothing new.
          s.status = 'ok';
          s.error = null;
          if (last.changes > 0) this.write('INFO', `Pipe '${id}': ${last.processed} processed, ${last.changes} changed`);
        }
      };
      // With pipe workers, pipes that share no dataset run at the same time (see roundInParallel).
      const concurrency = hub.pumps.workers.enabled ? hub.pumps.workers.count : 1;
      const blockers = concurrency > 1 ? roundBlockers(order, effective) : new Map<string, string[]>();
      while (this.rounds < options.maxRuns && this.stopRequested === null) {
        this.rounds++;
        const before = allMarks();
        if (concurrency <= 1) {
          for (const id of order) {
            if (this.stopRequested !== null) break;
            await runPipe(id);
          }
        } else await this.roundInParallel(order, blockers, concurrency, runPipe);
        if (this.stopRequested !== null) break;
        const changed = allMarks() !== before;
        zeroRounds = changed ? 0 : zeroRounds + 1;
        this.write('INFO', `Round ${this.rounds} done: ${changed ? 'datasets changed' : `no changes (${zeroRounds} of ${zeroNeeded} such rounds)`}`);
        if (zeroRounds >= zeroNeeded) {
          this.converged = true;
          break;
        }
      }
    } finally {
      if (timer) clearTimeout(timer);
    }

    const failed = this.pipes.filter((p) => p.status === 'failed' && (options.checkInputPipes || !inputs.has(p.pipe)));
    for (const p of this.pipes) {
      if (p.status === 'failed' && !failed.includes(p)) this.write('WARNING', `Input pipe '${p.pipe}' failed (not counted: check_input_pipes is off): ${p.error ?? ''}`);
    }
    const stats = options.outputRunStatistics
      ? `\n${this.pipes.map((p) => `  ${p.pipe}: ${p.status === 'skipped' ? `skipped (${p.error ?? ''})` : `${p.runs} run(s), ${p.processed} processed, ${p.changes} changed${p.status === 'failed' ? `, failed: ${p.error ?? ''}` : ''}`}`).join('\n')}`
      : '';
    if (this.stopRequested !== null) return this.fail(`The run of all pipes was stopped after ${this.rounds} round(s): ${this.stopRequested}${stats}`);
    if (failed.length > 0) {
      return this.fail(`${failed.length} pipe(s) failed: ${failed.map((p) => `'${p.pipe}': ${p.error ?? 'the run failed'}`).join('; ')}${stats}`);
    }
    if (!this.converged) return this.fail(`The pipes were still changing after max_runs (${options.maxRuns}) rounds${stats}`);
    this.additionalInfo = `Ran ${this.pipes.filter((p) => p.status !== 'skipped').length} pipe(s) in ${this.rounds} round(s) until ${zeroText(options.extraZeroRuns)} changed nothing${stats}`;
    this.write('INFO', this.additionalInfo);
    this.status = 'success';
    this.endedAt = new Date().toISOString();
  }
}

function zeroText(n: number): string {
  return n <= 1 ? 'a round' : `${n} rounds in a row`;
}

/** Back to the start: position, rescans, dependency tracking and retries go; the disable switch and webhook token stay. */
export function resetPump(hub: Hub, id: string): void {
  const state = hub.pumps.state;
  const keep = state.get(id);
  state.transaction(() => {
    state.delete(id);
    state.update(id, (s) => {
      s.disabled = keep.disabled;
      s.webhookToken = keep.webhookToken;
      s.runs = keep.runs;
      s.lastRun = keep.lastRun;
    });
  });
  hub.pumps.runtimes.forget(id);
}

/** The runs of all pipes of one hub: at most one at a time; finished ones are kept (by token) until the hub stops. */
export class RunAllService {
  private current: RunAll | undefined;
  private readonly byToken = new Map<string, RunAll>();

  constructor(private readonly hub: Hub) {}

  /** Start a run; a second one while one runs is refused (409) with the running one's token. */
  start(options: RunAllOptions): RunAll {
    if (this.current && this.current.status === 'running') {
      throw conflict(
        'a run of all pipes is already running',
        `it started at ${this.current.startedAt} (token ${this.current.token}); wait for it (GET /pipes/get-pipe-runner-status?token=${this.current.token}) or stop it (POST /pipes/stop-run-all-pipes)`,
      );
    }
    const run = new RunAll(this.hub, options);
    this.current = run;
    this.byToken.set(run.token, run);
    if (this.byToken.size > 50) this.byToken.delete(this.byToken.keys().next().value!);
    return run;
  }

  /** The run with this token; without a token the running (or else the last) one. */
  get(token?: string): RunAll | undefined {
    return token === undefined ? this.current : this.byToken.get(token);
  }

  running(): RunAll | undefined {
    return this.current?.status === 'running' ? this.current : undefined;
  }

  /** Stop the running run and wait up to `timeoutMs` for it to end; undefined when none runs. */
  async stop(timeoutMs: number): Promise<{ run: RunAll; ended: boolean } | undefined> {
    const run = this.running();
    if (!run) return undefined;
    run.stop('stopped by request (POST /pipes/stop-run-all-pipes)');
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([run.done.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)))]);
    if (timer) clearTimeout(timer);
    return { run, ended };
  }
}

/** Why a pipe this hub knows but does not pump is offline, in words. */
function notPumpedReason(p: EffectivePipe): string {
  if (!SOURCES.has(p.source.type)) {
    const system = typeof p.source['system'] === 'string' ? ` (system ${JSON.stringify(p.source['system'])})` : '';
    return `the ${p.source.type} source reads from an outside system${system}; this hub does not connect to it, so nothing was read`;
  }
  return `this hub does not pump a ${p.source.type} source into a ${p.sink.type} sink`;
}
