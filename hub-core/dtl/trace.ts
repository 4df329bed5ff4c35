// Tracing a DTL transform: how each output property came to be. A traced transform is a separate compile whose every
// call, path, literal and step is wrapped by the Tracer's hooks (trace-hooks.ts); an untraced compile never sees
// this file, so pipes pay nothing for it.
//
// What is recorded per source entity (trace-types.ts): the steps of the default rule set as a tree of nodes, each
// sub-expression with its value, the properties each step set or removed itself (not through a step inside it), the
// branch an if/case/case-eq took, the look-ups of joins (through a wrapped DtlLookup), the entities `create` made,
// the filter/discard that stopped the rules and why. Everything is bounded by TraceLimits.

import type { JsonObject, JsonValue } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import { compileExpression, childPath } from './compiler.js';
import { DtlCompileError, DtlRuntimeError, STOP_DISCARD, STOP_FILTER, type Ctx, type Expr, type Stop, type Tx } from './context.js';
import type { DtlLookup } from './lookup.js';
import type { TraceHooks, TracedExprKind } from './trace-hooks.js';
import {
  DEFAULT_TRACE_LIMITS,
  type EntityTrace,
  type TraceBranch,
  type TraceLimits,
  type TraceNode,
  type TracePropertyChange,
  type TracePropertyEvent,
  type TransformTrace,
} from './trace-types.js';
import { compileStages, runStage, wrapError, type DtlTransformOptions } from './transform.js';
import { encode, isDict, isTruthy, type DtlDict, type DtlValue } from './values.js';

