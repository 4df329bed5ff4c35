import type { ConfigStore, ConfigEntity } from '../config/index.js';
import type { DatasetStore } from '../storage/index.js';
import type { Dataset } from '../storage/index.js';
import { asConfigEntity, refuseDuplicateIds } from '../config/index.js';
import { IDS_INDEX, PUBLISHER_SINKS, effectivePipeConfig, pipeDependencies, type EffectivePipe } from './pipe-config.js';
import { hasErrors, type ConfigError } from '../base/index.js';
import { HubError, badRequest, notFound } from '../base/index.js';
import { parseIndexExpression } from '../storage/index.js';
import { compactionSettings } from '../storage/index.js';
import { isJsonObject, type JsonObject } from '../base/index.js';
import { pipeConfigErrors, scheduledPipe } from './pump-config.js';
import type { VariableContext } from '../config/index.js';
import type { LastRun } from './pump-state.js';
import { pipeRuntimeState, type PipeRuntimeState } from './pipe-runtime-state.js';

/** What pipe information needs to know of the pumps (PumpService provides it). */
export interface PumpStatus {
  isRunning(id: string): boolean;
  isDisabled(id: string, pipe: EffectivePipe): boolean;
  supportedOperations(pipe: EffectivePipe): string[];
  queues(id: string, pipe: EffectivePipe): JsonObject;
  runtimeSummary(id: string): JsonObject;
  /** The environment variables and the scheduler's state, for checking configurations. */
  variables(): VariableContext;
}

/** The run in progress: pipe information's `runtime.current-run`. */
export interface RunProgress extends JsonObject {
  run_type: string;
  start_time: string;
  processed: number;
  changes: number;
  failed: number;
}

export interface PipeInfo extends JsonObject {
  _id: string;
  cached_response_info: { age: number; timestamp: string };
  config: { original: ConfigEntity; effective: EffectivePipe };
  runtime: JsonObject & {
    'is-running': boolean;
    'is-valid-config': boolean;
    'is-disabled': boolean;
    'config-errors': ConfigError[] & JsonObject[];
    dependencies: string[];
    queues: JsonObject;
    'supported-operations': string[];
    /** The hosted service's pipe state (see pipe-runtime-state.ts). */
    state: PipeRuntimeState;
    // Additive fields (not in instance-api §2.3) so that one GET /pipes carries what a pipe list shows; a remote
    // service may leave them out.
    'is-rescanning'?: boolean;
    'current-run'?: RunProgress | null;
    'last-run'?: LastRun | null;
    'next-run'?: string | null;
  };
}

/** Pipe configurations: validation, storage, and the information the API reports. */
export class PipeRegistry {
  private pumps: PumpStatus | undefined;

  constructor(
    private readonly config: ConfigStore,
    private readonly datasets: DatasetStore,
  ) {}

  attachPumps(pumps: PumpStatus): void {
    this.pumps = pumps;
  }

  ids(): string[] {
    return this.config.list('pipe').map((p) => p._id);
  }

  get(id: string): ConfigEntity | undefined {
    return this.config.get('pipe', id);
  }

  require(id: string): ConfigEntity {
    const p = this.get(id);
    if (!p) throw notFound(`pipe ${JSON.stringify(id)}`);
    return p;
  }

  /** Check every configuration first; without `force` one error rejects the whole list. */
  validate(values: readonly unknown[], force: boolean): ConfigEntity[] {
    const problems: string[] = [];
    const entities = values.map((v, i) => {
      const e = asConfigEntity(v, `pipe #${i}`);
      // The type decides what a configuration entity is: not even `force` stores a system or metadata entity as a pipe.
      if (e.type !== 'pipe') {
        throw badRequest(`${e._id}: a pipe has "type": "pipe", not ${JSON.stringify(e.type)}`, 'systems and node metadata have endpoints of their own');
      }
      // Checked with the set variables replaced; an unset pump variable does not refuse an upload (it concerns the
      // schedule only, and the runtime's config-errors report it).
      const vars = this.pumps?.variables();
      const errors = pipeConfigErrors(e, vars && { env: vars.env, schedulerOff: () => true });
      if (hasErrors(errors)) problems.push(...errors.filter((x) => x.level === 'error').map((x) => `${e._id}: ${x.elements}: ${x.msg}`));
      return e;
    });
    refuseDuplicateIds(entities, 'pipe');
    if (problems.length > 0 && !force) {
      throw new HubError(400, 'invalid pipe configuration', problems.join('; '));
    }
    return entities;
  }

