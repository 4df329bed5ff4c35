// The compiler at work: turns DTL expressions, function calls, paths and transforms into closures, collecting errors.

import { isJsonObject } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import { floatLiteralText } from '../base/index.js';
import { Ctx, DtlRuntimeError, NOOP_TX, type Expr, type Tx } from './context.js';
import type { NamespaceSettings } from './namespace-settings.js';
import { compileNamespacedTraversal, compileTraversal, isPathString, parsePath, type ParsedPath } from './paths.js';
import {
  signatureOf,
  type ArgNode,
  type BoundArgs,
  type CompileContext,
  type FunctionRegistry,
  type FunctionSpec,
  type JsonMode,
  type ParamSpec,
  type RuleSetRef,
} from './registry.js';
import type { TraceHooks } from './trace-hooks.js';
import { encode, type DtlDict, type DtlValue } from './values.js';
import { suggestion } from './name-suggestions.js';

const NULL_EXPR: Expr = () => null;

/** Argument types whose strings are used as written (names, patterns), not evaluated. */
const LITERAL_STRING_TYPES: ReadonlySet<string> = new Set(['string', 'wildcard', 'wildcard-list', 'property', 'rule-id']);

const ENV_REFERENCE = /\$ENV\(([^)]*)\)/;

/**
 * A string that still holds `$ENV(...)` after the set variables were replaced refers to an unset one: evaluating it
 * fails, so a branch that is not taken never does.
 */
function unsetVariableFailure(text: string, path: string): Expr | undefined {
  const m = ENV_REFERENCE.exec(text);
  if (m === null) return undefined;
  const message = `unknown environment variable ${JSON.stringify(m[1] ?? '')}: $ENV(${m[1] ?? ''}) is not set, and this expression needs it`;
  return () => {
    throw new DtlRuntimeError('unset-variable', message, path);
  };
}

/** Run transforms in order until one returns a stop signal. */
export function sequence(txs: readonly Tx[]): Tx {
  const list = txs.filter((t) => t !== NOOP_TX);
  const n = list.length;
  if (n === 0) return NOOP_TX;
  if (n === 1) return list[0] as Tx;
  if (n === 2) {
    const [a, b] = list as [Tx, Tx];
    return (ctx) => a(ctx) || b(ctx);
  }
  return (ctx) => {
    for (let i = 0; i < n; i++) {
      const r = (list[i] as Tx)(ctx);
      if (r) return r;
    }
    return undefined;
  };
}

function describeCount(min: number, max: number): string {
  const arg = (n: number): string => `${n} argument${n === 1 ? '' : 's'}`;
  if (max === Infinity) return `at least ${arg(min)}`;
  if (min === max) return `exactly ${arg(min)}`;
  return `${min} to ${max} arguments`;
}
/** The dict `_P` stands for: the parent's source and target, and its own parent. */
function parentDict(c: Ctx): DtlDict {
  const d: DtlDict = { _S: c.source, _T: { ...c.target } };
  if (c.parent !== null) d['_P'] = parentDict(c.parent);
  return d;
}

/** One compilation: the entry points in compiler.ts make one per rule set object or expression. */
export class Compiler implements CompileContext {
  readonly errors: ConfigError[] = [];
  private readonly modes = new WeakMap<Expr, JsonMode>();
  private readonly frames: JsonMode[][] = [];
  readonly ruleRefs = new Map<string, RuleSetRef>();

  constructor(
    private readonly registry: FunctionRegistry,
    ruleNames: readonly string[],
    readonly namespaces: NamespaceSettings | undefined = undefined,
    /** `$ENV(...)` left in a string refers to an unset variable (see CompileOptions.unsetVariables). */
    private readonly unsetVariables = false,
    /** Tracing (trace.ts): set only for a traced compile, and then every call, path, literal and step is wrapped. */
    private readonly trace?: TraceHooks,
  ) {
    for (const name of ruleNames) this.ruleRefs.set(name, { name, run: NOOP_TX });
  }

  // ---- CompileContext -----------------------------------------------------------------------------------------------

  expr(arg: ArgNode): Expr {
    const e = this.compileValue(arg.node, arg.path);
    this.frames[this.frames.length - 1]?.push(this.jsonMode(e));
    return e;
  }

  transforms(arg: ArgNode): Tx {
    return this.compileTransformList(arg.node, arg.path);
  }

  staticStrings(arg: ArgNode): string[] | undefined {
    const v = arg.node;
    if (typeof v === 'string') return [v];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return undefined;
    if (v[0] === 'list') return v.slice(1) as string[];
    // A bare JSON list of patterns, e.g. ["a*", "b*"], unless it is a call of a known function.
    return this.registry.expression(v[0] as string) === undefined ? (v as string[]) : undefined;
  }