/** A value as JSON, shortened to the limits. */
export function boundedValue(v: DtlValue, limits: TraceLimits): { value: JsonValue; truncated: boolean } {
  let truncated = false;
  const walk = (x: DtlValue, depth: number): JsonValue => {
    if (typeof x === 'string') {
      if (x.length <= limits.maxStringLength) return x;
      truncated = true;
      return x.slice(0, limits.maxStringLength) + '…';
    }
    if (Array.isArray(x)) {
      if (depth >= limits.maxValueDepth) {
        truncated = true;
        return ['…'];
      }
      if (x.length > limits.maxListItems) truncated = true;
      return x.slice(0, limits.maxListItems).map((y) => walk(y, depth + 1));
    }
    if (isDict(x)) {
      if (depth >= limits.maxValueDepth) {
        truncated = true;
        return { '…': '…' };
      }
      const out: Record<string, JsonValue> = {};
      let n = 0;
      for (const [k, y] of Object.entries(x)) {
        if (n++ >= limits.maxListItems) {
          truncated = true;
          break;
        }
        // (defined, not assigned: a "__proto__" key is data here)
        Object.defineProperty(out, k, { value: walk(y, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return encode(x);
  };
  const value = walk(v, 0);
  return { value, truncated };
}

interface Frame {
  node: TraceNode | null;
  readonly at: string;
  readonly name: string;
  readonly args: number;
  /** Steps: the target and its properties before the step ran. */
  readonly target: DtlDict | null;
  readonly before: Map<string, DtlValue> | null;
  /** Steps: properties and created entities a step inside this one already accounted for. */
  claimed: Set<string> | null;
  claimedEmits: Set<JsonObject> | null;
  readonly emitBefore: number;
  /** The highest argument index evaluated directly below, and the value of argument 1. */
  maxArg: number;
  firstValue: DtlValue | undefined;
  stoppedInside: boolean;
}

const BRANCHING = new Set(['if', 'case', 'case-eq']);

function argIndexBelow(parentAt: string, at: string): number {
  if (!at.startsWith(parentAt + '[')) return -1;
  const m = /^\[(\d+)\]/.exec(at.slice(parentAt.length));
  return m === null ? -1 : Number(m[1]);
}

function levelOf(ctx: Ctx): number {
  let n = 0;
  for (let c = ctx.parent; c !== null; c = c.parent) n++;
  return n;
}

/** The branch an if/case/case-eq took, from the arguments that were evaluated. */
function branchOf(name: string, f: Frame): TraceBranch {
  const n = f.args;
  const k = f.maxArg;
  if (name === 'if') {
    if (f.firstValue !== undefined && isTruthy(f.firstValue)) return { argument: 2, label: 'then' };
    return n >= 3 ? { argument: 3, label: 'else' } : { argument: null, label: 'none (the condition was false and there is no else)' };
  }
  if (name === 'case') {
    if (k >= 2 && k % 2 === 0) return { argument: k, label: `clause ${k / 2}` };
    if (k === n && n % 2 === 1) return { argument: k, label: 'else' };
    return { argument: null, label: 'none (no condition was true and there is no else)' };
  }
  if (k >= 3 && k % 2 === 1 && !(k === n && n % 2 === 0)) return { argument: k, label: `clause ${(k - 1) / 2}` };
  if (k === n && n % 2 === 0) return { argument: k, label: 'else' };
  return { argument: null, label: 'none (no value was equal and there is no else)' };
}

/** The JSON element at hub path `at`, given the element `root` at path `base`; undefined when it is not there. */
function elementAt(root: unknown, base: string, at: string): unknown {
  if (!at.startsWith(base)) return undefined;
  let node = root;
  let rest = at.slice(base.length);
  while (rest.length > 0) {
    const m = /^\.([^.[\]]+)|^\[(\d+)\]|^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (m === null) return undefined;
    const key: string | number = m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3] as string) as string));
    if (typeof key === 'number' ? !Array.isArray(node) : node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
    rest = rest.slice(m[0].length);
  }
  return node;
}

/**
 * Paths are labelled as written in the configuration: a join compiles its where-clauses from rewritten paths
 * ("c.name" runs as "_S.'c'.name"), and the trace should show what the user wrote.
 */
function labelAsWritten(nodes: readonly TraceNode[], root: unknown, base: string): void {
  for (const n of nodes) {
    if (n.kind === 'path') {
      const written = elementAt(root, base, n.at);
      if (typeof written === 'string') n.name = written;
    }
    if (n.children) labelAsWritten(n.children, root, base);
  }
}

/** Records one entity at a time; its hooks are compiled into the traced closures. */
export class Tracer {
  private stack: Frame[] = [];
  private nodes = 0;
  private nextId = 0;
  private truncated = false;
  private properties: Record<string, TracePropertyEvent[]> = {};
  private creators = new Map<JsonObject, { step: number; at: string }>();
  private rootStop: Stop | undefined;
  private lastStop: EntityTrace['stoppedBy'];
  private root: TraceNode = this.rootNode();

  constructor(readonly limits: TraceLimits) {}

  private rootNode(): TraceNode {
    return { id: -1, kind: 'step', name: '(rules)', at: '', level: 0, children: [] };
  }

  readonly hooks: TraceHooks = {
    expr: (e: Expr, at: string, kind: TracedExprKind, label: string, args: number): Expr => {
      return (ctx) => {
        const f = this.enter(kind, label, at, ctx, args, false);
        let v: DtlValue;
        try {
          v = e(ctx);
        } catch (err) {
          this.fail(f, err);
          throw err;
        }
        this.exitExpr(f, v);
        return v;
      };
    },
    tx: (t: Tx, at: string, name: string, args: number): Tx => {
      return (ctx) => {
        const f = this.enter('step', name, at, ctx, args, true);
        let r: Stop | void;
        try {
          r = t(ctx);
        } catch (err) {
          this.fail(f, err);
          this.exitStep(f, ctx, undefined);
          throw err;
        }
        this.exitStep(f, ctx, r);
        return r;
      };
    },
  };

  // ---- one entity ---------------------------------------------------------------------------------------------------

  begin(entity: JsonObject): void {
    this.root = this.rootNode();
    this.stack = [this.frame(this.root, '', '(rules)', 0, null)];
    this.nodes = 0;
    this.nextId = 0;
    this.truncated = false;
    this.properties = {};
    this.creators = new Map();
    this.rootStop = undefined;
    this.lastStop = undefined;
    if (entity['_id'] !== undefined) this.event('_id', { action: 'set', step: -1, name: '(source)', at: '', value: entity['_id'] });
    if (entity['_deleted'] === true) this.event('_deleted', { action: 'set', step: -1, name: '(source)', at: '', value: true });
  }

  /** The entity's trace, given what the stage output (emitted entities first, then the target if it was kept). */
  finish(transform: number, at: string, entity: JsonObject, out: readonly JsonObject[], error?: DtlRuntimeError): EntityTrace {
    const created: EntityTrace['created'] = [];
    let target: JsonObject | undefined;
    for (const o of out) {
      const c = this.creators.get(o);
      if (c !== undefined) created.push({ _id: String(o['_id']), step: c.step, at: c.at });
      else target = o;
    }
    let outcome: EntityTrace['outcome'];
    if (error !== undefined) outcome = 'error';
    else if (this.rootStop === STOP_DISCARD) outcome = 'discarded';
    else if (target === undefined) outcome = 'no-id';
    else outcome = this.rootStop === STOP_FILTER ? 'filtered' : 'output';
    if (outcome === 'filtered') {
      const by = this.lastStop;
      for (const p of ['_deleted', '_filtered']) this.event(p, { action: 'set', step: by?.step ?? -1, name: '(filter)', at: by?.at ?? '', value: true });
    }
    const trace: EntityTrace = {
      transform,
      at,
      source: typeof entity['_id'] === 'string' ? entity['_id'] : null,
      outcome,
      steps: this.root.children ?? [],
      properties: this.properties,
      created,
      nodes: this.nodes,
      truncated: this.truncated,
    };
    if ((outcome === 'filtered' || outcome === 'discarded') && this.lastStop) trace.stoppedBy = this.lastStop;
    if (error !== undefined) trace.error = { msg: error.message, elements: error.elements ?? null };
    return trace;
  }

  /** The node of the innermost step or expression being evaluated (null at the root or beyond the limits). */
  currentNode(): TraceNode | null {
    return this.stack.length > 1 ? this.top().node : null;
  }

  /** The top-level nodes recorded since `begin` (for a traced expression). */
  recorded(): { nodes: TraceNode[]; count: number; truncated: boolean } {
    return { nodes: this.root.children ?? [], count: this.nodes, truncated: this.truncated };
  }

  // ---- frames -------------------------------------------------------------------------------------------------------

  private frame(node: TraceNode | null, at: string, name: string, args: number, ctx: Ctx | null, step = false): Frame {
    const target = step && ctx !== null ? ctx.target : null;
    return {
      node,
      at,
      name,
      args,
      target,
      before: target === null ? null : new Map(Object.entries(target)),
      claimed: null,
      claimedEmits: null,
      emitBefore: step && ctx !== null ? (ctx.run.emitted?.length ?? 0) : 0,
      maxArg: -1,
      firstValue: undefined,
      stoppedInside: false,
    };
  }

  private top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  /** A new node below the current one, or null when the limits leave it out. */
  private newNode(kind: TraceNode['kind'], name: string, at: string, level: number): TraceNode | null {
    const parent = this.top().node;
    if (parent === null) return null;
    const children = parent.children ?? (parent.children = []);
    const atRoot = this.stack.length === 1;
    if (this.nodes >= this.limits.maxNodes || this.stack.length > this.limits.maxDepth || (!atRoot && children.length >= this.limits.maxChildren)) {
      parent.omitted = (parent.omitted ?? 0) + 1;
      this.truncated = true;
      return null;
    }
    this.nodes++;
    const node: TraceNode = { id: this.nextId++, kind, name, at, level };
    children.push(node);
    return node;
  }

  private enter(kind: TraceNode['kind'], name: string, at: string, ctx: Ctx, args: number, step: boolean): Frame {
    const parent = this.top();
    const k = argIndexBelow(parent.at, at);
    if (k > parent.maxArg) parent.maxArg = k;
    const node = this.newNode(kind, name, at, levelOf(ctx));
    const f = this.frame(node, at, name, args, ctx, step);
    this.stack.push(f);
    return f;
  }

  private value(node: TraceNode, v: DtlValue): void {
    const b = boundedValue(v, this.limits);
    node.value = b.value;
    if (b.truncated) node.truncated = true;
  }

  private exitExpr(f: Frame, v: DtlValue): void {
    this.stack.pop();
    const parent = this.top();
    if (parent.firstValue === undefined && argIndexBelow(parent.at, f.at) === 1) parent.firstValue = v;
    if (f.node === null) return;
    this.value(f.node, v);
    if (BRANCHING.has(f.name)) f.node.branch = branchOf(f.name, f);
  }

  private fail(f: Frame, err: unknown): void {
    if (f.node !== null && f.node.error === undefined) f.node.error = err instanceof Error ? err.message : String(err);
    if (f.target === null) this.stack.pop();
  }

  private exitStep(f: Frame, ctx: Ctx, r: Stop | void): void {
    if (this.top() === f) this.stack.pop();
    const node = f.node;
    const id = node?.id ?? -1;
    // Which properties of its target the step changed itself.
    const target = f.target as DtlDict;
    const before = f.before as Map<string, DtlValue>;
    const changed: string[] = [];
    for (const [k, v] of Object.entries(target)) if (!before.has(k) || before.get(k) !== v) changed.push(k);
    for (const k of before.keys()) if (!(k in target)) changed.push(k);
    const own = f.claimed === null ? changed : changed.filter((k) => !(f.claimed as Set<string>).has(k));
    const enclosing = this.enclosingStep();
    if (enclosing !== undefined && enclosing.target === target) {
      const claimed = enclosing.claimed ?? (enclosing.claimed = new Set());
      for (const k of changed) claimed.add(k);
    }
    const root = ctx.parent === null;
    const changes: TracePropertyChange[] = [];
    for (const k of own) {
      const change: TracePropertyChange = k in target ? { property: k, action: 'set' } : { property: k, action: 'removed' };
      if (change.action === 'set') {
        const b = boundedValue(target[k] as DtlValue, this.limits);
        change.value = b.value;
        if (b.truncated) change.truncated = true;
      }
      changes.push(change);
      if (root) {
        const ev: TracePropertyEvent = { action: change.action, step: id, name: f.name, at: f.at };
        if (change.value !== undefined) ev.value = change.value;
        if (change.truncated) ev.truncated = true;
        this.event(k, ev);
      }
    }
    if (node !== null && changes.length > 0) node.changes = changes;
    // The entities it created itself.
    const emitted = ctx.run.emitted;
    if (emitted !== null && emitted.length > f.emitBefore) {
      const fresh = emitted.slice(f.emitBefore);
      const ownEmits = f.claimedEmits === null ? fresh : fresh.filter((e) => !(f.claimedEmits as Set<JsonObject>).has(e));
      for (const e of ownEmits) this.creators.set(e, { step: id, at: f.at });
      if (node !== null && ownEmits.length > 0) node.created = ownEmits.slice(0, this.limits.maxListItems).map((e) => String(e['_id']));
      if (enclosing !== undefined) {
        const claimed = enclosing.claimedEmits ?? (enclosing.claimedEmits = new Set());
        for (const e of fresh) claimed.add(e);
      }
    }
    if (node !== null && BRANCHING.has(f.name)) node.branch = branchOf(f.name, f);
    if (r) {
      if (node !== null) node.stop = r === STOP_FILTER ? 'filter' : 'discard';
      if ((f.name === 'filter' || f.name === 'discard') && !f.stoppedInside) {
        const reason =
          f.args === 0
            ? `"${f.name}" without a condition always stops the rules`
            : `its condition gave ${JSON.stringify(boundedValue(f.firstValue ?? null, this.limits).value)}, which is not true`;
        this.lastStop = { step: id, name: f.name, at: f.at, reason };
      }
      this.top().stoppedInside = true;
      if (this.stack.length === 1) this.rootStop = r;
    }
  }

  private enclosingStep(): Frame | undefined {
    for (let i = this.stack.length - 1; i >= 1; i--) {
      const f = this.stack[i] as Frame;
      if (f.target !== null) return f;
    }
    return undefined;
  }

  private event(property: string, ev: TracePropertyEvent): void {
    (this.properties[property] ??= []).push(ev);
  }

  /** A look-up a join made, recorded below the current node. */
  lookup(dataset: string, by: string, keys: readonly JsonValue[], matched: readonly JsonObject[]): void {
    const parent = this.top();
    const node = this.newNode('lookup', 'lookup', parent.at, parent.node?.level ?? 0);
    if (node === null) return;
    node.lookup = {
      dataset,
      by,
      keys: keys.slice(0, this.limits.maxListItems).map((k) => boundedValue(k, this.limits).value),
      matched: matched.slice(0, this.limits.maxListItems).map((e) => String(e['_id'])),
      count: matched.length,
    };
  }
}

/** A DtlLookup that tells the tracer what each look-up asked and found. */
class TracingLookup implements DtlLookup {
  constructor(
    private readonly inner: DtlLookup,
    private readonly tracer: Tracer,
  ) {}

  lookupByIndex(dataset: string, path: readonly string[], keys: readonly JsonValue[]): JsonObject[] {
    const found = [...this.inner.lookupByIndex(dataset, path, keys)];
    this.tracer.lookup(dataset, path.join('.'), keys, found);
    return found;
  }

  entity(dataset: string, id: string): JsonObject | undefined {
    const e = this.inner.entity(dataset, id);
    this.tracer.lookup(dataset, '_id', [id], e === undefined ? [] : [e]);
    return e;
  }
}

function limitsOf(limits: Partial<TraceLimits> | undefined): TraceLimits {
  return { ...DEFAULT_TRACE_LIMITS, ...(limits ?? {}) };
}

export interface TracedRun {
  /** What the transform output (as an untraced run would), up to an error. */
  entities: JsonObject[];
  trace: TransformTrace;
  /** The error the transform raised, if any (its trace has outcome "error"). */
  error?: DtlRuntimeError;
}

export interface TracedTransform {
  readonly errors: ConfigError[];
  readonly ok: boolean;
  /** Transform one source entity and record how. Throws DtlCompileError when `ok` is false. */
  run(entity: JsonObject): TracedRun;
}

/**
 * Something that watches a traced run from inside the tracer's wrappers (the step-through recorder): each step and
 * expression it wraps runs within the tracer's own wrapper, so `tracer.currentNode()` is that step's trace node.
 */
export interface TraceObserver {
  tx(t: Tx, at: string, name: string): Tx;
  expr(e: Expr, at: string, kind: TracedExprKind, label: string): Expr;
  /** A source entity is about to go through transform `transform` of a chain. */
  begin(transform: number, entity: JsonObject): void;
}

/** Compile a transform (or a chain) for tracing: slower than compileTransform, for previews and the CLI only. */
export function compileTracedTransform(
  transform: unknown,
  options: DtlTransformOptions & { limits?: Partial<TraceLimits>; observe?: (tracer: Tracer) => TraceObserver } = {},
): TracedTransform {
  const limits = limitsOf(options.limits);
  const tracer = new Tracer(limits);
  const lookup = options.lookup ? new TracingLookup(options.lookup, tracer) : undefined;
  const observer = options.observe?.(tracer);
  const hooks: TraceHooks =
    observer === undefined
      ? tracer.hooks
      : {
          expr: (e, at, kind, label, args) => tracer.hooks.expr(observer.expr(e, at, kind, label), at, kind, label, args),
          tx: (t, at, name, args) => tracer.hooks.tx(observer.tx(t, at, name), at, name, args),
        };
  const { errors, stages } = compileStages(transform, options, { hooks, lookup });
  const ok = !errors.some((e) => e.level === 'error');
  const base = options.configPath ?? '$.transform';
  const chained = Array.isArray(transform);
  return {
    errors,
    ok,
    run(entity: JsonObject): TracedRun {
      if (!ok) throw new DtlCompileError(errors);
      const traces: EntityTrace[] = [];
      let current: JsonObject[] = [entity];
      let failure: DtlRuntimeError | undefined;
      stages.forEach((stage, i) => {
        if (failure !== undefined) return;
        const at = childPath(chained ? childPath(base, i) : base, 'rules');
        const next: JsonObject[] = [];
        for (const e of current) {
          tracer.begin(e);
          observer?.begin(i, e);
          let out: JsonObject[] = [];
          try {
            out = runStage(stage, e);
          } catch (err) {
            const wrapped = wrapError(err, e);
            if (!(wrapped instanceof DtlRuntimeError)) throw wrapped;
            failure = wrapped;
            if (stage.state) stage.state.emitted = null;
            traces.push(tracer.finish(i, at, e, [], wrapped));
            return;
          }
          traces.push(tracer.finish(i, at, e, out));
          next.push(...out);
        }
        current = next;
      });
      for (const t of traces) labelAsWritten(t.steps, transform, base);
      const entities = failure === undefined ? current : [];
      return { entities, trace: { entities: traces, limits }, ...(failure ? { error: failure } : {}) };
    },
  };
}

export interface TracedExpression {
  value: DtlValue;
  error?: string;
  /** The expression's node (with its sub-expressions below it). */
  nodes: TraceNode[];
  truncated: boolean;
}

/** Evaluate one expression with `source` as `_S` and record every sub-expression (for tests and the CLI). */
export function traceExpression(
  expr: unknown,
  input: { source?: DtlValue; lookup?: DtlLookup; rules?: JsonObject; limits?: Partial<TraceLimits> } = {},
): TracedExpression {
  const tracer = new Tracer(limitsOf(input.limits));
  const compiled = compileExpression(expr, { trace: tracer.hooks, ...(input.rules ? { rules: input.rules } : {}) });
  tracer.begin({});
  let value: DtlValue = null;
  let error: string | undefined;
  try {
    value = compiled.evaluate({ source: input.source ?? {}, ...(input.lookup ? { lookup: new TracingLookup(input.lookup, tracer) } : {}) });
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const r = tracer.recorded();
  labelAsWritten(r.nodes, expr, '$');
  return { value, ...(error !== undefined ? { error } : {}), nodes: r.nodes, truncated: r.truncated };
}
