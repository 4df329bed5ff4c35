// What a pipe does to an entity, in one place: a pipe's stored (or draft) configuration resolved once into its
// effective configuration and problems, its compiled transform, its sink step, the chain of its transforms one by
// one, and the source it reads. Every path that moves entities through a pipe uses it: pump runs, JSON Push
// receivers, publishers, the pipe stages and the previews.
//
//   source             the entities as the source gives them
//   before-transforms  what the first transform is fed: the source entities, with namespaces added when the pipe
//                      adds them (`add_namespaces`, see namespaces.ts)
//   after-transforms   what the last transform outputs: a filtered entity arrives deleted and marked `_filtered`, a
//                      discarded one is gone; without a transform, the source entities
//   sink               after the sink step (`sinkStep` below): what the sink is given (namespaces removed for every
//                      sink but a dataset, with namespaced identifiers on)
//
// PipeRuntimes keeps one runtime per stored pipe and drops it when what it was built from changes: the pipe's
// configuration, the node metadata (namespaces), a system, the environment variables or the secrets.

import type { ConfigEntity } from '../config/index.js';
import type { DatasetStore } from '../storage/index.js';
import { checkPipeConfig, effectivePipeConfig, pipeNumberErrors, type EffectivePipe } from './pipe-config.js';
import { hasErrors, type ConfigError } from '../base/index.js';
import { pumpConfigErrors } from './pump-config.js';
import {
  compileTracedTransform,
  compileTransform,
  childPath,
  type CompiledTransform,
  type DtlLookup,
  type DtlTransformOptions,
  type NamespaceSettings,
  type TraceLimits,
  type TracedTransform,
  compileCondition,
  recordSteps,
  type StepLimits,
  type StepRecording,
  type CompiledCondition,
} from '../dtl/index.js';
import { addNamespaces, addsNamespaces, removeNamespaces, removesNamespaces } from './namespaces.js';
import { TrackingLookup, trackedDatasets } from './dependency-tracking.js';
import { hasDtlKeySecret, substituteDtlKeySecrets, substituteEnv, substituteVariables, type ConfigVariables } from '../config/index.js';
import { pipeWithEnv, pumpWithEnv, resolveSource, transformWithEnv, unsetEnvWarnings, withSetEnv, type EnvLookup } from '../config/index.js';
import { MAINTAINED_PROPERTIES, stripInternal } from '../base/index.js';
import { SOURCES, type PumpSource } from './sources/index.js';
import type { SinkContext } from './sinks/json-push-sink.js';
import { sinkType } from './sinks/index.js';
import { HubError, badRequest } from '../base/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';

export type SinkStep = (entity: JsonObject) => JsonObject;

/**
 * The sink step. The properties the hub maintains (`_updated`, `_ts`, `_hash`, `_previous`) are the source's
 * bookkeeping, not content, so they are dropped (a dataset sink keeps its own); with `removeNs` (every sink but a
 * dataset, with namespaced identifiers on) the namespaces are taken off (`removeNamespaces`). `$ids` is not added
 * here: the merge source maintains it. The entity given is never changed.
 */
export function sinkStep(removeNs: boolean): SinkStep {
  const internal = (entity: JsonObject): JsonObject => {
    for (const k of MAINTAINED_PROPERTIES) if (Object.hasOwn(entity, k)) return stripInternal(entity);
    return entity;
  };
  return removeNs ? (entity) => removeNamespaces(internal(entity)) : internal;
}

/** What a pipe runtime needs of the hub; given once, to the constructor. */
export interface PipeRuntimeContext {
  readonly datasets: DatasetStore;
  /** DTL's access to other datasets (hops, lookups). */
  readonly lookup: DtlLookup | undefined;
  /** `$ENV(...)` and `$SECRET(...)` values. */
  readonly vars: ConfigVariables;
  /** No pump starts by itself (scheduler not started or switched off): unset pump variables only warn. */
  schedulerOff?(): boolean;
  /** A system's configuration as stored (variables not replaced). */
  system(id: string): JsonObject | undefined;
  /** The node's namespaced-identifier settings for a pipe (`enabled`: the node metadata's `namespaced_identifiers`). */
  namespaces(pipeId: string): NamespaceSettings;
  /** Dependency tracking: the first time a pipe looks a joined dataset up, fix where its changes are read from. */
  startTracking(pipeId: string, dataset: string): void;
}