  ruleSet(arg: ArgNode): RuleSetRef {
    const name = arg.node as string;
    const ref = this.ruleRefs.get(name);
    if (ref !== undefined) return ref;
    const known = [...this.ruleRefs.keys()];
    this.error(arg, `unknown rule set "${name}"; ${known.length === 0 ? 'no rule sets are defined' : 'the transform defines ' + known.map((k) => `"${k}"`).join(', ')}`);
    return { name, run: NOOP_TX };
  }

  jsonMode(e: Expr): JsonMode {
    return this.modes.get(e) ?? 'unknown';
  }

  toJson(e: Expr): Expr {
    const mode = this.jsonMode(e);
    if (mode === 'json') return e;
    const wrapped: Expr = mode === 'source' ? (ctx) => (ctx.sourceJson ? e(ctx) : encode(e(ctx))) : (ctx) => encode(e(ctx));
    this.modes.set(wrapped, 'json');
    return wrapped;
  }

  error(at: ArgNode | string, msg: string): void {
    this.errors.push({ elements: typeof at === 'string' ? at : at.path, level: 'error', msg });
  }

  warn(at: ArgNode | string, msg: string): void {
    this.errors.push({ elements: typeof at === 'string' ? at : at.path, level: 'warning', msg });
  }

  // ---- expressions --------------------------------------------------------------------------------------------------

  private constant(value: DtlValue): Expr {
    const e: Expr = () => value;
    this.modes.set(e, 'json');
    return e;
  }

  compileValue(node: unknown, path: string): Expr {
    const e = this.compileValueUntraced(node, path);
    if (this.trace === undefined || e === NULL_EXPR) return e;
    const kind = Array.isArray(node) ? 'call' : typeof node === 'string' && isPathString(node) ? 'path' : 'literal';
    const label = Array.isArray(node) ? String(node[0]) : kind === 'path' ? (node as string) : JSON.stringify(node);
    return this.traced(e, this.trace.expr(e, path, kind, label, Array.isArray(node) ? node.length - 1 : 0));
  }

  /** A wrapper made by the trace hooks, as JSON-safe as what it wraps. */
  private traced<T extends Expr>(e: Expr, wrapper: T): T {
    this.modes.set(wrapper, this.jsonMode(e));
    return wrapper;
  }

  private compileValueUntraced(node: unknown, path: string): Expr {
    if (node === null || typeof node === 'boolean' || typeof node === 'number' || typeof node === 'bigint') return this.constant(node);
    if (typeof node === 'string') {
      if (this.unsetVariables) {
        const unset = unsetVariableFailure(node, path);
        if (unset !== undefined) return unset;
      }
      const p = parsePath(node);
      if (p === null) return this.constant(node);
      if (typeof p === 'string') {
        this.error(path, p);
        return NULL_EXPR;
      }
      return this.compilePath(p);
    }
    if (Array.isArray(node)) return this.compileCall(node, path);
    // A float literal with a zero fraction kept from the configuration text (1.0): that number.
    const float = floatLiteralText(node);
    if (float !== undefined) return this.constant(Number(float));
    if (isJsonObject(node)) return this.constant(node);
    this.error(path, `${node === undefined ? 'a missing value' : typeof node} is not a DTL expression`);
    return NULL_EXPR;
  }

  private compileCall(node: readonly unknown[], path: string): Expr {
    const name = node[0];
    if (typeof name !== 'string') {
      this.error(path, node.length === 0 ? 'an empty list is not an expression; write ["list"] for an empty list' : 'an expression must be a list starting with a function name; write ["list", ...] for a list value');
      return NULL_EXPR;
    }
    const spec = this.registry.expression(name);
    if (spec === undefined) {
      if (this.registry.transform(name) !== undefined) {
        this.error(`${path}[0]`, `"${name}" is a transform function; it cannot be used where a value is expected`);
      } else {
        this.error(`${path}[0]`, `unknown function "${name}"${suggestion(name, this.registry.names('expression'))}`);
      }
      return NULL_EXPR;
    }
    const bound = this.bind(spec, node, path);
    if (bound === undefined) return NULL_EXPR;
    const frame: JsonMode[] = [];
    this.frames.push(frame);
    let e: Expr;
    try {
      e = spec.compile(bound, this);
    } catch (err) {
      this.error(path, `"${name}": ${err instanceof Error ? err.message : String(err)}`);
      e = NULL_EXPR;
    } finally {
      this.frames.pop();
    }
    if (!this.modes.has(e)) {
      const mode: JsonMode =
        spec.json === 'yes' ? 'json' : spec.json === 'args' ? (frame.includes('unknown') ? 'unknown' : frame.includes('source') ? 'source' : 'json') : 'unknown';
      this.modes.set(e, mode);
    }
    return e;
  }

