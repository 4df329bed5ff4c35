// A pipe's transform: `{"type": "dtl", "rules": {...}}`, or a list of transforms run one after the other (chained).
// Besides DTL a chain may hold:
//   - `{"type": "emit_children"}`: each entity's `$children` that have an `_id` are output, the entity itself is not;
//   - `{"type": "conditional", "condition": ..., "alternatives": {...}}`: the alternative (a transform or a list of
//     them) named by the condition runs. The caller replaces `$ENV(...)` in the condition first; a condition that
//     still holds a variable cannot pick one: every alternative is checked (configuration checks, without variables),
//     and running it is an error;
//   - transforms of other types (http, rest, ...): they call outside services or are not built here; running one is
//     an error that says so, in words.
//
import type { JsonObject } from '../base/index.js';
import { isJsonObject } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import { compileRules, childPath } from './compiler.js';
import { Ctx, DtlCompileError, DtlRuntimeError, RunState, STOP_DISCARD, STOP_FILTER, type Tx } from './context.js';
import type { DtlLookup } from './lookup.js';
import { DtlLimitError } from './work-limit.js';
import { OfflineError } from '../base/index.js';
import type { FunctionRegistry } from './registry.js';
import type { TraceHooks } from './trace-hooks.js';
import type { DtlDict } from './values.js';
import { namespacesOf, setRunNamespaces, type NamespaceSettings } from './functions/identifiers.js';
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
  /**
   * Namespaced identifiers (service metadata `namespaced_identifiers`, the pipe's `namespaces`): when enabled, the
   * namespace-aware functions (add, add-if, default, copy, remove, rename, make-ni, path) compile for them. `$ids` is
   * never added here: the merge source maintains it.
   */
  namespaces?: NamespaceSettings;
  /** The previous version of a source entity, for `is-changed` (dataset sources). */
  previousVersion?: PreviousVersionLookup;
  /**
   * The caller replaced every `$ENV(...)` whose variable is set: a reference still there is to an unset variable.
   * In DTL it fails only when evaluated; in a conditional transform's condition it is an error. Without this
   * (configuration checks), references are left alone and every alternative of a conditional is checked.
   */
  variablesResolved?: boolean;
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

/** One transform of a chain: what it outputs for one entity. */
export interface Stage {
  run(entity: JsonObject): JsonObject[];
  /** A DTL stage's run state (a traced run clears what a failed entity emitted). */
  readonly state?: RunState;
}

/** A DTL transform as a stage. */
function dtlStage(rules: Tx, state: RunState): Stage {
  return { run: (entity) => runRules(rules, state, entity), state };
}

/** What one stage outputs for one entity. */
export function runStage(stage: Stage, entity: JsonObject): JsonObject[] {
  return stage.run(entity);
}

function runRules(rules: Tx, state: RunState, entity: JsonObject): JsonObject[] {
  const target: DtlDict = {};
  const id = entity['_id'];
  if (id !== undefined) target['_id'] = id;
  if (entity['_deleted'] === true) target['_deleted'] = true;
  const ctx = new Ctx(entity, target, null, null, state, true);
  state.emitted = null;
  state.entityStart = 0;
  const stop = rules(ctx);
  // (read through a cast: the rules have changed `state.emitted` since it was reset above)
  const out: JsonObject[] = (state.emitted as JsonObject[] | null) ?? [];
  state.emitted = null;
  if (stop === STOP_DISCARD) return out;
  if (stop === STOP_FILTER) {
    target['_deleted'] = true;
    target['_filtered'] = true;
  }
  if (typeof target['_id'] !== 'string') {
    if (state.idRequired) throw new DtlRuntimeError('error', missingIdMessage(target['_id'], entity, state));
    return out;
  }
  out.push(target as JsonObject);
  return out;
}

/**
 * Why the target has no string `_id`, in words. With namespaced identifiers on, a missing or list `_id` is often a
 * namespace matter, and the message says so: the source's properties are namespaced (name one), and an unqualified
 * reference matches the property in every namespace, so it gives a list when several namespaces hold it.
 */
