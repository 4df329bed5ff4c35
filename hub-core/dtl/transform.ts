// A pipe's DTL transform: `{"type": "dtl", "rules": {...}}`, or a list of transforms run one after the other.
//
// Per source entity the `default` rule set runs with `_S` = the entity and `_T` = a new target that starts with the
// source's `_id` (and `_deleted: true` when the source is deleted, so deletions carry through). Then:
//   - the rules ran to the end: the target is output (it must have a string `_id`; see `id_required`);
//   - `filter` stopped them: the target is output with `_deleted: true` and `_filtered: true`, so a dataset sink
//     deletes an earlier version;
//   - `discard` stopped them: nothing is output for the entity.
// Entities emitted by `create` are output before the target, in the order they were created, also when the rules
// are stopped afterwards. With chained transforms, every output entity of one transform is a source entity of the
// next (filtered ones too: they arrive deleted, so the next target starts deleted as well).

import type { JsonObject } from '../json.js';
import { isJsonObject } from '../json.js';
import type { ConfigError } from '../config-error.js';
import { compileRules, childPath } from './compiler.js';
import { Ctx, DtlCompileError, DtlRuntimeError, RunState, STOP_DISCARD, STOP_FILTER, type Tx } from './context.js';
import type { DtlLookup } from './lookup.js';
import type { FunctionRegistry } from './registry.js';
import type { TraceHooks } from './trace-hooks.js';
import type { DtlDict } from './values.js';
import { addEntityIds, setRunNamespaces, type NamespaceSettings } from './functions/identifiers.js';
import { setPreviousVersionLookup, type PreviousVersionLookup } from './functions/misc.js';

export interface DtlTransformOptions {
  /** Access to other datasets (hops, lookups); the dataset store provides it. */
  lookup?: DtlLookup;
  /** JSON path of the transform in its configuration, for error `elements` (default "$.transform"). */
  configPath?: string;
  /** `_B`: values bound by the caller, e.g. the URL parameters of an endpoint sink. */
  bindings?: JsonObject;
  /** Upper bound for one `sleep!` in milliseconds (default 1000). */
  maxSleepMs?: number;
  registry?: FunctionRegistry;
  /** Namespaced identifiers (service metadata `namespaced_identifiers`); when enabled, outputs get `$ids`. */
  namespaces?: NamespaceSettings;
  /** False: leave `$ids` to the caller (a pipe adds them in its sink step, transform or not). Default true. */
  addIds?: boolean;
  /** The previous version of a source entity, for `is-changed` (dataset sources). */
  previousVersion?: PreviousVersionLookup;
}

export interface DtlRunResult {
  /** The output entities, in order. They may share unchanged sub-values with the input; treat them as read-only. */
  entities: JsonObject[];
}

export interface CompiledTransform {
  readonly errors: ConfigError[];
  /** True when there are no errors (warnings allowed). */
  readonly ok: boolean;
  /** Transform one source entity. Throws DtlCompileError when `ok` is false, DtlRuntimeError when a rule fails. */
  run(entity: JsonObject): DtlRunResult;
  /** Transform many entities, concatenating the outputs. */
  runAll(entities: Iterable<JsonObject>): JsonObject[];
}

export interface Stage {
  readonly rules: Tx;
  readonly state: RunState;
}

export function runStage(stage: Stage, entity: JsonObject): JsonObject[] {
  const state = stage.state;
  const target: DtlDict = {};
  const id = entity['_id'];
  if (id !== undefined) target['_id'] = id;
  if (entity['_deleted'] === true) target['_deleted'] = true;
  const ctx = new Ctx(entity, target, null, null, state, true);
  state.emitted = null;
  const stop = stage.rules(ctx);
  // (read through a cast: the rules have changed `state.emitted` since it was reset above)
  const out: JsonObject[] = (state.emitted as JsonObject[] | null) ?? [];
  state.emitted = null;
  if (stop === STOP_DISCARD) return out;
  if (stop === STOP_FILTER) {
    target['_deleted'] = true;
    target['_filtered'] = true;
  }
  if (typeof target['_id'] !== 'string') {
    if (state.idRequired) {
      throw new DtlRuntimeError('error', 'the target entity has no string "_id"; add one, e.g. ["copy", "_id"] or ["add", "_id", ...]');
    }
    return out;
  }
  out.push(target as JsonObject);
  return out;
}