  /**
   * The traversal of a path's property names: with namespaced identifiers on, an unqualified name matches the
   * property in every namespace (hub/dtl/namespaces.rst; a path string is the `path` function, hub/dtl/paths.rst).
   */
  private traversal(keys: readonly string[]): (value: DtlValue) => DtlValue {
    const ns = this.namespaces;
    return ns === undefined || !ns.enabled ? compileTraversal(keys) : compileNamespacedTraversal(keys, ns.propertyNamespace);
  }

  private compilePath(p: ParsedPath): Expr {
    let e: Expr;
    let mode: JsonMode = 'unknown';
    const keys = p.keys;
    switch (p.variable) {
      case '_S': {
        const t = this.traversal(keys);
        e = keys.length === 0 ? (ctx) => ctx.source : (ctx) => t(ctx.source);
        mode = 'source';
        break;
      }
      case '_T': {
        const t = this.traversal(keys);
        // The whole target is handed out as a copy: it is still being built, and storing it in itself (or in a
        // child that ends up inside it) would make a cycle.
        e = keys.length === 0 ? (ctx) => ({ ...ctx.target }) : (ctx) => t(ctx.target);
        mode = 'json';
        break;
      }
      case '_': {
        const t = this.traversal(keys);
        e = (ctx) => t(ctx.current);
        break;
      }
      case '_B': {
        const t = compileTraversal(keys); // bindings are named by the transform, never namespaced
        e = (ctx) => t(ctx.run.bindings);
        mode = 'json';
        break;
      }
      case '_R': {
        const head = keys[0];
        if (head === '_S' || head === '_T') {
          const rest = keys.slice(1);
          const t = this.traversal(rest);
          e = head === '_S' ? (ctx) => t(ctx.root.source) : rest.length === 0 ? (ctx) => ({ ...ctx.root.target }) : (ctx) => t(ctx.root.target);
          if (head === '_T') mode = 'json';
        } else {
          const t = this.traversal(keys);
          e = (ctx) => t({ _S: ctx.root.source, _T: { ...ctx.root.target } });
        }
        break;
      }
      case '_P': {
        let depth = 1;
        let i = 0;
        while (keys[i] === '_P') {
          depth++;
          i++;
        }
        const up = (ctx: Ctx): Ctx | null => {
          let c: Ctx | null = ctx;
          for (let d = 0; d < depth && c !== null; d++) c = c.parent;
          return c;
        };
        const head = keys[i];
        if (head === '_S' || head === '_T') {
          const rest = keys.slice(i + 1);
          const t = this.traversal(rest);
          const whole = rest.length === 0 && head === '_T';
          e =
            head === '_S'
              ? (ctx) => {
                  const c = up(ctx);
                  return c === null ? null : t(c.source);
                }
              : (ctx) => {
                  const c = up(ctx);
                  return c === null ? null : whole ? { ...c.target } : t(c.target);
                };
          if (head === '_T') mode = 'json';
        } else {
          const t = this.traversal(keys.slice(i));
          e = (ctx) => {
            const c = up(ctx);
            return c === null ? null : t(parentDict(c));
          };
        }
        break;
      }
    }
    this.modes.set(e, mode);
    return e;
  }

  // ---- arguments ----------------------------------------------------------------------------------------------------

  private bind(spec: FunctionSpec, node: readonly unknown[], path: string): BoundArgs | undefined {
    const args: ArgNode[] = [];
    for (let i = 1; i < node.length; i++) args.push({ node: node[i], path: `${path}[${i}]` });
    const n = args.length;
    let min = 0;
    let max = 0;
    for (const p of spec.params) {
      if (p.card === '1') {
        min++;
        max++;
      } else if (p.card === '0|1') {
        max++;
      } else {
        if (p.card === '>=1') min++;
        max = Infinity;
      }
    }
    const signature = signatureOf(spec);
    if (n < min || n > max) {
      this.error(path, `"${spec.name}" takes ${describeCount(min, max)}, not ${n}${signature === '' ? '' : ': ' + signature}`);
      return undefined;
    }
    const custom = spec.arity?.(n);
    if (custom !== undefined) {
      this.error(path, `"${spec.name}": ${custom}`);
      return undefined;
    }
    let extra = n - min;
    let k = 0;
    const assigned = new Map<string, ArgNode[]>();
    let ok = true;
    for (const p of spec.params) {
      let take: number;
      if (p.card === '1') take = 1;
      else if (p.card === '0|1') take = extra > 0 ? 1 : 0;
      else take = (p.card === '>=1' ? 1 : 0) + extra;
      if (p.card !== '1') extra -= take - (p.card === '>=1' ? 1 : 0);
      const list = args.slice(k, k + take);
      k += take;
      assigned.set(p.name, list);
      for (const a of list) ok = this.checkShape(spec, p, a) && ok;
    }
    if (!ok) return undefined;
    const name = spec.name;
    return {
      at: path,
      args,
      one(param: string): ArgNode {
        const a = assigned.get(param)?.[0];
        if (a === undefined) throw new Error(`internal: "${name}" has no argument ${param}`);
        return a;
      },
      opt(param: string): ArgNode | undefined {
        return assigned.get(param)?.[0];
      },
      many(param: string): readonly ArgNode[] {
        return assigned.get(param) ?? [];
      },
    };
  }