export class PipeRuntime {
  readonly id: string;
  /** The effective configuration (defaults filled in, variables not replaced). */
  readonly pipe: EffectivePipe;
  /** The problems of the configuration without its pump settings: those that stop a run. */
  readonly runErrors: ConfigError[];
  /** The pipe's namespaces, when namespaced identifiers are on for it (the node's setting or the pipe's own). */
  readonly namespaces: NamespaceSettings | undefined;
  /** The source step adds namespaces (`add_namespaces`). */
  readonly addsNamespaces: boolean;
  /** The sink step removes namespaces (`remove_namespaces`). */
  readonly removesNamespaces: boolean;
  /** The compiled transform (undefined without one); check `ok` before running it. */
  readonly transform: CompiledTransform | undefined;
  /** Records what the transform's hops look up, for dependency tracking (pipes with a dataset source and hops). */
  readonly tracking: TrackingLookup | undefined;
  readonly toSink: SinkStep;
  /**
   * The sink is given what `filter` stopped (deleted, `_filtered`): a dataset sink, so that it deletes a version it
   * holds, and a publisher, whose readers follow deletes too. A sink that writes to an outside system (sql, rest,
   * elasticsearch, ...) is given nothing for it: the filter page says no target entity is emitted, and only the
   * dataset sink is given one (dtl-functions-transforms.rst, filter).
   */
  readonly keepsFiltered: boolean;
  /** The sink is a dataset sink. */
  readonly writesDataset: boolean;
  /** Neither a transform nor a sink step that changes anything: entities pass as they are (JSON Push receivers). */
  readonly passesThrough: boolean;
  /** A transform tried on its own, outside any pipe of this node (no namespaces). */
  readonly standalone: boolean;
  private chainCache: CompiledTransform[] | null | undefined;
  private readonly sourceSettings: NamespaceSettings | undefined;

  constructor(
    readonly config: ConfigEntity,
    private readonly ctx: PipeRuntimeContext,
    options: {
      /** Track the dependencies of hops (pump state): the stored pipe's runtime; a draft's does not. */
      tracked: boolean;
      /** A transform tried on its own, outside any pipe of this node: no namespaces. */
      standalone?: boolean;
    },
  ) {
    this.id = config._id;
    this.standalone = options.standalone === true;
    this.pipe = effectivePipeConfig(config);
    // Checked with the set `$ENV`s replaced (the transform's are resolved lazily, when it is compiled).
    this.runErrors = [...checkPipeConfig(pipeWithEnv(config, this.env)), ...pipeNumberErrors(config, this.env)];
    const node = options.standalone ? undefined : ctx.namespaces(config._id);
    const settings = node && pipeNamespaces(node, config);
    this.namespaces = settings?.enabled === true ? settings : undefined;
    const condition = (text: string): string | undefined => {
      try {
        return substituteEnv(text, (name) => ctx.vars.env(name), '$.source.condition') as string;
      } catch {
        return undefined;
      }
    };
    this.addsNamespaces = settings !== undefined && addsNamespaces(config, settings.enabled, condition);
    this.removesNamespaces = settings !== undefined && removesNamespaces(this.pipe as unknown as JsonObject, settings.enabled);
    this.sourceSettings = settings;
    const value = config['transform'];
    const hops = value === undefined ? undefined : trackedDatasets(value);
    this.tracking =
      options.tracked && ctx.lookup && this.sourceDataset !== undefined && hops?.hops
        ? new TrackingLookup(ctx.lookup, hops.tracked, (dataset) => ctx.startTracking(this.id, dataset))
        : undefined;
    this.transform = value === undefined ? undefined : this.compile(value, '$.transform', this.tracking ?? ctx.lookup);
    this.toSink = sinkStep(this.removesNamespaces);
    this.writesDataset = this.pipe.sink.type === 'dataset';
    this.keepsFiltered = this.writesDataset || sinkType(this.pipe.sink.type)?.runs === 'publish';
    this.passesThrough = this.transform === undefined && !this.addsNamespaces && !this.removesNamespaces;
  }

  private readonly env: EnvLookup = (name) => this.ctx.vars.env(name);

  /** The configuration's problems, its pump settings included (as pipe information reports them). */
  get errors(): ConfigError[] {
    const pump = effectivePipeConfig({ ...this.config, pump: pumpWithEnv(this.pipe.pump, this.env) });
    return [...this.runErrors, ...unsetEnvWarnings(this.config, this.env), ...pumpConfigErrors(pump, { resolved: true, schedulerOff: this.ctx.schedulerOff?.() ?? true })];
  }

