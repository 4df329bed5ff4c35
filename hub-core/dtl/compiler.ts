// The DTL compiler: checks a rule set or an expression once and turns it into closures. Each expression becomes an
// `Expr` (ctx => value), each transform function a `Tx` (ctx => stop signal or undefined). Running the closures never
// looks at the DTL JSON again.
//
// Problems are collected as ConfigErrors whose `elements` is the JSON path of the element at fault, e.g.
// "$.transform.rules.default[2][1]"; compilation goes on after an error so that all problems are reported at once.

import { isJsonObject, type JsonObject } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import { Ctx, DtlCompileError, NOOP_TX, RunState, type Tx } from './context.js';
import { Compiler } from './expression-compiler.js';
import { registry as defaultRegistry } from './functions/index.js';
import { setRunNamespaces } from './functions/identifiers.js';
import type { DtlLookup } from './lookup.js';
import type { NamespaceSettings } from './namespace-settings.js';
import type { FunctionRegistry, RuleSetRef } from './registry.js';
import type { TraceHooks } from './trace-hooks.js';
import type { DtlDict, DtlValue } from './values.js';

export { sequence } from './expression-compiler.js';
export { nearestName, typoDistance } from './name-suggestions.js';

/** JSON path of a child element: `$.a.b`, `$.a["odd key"]`, `$.a[3]`. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_$][\w$:-]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Entry points

export interface CompileOptions {
  /** JSON path of the element being compiled, used in error `elements` (default "$"). */
  path?: string;
  /** Function registry (default: all built-in functions). */
  registry?: FunctionRegistry;
  /** Namespaced identifiers: when enabled, the namespace-aware functions (add, copy, remove, ...) compile for them. */
  namespaces?: NamespaceSettings;
  /**
   * The set `$ENV(...)` variables were replaced beforehand: a reference left in a value is to an unset variable and
   * fails when it is evaluated (never in a branch not taken); in a literal argument it is a compile error.
   */
  unsetVariables?: boolean;
  /** Record the evaluation (trace.ts); leave out for the normal closures. */
  trace?: TraceHooks;
}

export interface CompiledRules {
  readonly errors: ConfigError[];
  /** The `default` rule set (a no-op when it is missing; `errors` then says so). */
  readonly defaultRule: Tx;
  ruleSet(name: string): Tx | undefined;
}

/** The join function ("hops", "apply-hops") a rule set's JSON calls anywhere, comments left out. */
function joinCalled(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    const head: unknown = node[0];
    if (head === 'hops' || head === 'apply-hops') return head;
    if (head === 'comment') return undefined;
    for (const x of node) {
      const found = joinCalled(x);
      if (found !== undefined) return found;
    }
  } else if (isJsonObject(node)) {
    for (const x of Object.values(node)) {
      const found = joinCalled(x);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Note on each rule set's reference which join it calls, before any is compiled (`apply` checks it). */
function markJoins(refs: ReadonlyMap<string, RuleSetRef>, rules: JsonObject): void {
  for (const [name, set] of Object.entries(rules)) {
    const ref = refs.get(name);
    const joins = joinCalled(set);
    if (ref !== undefined && joins !== undefined) ref.joins = joins;
  }
}

/** Compile the `rules` object of a DTL transform. */
export function compileRules(rules: unknown, options: CompileOptions = {}): CompiledRules {
  const path = options.path ?? '$';
  const registry = options.registry ?? defaultRegistry;
  if (!isJsonObject(rules)) {
    return {
      errors: [{ elements: path, level: 'error', msg: 'the rules must be an object of named rule sets, e.g. {"default": [...]}' }],
      defaultRule: NOOP_TX,
      ruleSet: () => undefined,
    };
  }
  const compiler = new Compiler(
    registry,
    Object.keys(rules),
    options.namespaces?.enabled === true ? options.namespaces : undefined,
    options.unsetVariables === true,
    options.trace,
  );
  if (!Array.isArray(rules['default'])) {
    compiler.error(childPath(path, 'default'), 'a DTL transform needs a "default" rule set: a list of transform functions');
  }
  markJoins(compiler.ruleRefs, rules);
  for (const [name, set] of Object.entries(rules)) {
    const ref = compiler.ruleRefs.get(name) as RuleSetRef;
    ref.run = compiler.compileRuleSet(set, childPath(path, name));
  }
  const refs = compiler.ruleRefs;
  return {
    errors: compiler.errors,
    defaultRule: refs.get('default')?.run ?? NOOP_TX,
    ruleSet: (name) => refs.get(name)?.run,
  };
}

export interface EvaluateInput {
  /** `_S` (default: an empty dict). */
  source?: DtlValue;
  /** `_T` (default: an empty dict); transform functions called through `apply` may change it. */
  target?: DtlDict;
  /** `_` */
  current?: DtlValue;
  /** `_B` */
  bindings?: DtlDict;
  lookup?: DtlLookup;
  /** A bound on this evaluation's time tighter than a transform's per entity (work-limit.ts), counted from the call. */
  timeLimitMs?: number;
}

export interface CompiledExpression {
  readonly errors: ConfigError[];
  /** Evaluate; throws DtlCompileError if the expression has errors, DtlRuntimeError if it fails. */
  evaluate(input?: EvaluateInput): DtlValue;
}

/** Compile a single expression, optionally with named rule sets that `apply` may use. */
export function compileExpression(expr: unknown, options: CompileOptions & { rules?: JsonObject } = {}): CompiledExpression {
  const path = options.path ?? '$';
  const rules = options.rules ?? {};
  // With namespaced identifiers on (e.g. a merge source's equality rules), paths match as they do in a transform.
  const namespaces = options.namespaces?.enabled === true ? options.namespaces : undefined;
  const compiler = new Compiler(options.registry ?? defaultRegistry, Object.keys(rules), namespaces, false, options.trace);
  markJoins(compiler.ruleRefs, rules);
  for (const [name, set] of Object.entries(rules)) {
    (compiler.ruleRefs.get(name) as RuleSetRef).run = compiler.compileRuleSet(set, childPath('$rules', name));
  }
  const e = compiler.compileValue(expr, path);
  const errors = compiler.errors;
  return {
    errors,
    evaluate(input: EvaluateInput = {}): DtlValue {
      if (errors.some((x) => x.level === 'error')) throw new DtlCompileError(errors);
      const state = new RunState(input.lookup, input.bindings ?? {}, false, 0);
      if (input.timeLimitMs !== undefined) {
        state.entityLimitMs = input.timeLimitMs;
        state.entityStart = Date.now();
      }
      if (namespaces !== undefined) setRunNamespaces(state, namespaces);
      const ctx = new Ctx(input.source ?? {}, input.target ?? {}, null, null, state, false);
      ctx.current = input.current ?? null;
      return e(ctx);
    },
  };
}