function missingIdMessage(id: unknown, entity: JsonObject, state: RunState): string {
  const fix = 'add one, e.g. ["copy", "_id"] or ["add", "_id", ...]';
  if (!namespacesOf(state).enabled) return `the target entity has no string "_id"; ${fix}`;
  const namespaced = Object.keys(entity).filter((k) => k.includes(':') && !k.startsWith('_') && !k.startsWith('$'));
  if (Array.isArray(id)) {
    return (
      `the target entity's "_id" is a list (${JSON.stringify(id).slice(0, 120)}), not a string: namespaced identifiers are on, and an ` +
      'unqualified reference such as "_S.id" matches the property in every namespace; name one, e.g. "_S.<namespace>:id"'
    );
  }
  if (namespaced.length === 0) return `the target entity has no string "_id"; ${fix}`;
  return (
    `the target entity has no string "_id"; ${fix}. Namespaced identifiers are on and the source entity's properties are ` +
    `namespaced (${namespaced.slice(0, 3).map((k) => JSON.stringify(k)).join(', ')}${namespaced.length > 3 ? ', ...' : ''}): ` +
    'an unqualified reference ("_S.order_no") matches them in every namespace, a qualified one ("_S.crm:order_no", "_S.::order_no") only that property'
  );
}

export function wrapError(e: unknown, entity: JsonObject): Error {
  // Past the hub's bounds: the whole run stops, whatever entity it was on.
  if (e instanceof DtlLimitError || e instanceof OfflineError) return e;
  const id = typeof entity['_id'] === 'string' ? entity['_id'] : undefined;
  if (e instanceof DtlRuntimeError) return e.withEntity(id);
  const message = e instanceof Error ? e.message : String(e);
  return new DtlRuntimeError('error', `internal error in DTL: ${message}`, undefined, id);
}

/** A `{"type": "dtl"}` transform as a stage; its problems are added to `errors`. */
function compileDtl(t: JsonObject, at: string, options: DtlTransformOptions, errors: ConfigError[], tracing?: StageTracing): Stage {
  const idRequired = t['id_required'] ?? true;
  if (typeof idRequired !== 'boolean') errors.push({ elements: childPath(at, 'id_required'), level: 'error', msg: '"id_required" must be true or false' });
  const compiled = compileRules(t['rules'], {
    path: childPath(at, 'rules'),
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.namespaces ? { namespaces: options.namespaces } : {}),
    ...(options.variablesResolved === true ? { unsetVariables: true } : {}),
    ...(tracing ? { trace: tracing.hooks } : {}),
  });
  errors.push(...compiled.errors);
  const lookup = tracing ? tracing.lookup : options.lookup;
  const state = new RunState(lookup, options.bindings ?? {}, idRequired !== false, options.maxSleepMs ?? 1000);
  if (options.namespaces) setRunNamespaces(state, options.namespaces);
  if (options.previousVersion) setPreviousVersionLookup(state, options.previousVersion);
  return dtlStage(compiled.defaultRule, state);
}

/** Transform types that call outside services: offline, running one is an error in words. */
const OUTSIDE_SERVICE_TYPES: ReadonlySet<string> = new Set(['http', 'rest']);

/** A stage that fails every entity with a message (a transform this hub cannot run). */
function failingStage(message: string, at: string): Stage {
  return {
    run() {
      throw new DtlRuntimeError('error', message, at);
    },
  };
}

/** A stage that ends the run offline (a transform that calls an outside service): see offline.ts. */
function offlineStage(message: string): Stage {
  return {
    run() {
      throw new OfflineError(message);
    },
  };
}

/** emit_children: the `$children` of each entity that have an `_id`, in their order; not the entity itself. */
const EMIT_CHILDREN: Stage = {
  run(entity) {
    const children = entity['$children'];
    const out: JsonObject[] = [];
    if (Array.isArray(children)) for (const c of children) if (isJsonObject(c) && typeof c['_id'] === 'string') out.push(c);
    return out;
  },
};