  /**
   * Whether a run needs secret values: a `$SECRET` (written, or the value of an `$ENV`) as the key of encrypt/decrypt
   * in the transform. A pipe worker that runs it is handed those values (keySecrets), and no others.
   */
  get needsSecrets(): boolean {
    const transform = this.resolvedTransform();
    return transform !== undefined && hasDtlKeySecret(transform);
  }

  /** The transform with the set `$ENV`s replaced (as it is compiled), undefined without one. */
  resolvedTransform(): JsonValue | undefined {
    const transform = this.config['transform'];
    return transform === undefined ? undefined : transformWithEnv(transform, this.env);
  }

  /**
   * The secret values the transform takes as the key of encrypt/decrypt, by name: all a worker that evaluates it needs
   * of the secrets (a missing one is the UnsetVariableError its compilation raises).
   */
  keySecrets(): Record<string, string> {
    const transform = this.config['transform'];
    const out: Record<string, string> = {};
    if (transform === undefined) return out;
    const vars = this.ctx.vars;
    const recording: ConfigVariables = {
      env: (name) => vars.env(name),
      secret: (name, scope) => {
        const value = vars.secret(name, scope);
        if (value !== undefined) out[name] = value;
        return value;
      },
      mask: (text) => vars.mask(text),
    };
    substituteDtlKeySecrets(transformWithEnv(transform, this.env), recording);
    return out;
  }

  /** The dataset a `dataset` source reads. */
  private get sourceDataset(): string | undefined {
    const source = isJsonObject(this.config['source']) ? this.config['source'] : {};
    return source['type'] === 'dataset' && typeof source['dataset'] === 'string' ? source['dataset'] : undefined;
  }

  private compile(transform: JsonValue, configPath: string, lookup: DtlLookup | undefined): CompiledTransform {
    return compileTransform(substituteDtlKeySecrets(transformWithEnv(transform, this.env), this.ctx.vars, configPath), this.transformOptions(configPath, lookup));
  }

  private transformOptions(configPath: string, lookup: DtlLookup | undefined): DtlTransformOptions {
    const sourceDataset = this.sourceDataset;
    const datasets = this.ctx.datasets;
    return {
      configPath,
      variablesResolved: true,
      ...(lookup ? { lookup } : {}),
      ...(this.namespaces ? { namespaces: this.namespaces } : {}),
      // is-changed compares with the version before this one in the source dataset (`_previous` is its offset).
      ...(sourceDataset !== undefined
        ? {
            previousVersion: (e: JsonObject) => {
              const prev = e['_previous'];
              return typeof prev === 'number' && typeof e['_id'] === 'string' ? datasets.get(sourceDataset)?.getAt(e['_id'], prev) : undefined;
            },
          }
        : {}),
    };
  }

  /** The transform compiled for tracing (previews and the CLI only; no dependency tracking), undefined without one. */
  traced(limits?: Partial<TraceLimits>): TracedTransform | undefined {
    const value = this.config['transform'];
    if (value === undefined) return undefined;
    const options = { ...this.transformOptions('$.transform', this.ctx.lookup), ...(limits ? { limits } : {}) };
    return compileTracedTransform(substituteDtlKeySecrets(transformWithEnv(value, this.env), this.ctx.vars, '$.transform'), options);
  }

  /**
   * One entity (as the first transform is fed it) through the transform with every step recorded, for the
   * step-through (previews only); undefined without a transform. A conditional breakpoint that does not compile is a
   * 400 naming its problem.
   */
  recordSteps(entity: JsonObject, condition: unknown, limits?: Partial<StepLimits>, conditionsAt: Readonly<Record<string, unknown>> = {}): StepRecording | undefined {
    const value = this.config['transform'];
    if (value === undefined) return undefined;
    type Condition = NonNullable<CompiledCondition['expr']>;
    const compile = (expression: unknown, what: string): Condition => {
      const compiled = compileCondition(expression, this.namespaces);
      const first = compiled.errors.find((e) => e.level === 'error');
      if (first !== undefined || compiled.expr === null) throw badRequest(`${what} is not a valid DTL expression`, first ? `${first.elements}: ${first.msg}` : undefined);
      return compiled.expr;
    };
    const given = (c: unknown): boolean => c !== undefined && c !== null && c !== '';
    const expr = given(condition) ? compile(condition, 'the breakpoint condition') : null;
    const at = new Map<string, Condition>();
    for (const [path, c] of Object.entries(conditionsAt)) if (given(c)) at.set(path, compile(c, `the condition of the breakpoint at ${path}`));
    const options = this.transformOptions('$.transform', this.ctx.lookup);
    const transform = substituteDtlKeySecrets(transformWithEnv(value, this.env), this.ctx.vars, '$.transform');
    return recordSteps(transform, entity, {
      ...options,
      condition: expr,
      conditionsAt: at,
      ...(this.ctx.lookup ? { conditionLookup: this.ctx.lookup } : {}),
      ...(limits ? { limits } : {}),
    });
  }