  save(entities: readonly ConfigEntity[]): void {
    this.config.transaction(() => {
      for (const e of entities) this.config.put(e);
    });
    for (const e of entities) this.syncSinkDataset(e, false);
  }

  delete(id: string): void {
    this.require(id);
    this.config.delete('pipe', id);
  }

  effective(id: string): EffectivePipe {
    return effectivePipeConfig(this.require(id));
  }

  info(id: string): PipeInfo {
    const original = this.require(id);
    const effective = effectivePipeConfig(original);
    const pumps = this.pumps;
    const vars = pumps?.variables();
    const errors = pipeConfigErrors(original, vars);
    // The schedule as it runs: pump settings with their variables replaced.
    const scheduled = vars ? scheduledPipe(original, vars.env) : effective;
    const pump = scheduled.pump;
    const running = pumps ? pumps.isRunning(id) : false;
    const disabled = pumps ? pumps.isDisabled(id, scheduled) : pump['mode'] !== 'scheduled';
    const summary = pumps ? pumps.runtimeSummary(id) : {};
    return {
      _id: id,
      cached_response_info: { age: 0, timestamp: new Date().toISOString() },
      config: { original, effective },
      runtime: {
        'is-running': running,
        'is-valid-config': !hasErrors(errors),
        'is-disabled': disabled,
        'config-errors': errors as ConfigError[] & JsonObject[],
        dependencies: pipeDependencies(effective),
        queues: pumps ? pumps.queues(id, effective) : {},
        'supported-operations': pumps ? pumps.supportedOperations(scheduled) : [],
        state: pipeRuntimeState(running, pump['mode'] === 'off' || (pump['mode'] === 'scheduled' && disabled), summary['last-run']),
        ...summary,
      },
    };
  }

  /** The dataset a pipe's sink writes, created on first use with the sink's indexes and breaker. */
  sinkDataset(id: string): Dataset {
    const pipe = this.require(id);
    const ds = this.syncSinkDataset(pipe, true);
    if (!ds) throw badRequest(`pipe ${JSON.stringify(id)} does not write to a dataset`);
    return ds;
  }

  private syncSinkDataset(pipe: ConfigEntity, create: boolean): Dataset | undefined {
    const eff = effectivePipeConfig(pipe);
    if (eff.sink.type !== 'dataset' || typeof eff.sink['dataset'] !== 'string') return undefined;
    const name = eff.sink['dataset'];
    const ds = create ? this.datasets.open(name) : this.datasets.get(name);
    if (!ds) return undefined;
    const indexes = eff.sink['indexes'];
    // Invalid expressions are reported as config-errors; a forced configuration keeps only the valid ones.
    if (Array.isArray(indexes)) for (const ix of indexes) if (ix === IDS_INDEX) ds.ensureIndex('_S.$ids');
    else if (isIndexExpression(ix)) ds.ensureIndex(ix);
    if (indexes === IDS_INDEX) ds.ensureIndex('_S.$ids');
    const count = eff.sink['circuit_breaker_threshold_count'];
    const factor = eff.sink['circuit_breaker_threshold_factor'];
    const settings = ds.settings();
    const wanted =
      typeof count === 'number' || typeof factor === 'number'
        ? {
            ...(typeof count === 'number' ? { thresholdCount: count } : {}),
            ...(typeof factor === 'number' ? { thresholdFactor: factor } : {}),
          }
        : undefined;
    const compaction = compactionSettings(pipe['compaction']);
    if (JSON.stringify(settings.circuitBreaker) !== JSON.stringify(wanted) || JSON.stringify(settings.compaction) !== JSON.stringify(compaction)) {
      const next = { ...settings, compaction };
      if (wanted) next.circuitBreaker = wanted;
      else delete next.circuitBreaker;
      ds.setSettings(next);
    }
    return ds;
  }
}


function isIndexExpression(ix: unknown): ix is string {
  try {
    parseIndexExpression(ix as string);
    return true;
  } catch {
    return false;
  }
}

export function sourceOf(pipe: EffectivePipe): JsonObject & { type: string } {
  return pipe.source;
}

export function isPublisher(pipe: EffectivePipe): boolean {
  return PUBLISHER_SINKS.has(pipe.sink.type);
}

export function sinkConfig(pipe: EffectivePipe): JsonObject {
  return isJsonObject(pipe.sink) ? pipe.sink : {};
}

export { pipeConfigErrors };