/** Compile a transform (or a list of them, chained). Never throws; problems are in `errors`. */
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
  const compileOne = (t: unknown, at: string, into: Stage[]): void => {
    if (Array.isArray(t)) {
      if (t.length === 0) errors.push({ elements: at, level: 'error', msg: 'the list of transforms is empty' });
      t.forEach((x: unknown, i) => compileOne(x, childPath(at, i), into));
      return;
    }
    if (!isJsonObject(t)) {
      errors.push({ elements: at, level: 'error', msg: 'a transform must be an object like {"type": "dtl", "rules": {...}}' });
      return;
    }
    const type = t['type'];
    if (type === 'dtl') into.push(compileDtl(t, at, options, errors, tracing));
    else if (type === 'emit_children') into.push(EMIT_CHILDREN);
    else if (type === 'conditional') compileConditional(t, at, into);
    else if (typeof type === 'string' && OUTSIDE_SERVICE_TYPES.has(type)) {
      const system = typeof t['system'] === 'string' ? ` (system ${JSON.stringify(t['system'])})` : '';
      const msg = `the ${type} transform calls an outside service${system}; this hub runs offline and does not call it`;
      errors.push({ elements: childPath(at, 'type'), level: 'warning', msg });
      into.push(offlineStage(msg));
    } else {
      const msg = `transforms of type ${JSON.stringify(type ?? null)} are not run by this hub (it runs "dtl", "conditional" and "emit_children")`;
      errors.push({ elements: childPath(at, 'type'), level: typeof type === 'string' ? 'warning' : 'error', msg });
      into.push(failingStage(msg, at));
    }
  };
  const compileConditional = (t: JsonObject, at: string, into: Stage[]): void => {
    const condition = t['condition'];
    const alternatives = t['alternatives'];
    if (typeof condition !== 'string') {
      errors.push({ elements: childPath(at, 'condition'), level: 'error', msg: 'a conditional transform needs "condition": a string, usually "$ENV(<name>)"' });
      return;
    }
    if (!isJsonObject(alternatives) || Object.keys(alternatives).length === 0) {
      errors.push({ elements: childPath(at, 'alternatives'), level: 'error', msg: 'a conditional transform needs "alternatives": an object of transforms keyed by the values of "condition"' });
      return;
    }
    const where = childPath(at, 'alternatives');
    const variable = /\$ENV\(([^)]*)\)/.exec(condition);
    if (variable !== null) {
      // Not resolved: check every alternative (as the configuration is checked, without variables); none runs.
      const msg = `the condition refers to $ENV(${variable[1] ?? ''}), which is not set, so no alternative can be picked`;
      if (options.variablesResolved === true) errors.push({ elements: childPath(at, 'condition'), level: 'error', msg });
      for (const [name, alt] of Object.entries(alternatives)) compileOne(alt, childPath(where, name), []);
      into.push(failingStage(msg, at));
      return;
    }
    if (!Object.hasOwn(alternatives, condition)) {
      const known = Object.keys(alternatives).map((k) => JSON.stringify(k)).join(', ');
      errors.push({ elements: childPath(at, 'condition'), level: 'error', msg: `the condition is ${JSON.stringify(condition)}, and "alternatives" has no such key (it has ${known})` });
      return;
    }
    compileOne(alternatives[condition], childPath(where, condition), into);
  };
  if (Array.isArray(transform)) {
    if (transform.length === 0) errors.push({ elements: base, level: 'error', msg: 'the list of transforms is empty' });
    transform.forEach((t: unknown, i) => compileOne(t, childPath(base, i), stages));
  } else compileOne(transform, base, stages);
  return { errors, stages };
}

/** Compile a transform (or a list of them, chained). Never throws; problems are in `errors`. */
export function compileTransform(transform: unknown, options: DtlTransformOptions = {}): CompiledTransform {
  const { errors, stages } = compileStages(transform, options);
  const ok = !errors.some((e) => e.level === 'error');
  const run = (entity: JsonObject): DtlRunResult => {
    if (!ok) throw new DtlCompileError(errors);
    if (stages.length === 1) {
      try {
        return { entities: (stages[0] as Stage).run(entity) };
      } catch (e) {
        throw wrapError(e, entity);
      }
    }
    let current: JsonObject[] = [entity];
    for (const stage of stages) {
      const next: JsonObject[] = [];
      for (const e of current) {
        try {
          for (const o of stage.run(e)) next.push(o);
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