  /** For a chain of transforms, each of them on its own (to show what each one makes); undefined otherwise. */
  get chain(): CompiledTransform[] | undefined {
    if (this.chainCache === undefined) {
      const value = this.config['transform'];
      this.chainCache =
        Array.isArray(value) && value.length > 1 ? value.map((t, i) => this.compile(t, childPath('$.transform', i), this.ctx.lookup)) : null;
    }
    return this.chainCache ?? undefined;
  }

  get isValid(): boolean {
    return !hasErrors(this.errors);
  }

  /** The transform's compile errors as a 400, or undefined when it compiles (or there is none). */
  transformProblem(): HubError | undefined {
    if (!this.transform || this.transform.ok) return undefined;
    const detail = this.transform.errors.filter((e) => e.level === 'error').map((e) => `${e.elements}: ${e.msg}`).join('; ');
    return badRequest('the transform does not compile', detail);
  }

  /** What the first transform is fed for one source entity: with `add_namespaces`, the entity with namespaces added. */
  beforeTransforms(entity: JsonObject): JsonObject {
    return this.addsNamespaces ? addNamespaces(entity, this.sourceSettings as NamespaceSettings) : entity;
  }

  /** What the transform makes of one source entity (the after-transforms stage); without a transform, what it is fed. */
  afterTransforms(entity: JsonObject): JsonObject[] {
    const fed = this.beforeTransforms(entity);
    return this.transform ? this.transform.run(fed).entities : [fed];
  }

  /** What one source entity becomes after the transforms and at the sink (the previews show both). */
  stages(entity: JsonObject): { afterTransforms: JsonObject[]; sink: JsonObject[] } {
    const afterTransforms = this.afterTransforms(entity);
    const given = this.keepsFiltered ? afterTransforms : afterTransforms.filter((e) => e['_filtered'] !== true);
    return { afterTransforms, sink: given.map(this.toSink) };
  }

  /**
   * What the pipe gives its sink for source entities, in order: the transform, then the sink step. Appended to `out`
   * when given (the pump fills one batch). `prepared`: what is given to a dataset sink will be prepared for it
   * (prepareEntity), so the maintained properties need not be taken off here.
   */
  process(entities: readonly JsonObject[], out: JsonObject[] = [], prepared = false): JsonObject[] {
    // What a dataset sink is given is prepared (prepareEntity), which leaves the maintained properties out itself:
    // the sink step's copy without them is work for nothing there (a `copy *` brings all of them along).
    const toSink = prepared && this.writesDataset && !this.removesNamespaces ? (e: JsonObject): JsonObject => e : this.toSink;
    const transform = this.transform;
    const ns = this.addsNamespaces ? (this.sourceSettings as NamespaceSettings) : undefined;
    // Without a transform, the bookkeeping the sink step drops is left out while namespacing (one copy, not two).
    if (!transform) for (const e of entities) out.push(toSink(ns ? addNamespaces(e, ns, MAINTAINED_PROPERTIES) : e));
    else {
      const keepsFiltered = this.keepsFiltered;
      for (const e of entities) {
        for (const o of transform.run(ns ? addNamespaces(e, ns) : e).entities) if (keepsFiltered || o['_filtered'] !== true) out.push(toSink(o));
      }
    }
    return out;
  }

  /**
   * The effective configuration as a run uses it: source (for a conditional source only the alternative it picks)
   * and sink with `$ENV` replaced (a 400 HubError names a missing one); the pump settings with the set variables
   * replaced (an unset one only concerns the schedule); the transform as written (see compile). `$SECRET` is left as
   * written: secrets are replaced in system configuration only (see config-variables.ts).
   */
  resolved(): EffectivePipe {
    return { ...this.resolvedSource(), sink: substituteEnv(this.pipe.sink, this.env, '$.sink') };
  }