  private checkShape(spec: FunctionSpec, p: ParamSpec, a: ArgNode): boolean {
    const v = a.node;
    // A literal argument (a property name, a pattern, ...) is needed to compile: an unset variable there is an error.
    if (this.unsetVariables && typeof v === 'string' && LITERAL_STRING_TYPES.has(p.type) && ENV_REFERENCE.test(v)) {
      this.error(a, `${p.name} of "${spec.name}" refers to $ENV(${ENV_REFERENCE.exec(v)?.[1] ?? ''}), which is not set`);
      return false;
    }
    const fail = (what: string): false => {
      this.error(a, `${p.name} of "${spec.name}" must be ${what}`);
      return false;
    };
    switch (p.type) {
      case 'string':
      case 'wildcard':
        return typeof v === 'string' || fail('a literal string');
      case 'rule-id':
        return typeof v === 'string' || fail('the name of a rule set (a literal string)');
      case 'wildcard-list':
        return typeof v === 'string' || Array.isArray(v) || fail('a pattern string or a list of patterns');
      case 'property':
        return typeof v === 'string' || Array.isArray(v) || fail('a property name or an expression giving property names');
      case 'transforms':
        return Array.isArray(v) || fail('a transform function or a list of transform functions');
      case 'integer':
        if (typeof v === 'number') return Number.isInteger(v) || fail('an integer');
        if (typeof v === 'bigint') return true;
        if (typeof v === 'string') return isPathString(v) || fail('an integer or an integer expression');
        return Array.isArray(v) || fail('an integer or an integer expression');
      default:
        return true;
    }
  }

  // ---- transforms ---------------------------------------------------------------------------------------------------

  compileTransform(node: unknown, path: string): Tx {
    if (!Array.isArray(node) || typeof node[0] !== 'string') {
      this.error(path, 'a transform must be a list starting with the name of a transform function, e.g. ["add", "name", "_S.name"]');
      return NOOP_TX;
    }
    const name = node[0];
    const spec = this.registry.transform(name);
    if (spec === undefined) {
      if (this.registry.expression(name) !== undefined) {
        this.error(`${path}[0]`, `"${name}" is not a transform function; it can only be used inside the arguments of one (e.g. ["add", "x", ["${name}", ...]])`);
      } else {
        this.error(`${path}[0]`, `unknown transform function "${name}"${suggestion(name, this.registry.names('transform'))}`);
      }
      return NOOP_TX;
    }
    const bound = this.bind(spec, node, path);
    if (bound === undefined) return NOOP_TX;
    try {
      const tx = spec.compile(bound, this);
      return this.trace === undefined || tx === NOOP_TX ? tx : this.trace.tx(tx, path, name, node.length - 1);
    } catch (err) {
      this.error(path, `"${name}": ${err instanceof Error ? err.message : String(err)}`);
      return NOOP_TX;
    }
  }

  /** One transform (a list starting with a name) or a list of transforms (possibly empty). */
  compileTransformList(node: unknown, path: string): Tx {
    if (!Array.isArray(node)) {
      this.error(path, 'expected a transform function or a list of transform functions');
      return NOOP_TX;
    }
    if (node.length > 0 && typeof node[0] === 'string') return this.compileTransform(node, path);
    return sequence(node.map((t, i) => this.compileTransform(t, `${path}[${i}]`)));
  }

  compileRuleSet(node: unknown, path: string): Tx {
    if (!Array.isArray(node)) {
      this.error(path, 'a rule set must be a list of transform functions');
      return NOOP_TX;
    }
    // A rule set may be written as one transform instead of a list of them: "default": ["copy", "*"].
    if (typeof node[0] === 'string') return this.compileTransform(node, path);
    return sequence(node.map((t, i) => this.compileTransform(t, `${path}[${i}]`)));
  }
}