export function wrapError(e: unknown, entity: JsonObject): Error {
  const id = typeof entity['_id'] === 'string' ? entity['_id'] : undefined;
  if (e instanceof DtlRuntimeError) return e.withEntity(id);
  const message = e instanceof Error ? e.message : String(e);
  return new DtlRuntimeError('error', `internal error in DTL: ${message}`, undefined, id);
}

/** With namespaced identifiers on, every output entity lists its identities in `$ids`. */
function addIds(result: DtlRunResult): DtlRunResult {
  for (const e of result.entities) addEntityIds(e as DtlDict);
  return result;
}

/** How a traced compile (trace.ts) differs: its hooks wrap the closures, and joins go through its lookup. */
export interface StageTracing {
  readonly hooks: TraceHooks;
  readonly lookup: DtlLookup | undefined;
}

/** Each transform of a chain (or the one transform) compiled, with every problem found. */
export function compileStages(transform: unknown, options: DtlTransformOptions, tracing?: StageTracing): { errors: ConfigError[]; stages: Stage[] } {
  const base = options.configPath ?? '$.transform';
  const errors: ConfigError[] = [];
  const stages: Stage[] = [];
  const list = Array.isArray(transform) ? transform : [transform];
  if (Array.isArray(transform) && transform.length === 0) errors.push({ elements: base, level: 'error', msg: 'the list of transforms is empty' });
  list.forEach((t: unknown, i) => {
    const at = Array.isArray(transform) ? childPath(base, i) : base;
    if (!isJsonObject(t)) {
      errors.push({ elements: at, level: 'error', msg: 'a transform must be an object like {"type": "dtl", "rules": {...}}' });
      return;
    }
    if (t['type'] !== 'dtl') {
      errors.push({ elements: childPath(at, 'type'), level: 'error', msg: `only transforms of type "dtl" can be compiled, not ${JSON.stringify(t['type'] ?? null)}` });
      return;
    }
    const idRequired = t['id_required'] ?? true;
    if (typeof idRequired !== 'boolean') errors.push({ elements: childPath(at, 'id_required'), level: 'error', msg: '"id_required" must be true or false' });
    const compiled = compileRules(t['rules'], {
      path: childPath(at, 'rules'),
      ...(options.registry ? { registry: options.registry } : {}),
      ...(tracing ? { trace: tracing.hooks } : {}),
    });
    errors.push(...compiled.errors);
    const lookup = tracing ? tracing.lookup : options.lookup;
    const state = new RunState(lookup, options.bindings ?? {}, idRequired !== false, options.maxSleepMs ?? 1000);
    if (options.namespaces) setRunNamespaces(state, options.namespaces);
    if (options.previousVersion) setPreviousVersionLookup(state, options.previousVersion);
    stages.push({ rules: compiled.defaultRule, state });
  });
  return { errors, stages };
}

/** Compile a DTL transform (or a list of them, chained). Never throws; problems are in `errors`. */
export function compileTransform(transform: unknown, options: DtlTransformOptions = {}): CompiledTransform {
  const { errors, stages } = compileStages(transform, options);
  const ok = !errors.some((e) => e.level === 'error');
  const withIds = options.namespaces?.enabled === true && options.addIds !== false;
  const run = withIds ? (entity: JsonObject): DtlRunResult => addIds(runPlain(entity)) : (entity: JsonObject): DtlRunResult => runPlain(entity);
  const runPlain = (entity: JsonObject): DtlRunResult => {
    if (!ok) throw new DtlCompileError(errors);
    if (stages.length === 1) {
      try {
        return { entities: runStage(stages[0] as Stage, entity) };
      } catch (e) {
        throw wrapError(e, entity);
      }
    }
    let current: JsonObject[] = [entity];
    for (const stage of stages) {
      const next: JsonObject[] = [];
      for (const e of current) {
        try {
          for (const o of runStage(stage, e)) next.push(o);
        } catch (err) {
          throw wrapError(err, e);
        }
      }
      current = next;
    }
    return { entities: current };
  };
  return {
    errors,
    ok,
    run,
    runAll(entities: Iterable<JsonObject>): JsonObject[] {
      const out: JsonObject[] = [];
      for (const e of entities) for (const o of run(e).entities) out.push(o);
      return out;
    },
  };
}