  /** As `resolved`, without the sink: what reading the pipe's entities needs. */
  private resolvedSource(): EffectivePipe {
    const pipe = this.pipe;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(pipe)) if (k !== 'transform' && k !== 'source' && k !== 'sink') out[k] = isJsonObject(v) && k === 'pump' ? pumpWithEnv(v, this.env) : withSetEnv(v, this.env);
    return { ...pipe, ...out, source: resolveSource(pipe.source, this.env) } as EffectivePipe;
  }


  /** What a sink may use of the hub (systems, variables). */
  sinkContext(): SinkContext {
    return { system: (id) => this.ctx.system(id), vars: this.ctx.vars };
  }

  /** The pipe's source, opened on its variable-substituted configuration (`pipe`: one resolved already). */
  openSource(pipe: EffectivePipe = this.resolvedSource()): PumpSource {
    const factory = SOURCES.get(pipe.source.type);
    if (!factory) {
      const how = pipe.source.type === 'http_endpoint' ? 'it receives its entities by JSON Push' : `the source types read here: ${[...SOURCES.keys()].join(', ')}`;
      throw new HubError(400, `this hub does not pump a ${pipe.source.type} source`, how);
    }
    const vars = this.ctx.vars;
    const system = (id: string): JsonObject | undefined => {
      const s = this.ctx.system(id);
      return s && substituteVariables(s, vars, id, `system ${id}`);
    };
    return factory(pipe, { datasets: this.ctx.datasets, env: (name) => vars.env(name), system, ...(this.namespaces ? { namespaces: this.namespaces } : {}) });
  }
}

/** What PipeRuntimes listens to, so that a runtime is built again when what it was built from changes. */
export interface RuntimeChanges {
  /** Configuration changes: a pipe (`id`), a system or the node metadata. */
  onConfigChange(listener: (change: { kind: string; id: string }) => void): void;
  /** Environment variables or secrets changed. */
  onVariablesChange(listener: () => void): void;
}

/** The runtimes of the stored pipes, one per pipe, built on first use. */
export class PipeRuntimes {
  private readonly cache = new Map<string, { key: string; runtime: PipeRuntime }>();

  constructor(
    private readonly ctx: PipeRuntimeContext,
    changes: RuntimeChanges,
  ) {
    changes.onConfigChange((change) => {
      if (change.kind === 'pipe') this.cache.delete(change.id);
      else this.cache.clear();
    });
    changes.onVariablesChange(() => this.cache.clear());
  }

  /** The runtime of a stored pipe's configuration (built again when the configuration differs from the cached one). */
  of(config: ConfigEntity): PipeRuntime {
    const key = JSON.stringify(config);
    const cached = this.cache.get(config._id);
    if (cached && cached.key === key) return cached.runtime;
    const runtime = new PipeRuntime(config, this.ctx, { tracked: true });
    this.cache.set(config._id, { key, runtime });
    return runtime;
  }

  /**
   * A runtime for a draft configuration: nothing cached, no dependency tracking. `standalone`: a transform tried
   * outside any pipe of this node (no namespaces).
   */
  draft(config: ConfigEntity, options: { standalone?: boolean } = {}): PipeRuntime {
    return new PipeRuntime(config, this.ctx, { tracked: false, ...options });
  }

  forget(id: string): void {
    this.cache.delete(id);
  }

  /** The value of `$ENV(name)` (a pipe worker is given the ones a pipe names). */
  env(name: string): string | undefined {
    return this.ctx.vars.env(name);
  }

  /** The node's namespaced-identifier settings for a pipe, before the pipe's own (a pipe worker builds its runtime with them). */
  nodeNamespaces(pipeId: string): NamespaceSettings {
    return this.ctx.namespaces(pipeId);
  }

  /** The text with the secret values in it masked: for everything a run stores or shows. */
  mask(text: string): string {
    return this.ctx.vars.mask(text);
  }
}

/**
 * A pipe's namespace settings: the node's, with the pipe's own `namespaced_identifiers` and `namespaces.identity` /
 * `namespaces.property` (both default to the pipe id) applied.
 */
export function pipeNamespaces(node: NamespaceSettings, config: ConfigEntity): NamespaceSettings {
  const flag = config['namespaced_identifiers'];
  const own = isJsonObject(config['namespaces']) ? config['namespaces'] : {};
  const name = (v: JsonValue | undefined, fallback: string | null): string | null => (typeof v === 'string' && v !== '' ? v : fallback);
  return {
    ...node,
    enabled: typeof flag === 'boolean' ? flag : node.enabled,
    identityNamespace: name(own['identity'], node.identityNamespace),
    propertyNamespace: name(own['property'], node.propertyNamespace),
  };
}

