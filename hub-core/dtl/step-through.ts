// Step-through of a DTL transform for one entity: a recording debugger on the trace machinery (trace.ts). The traced
// compile runs the entity once; an observer inside the tracer's wrappers records, for every step of every rule set
// (and every call of apply, hops and apply-hops), where it is, how deep, and `_S`, `_T` and `_P` before and after it.
// A call is recorded twice: where it starts and where it returns (its value and the caller's `_T` then), so that
// "step out" of a rule set run by apply lands back on the apply, as a debugger returns to the calling line.
// The UI then moves through the recording (continue, step over/into/out). A conditional breakpoint is a DTL
// expression compiled by the same compiler and evaluated in each step's own context just before the step runs: one
// for every step (`condition`), or one per line breakpoint (`conditionsAt`, by the step's JSON path).

import type { JsonObject, JsonValue } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import { Ctx, RunState, type Expr, type Tx } from './context.js';
import { Compiler } from './expression-compiler.js';
import { registry as defaultRegistry } from './functions/index.js';
import type { DtlLookup } from './lookup.js';
import type { NamespaceSettings } from './namespace-settings.js';
import { boundedValue, compileTracedTransform, type TraceObserver, type Tracer } from './trace.js';
import { DEFAULT_TRACE_LIMITS, type TraceLimits, type TransformTrace } from './trace-types.js';
import type { DtlTransformOptions } from './transform.js';
import { isTruthy, type DtlDict, type DtlValue } from './values.js';
import { setRunNamespaces } from './functions/identifiers.js';

/** How much a step-through records; past these it stops recording and says why (the transform still runs). */
export interface StepLimits {
  /** Steps recorded. */
  maxSteps: number;
  /** Characters of all distinct snapshots together (as JSON). */
  maxSnapshotChars: number;
}

export const DEFAULT_STEP_LIMITS: StepLimits = { maxSteps: 2000, maxSnapshotChars: 4_000_000 };
export const MAX_STEPS = 10_000;

/** Calls that nest rule sets or joins: recorded as steps of their own so that "step into" can enter them. */
const NESTING_CALLS: ReadonlySet<string> = new Set(['apply', 'apply-hops', 'hops']);

/** One recorded step (a transform function) or nesting call (apply, hops, apply-hops), or a call's return. */
export interface StepRecord {
  /** Its place in the recording. */
  index: number;
  /** Which transform of a chain. */
  transform: number;
  /** "return": the point where a call has returned (same place and depth as its "call"; `value` is its result). */
  kind: 'step' | 'call' | 'return';
  /** The function: "add", "filter", "apply", ... */
  name: string;
  /** JSON path of the element in the configuration ("$.transform.rules.default[2]"). */
  at: string;
  /** The rule set the step belongs to and its index there (null for a call, which sits inside a step). */
  rule: string | null;
  step: number | null;
  /** Nesting in the recording: 0 for the steps of an entity's default rule set. */
  depth: number;
  /** The step's node in the trace of the same run (null when the trace's limits left it out). */
  node: number | null;
  /** Snapshots (indices into `values`): `_S`, `_T` before and after, and `_P` ({_S, _T} of the parent; null at the root). */
  source: number;
  before: number;
  after: number;
  parent: number | null;
  /** Properties of `_T` the step changed (by itself or by steps inside it). */
  changed: string[];
  /** A call's value (index into `values`): on the call and on its return. */
  value?: number;
  /** On a return: the index of its call. */
  call?: number;
  stop?: 'filter' | 'discard';
  error?: string;
  /** The conditional breakpoint was true (as `if` takes it) just before the step ran. */
  hit?: true;
  /** The conditional breakpoint failed in this step's context. */
  conditionError?: string;
  /** The condition of the line breakpoint at this step was true just before it ran. */
  breakHit?: true;
  /** The condition of the line breakpoint at this step failed in its context. */
  breakError?: string;
}

export interface StepRecording {
  steps: StepRecord[];
  /** Distinct snapshots, referenced by index from the steps. */
  values: JsonValue[];
  /** Why the recording stopped before the run ended (in words), or null. */
  cut: string | null;
  limits: StepLimits;
  /** The trace of the same run (trace.ts). */
  trace: TransformTrace;
  /** What the transform output. */
  output: JsonObject[];
  error: { msg: string; elements: string | null } | null;
  /** The conditional breakpoint: how many steps it held at. */
  condition: { hits: number; errors: number } | null;
  /** Per line breakpoint with a condition (by JSON path): how many times it held, and failed. */
  conditionsAt: Record<string, { hits: number; errors: number }>;
}

/** A conditional breakpoint compiled: null when there is none; its compile problems when it does not compile. */
export interface CompiledCondition {
  errors: ConfigError[];
  expr: Expr | null;
}

/** Compile a conditional breakpoint with the DTL compiler, as an expression at "$condition". */
export function compileCondition(expression: unknown, namespaces?: NamespaceSettings): CompiledCondition {
  const compiler = new Compiler(defaultRegistry, [], namespaces?.enabled === true ? namespaces : undefined);
  const expr = compiler.compileValue(expression, '$condition');
  return { errors: compiler.errors, expr: compiler.errors.some((e) => e.level === 'error') ? null : expr };
}

interface Open {
  record: StepRecord | null;
  target: DtlDict;
  before: Map<string, DtlValue>;
}

/** Records the steps of a run; its hooks run inside the tracer's wrappers. */
class StepRecorder implements TraceObserver {
  readonly steps: StepRecord[] = [];
  readonly values: JsonValue[] = [];
  private readonly valueIndex = new Map<string, number>();
  private chars = 0;
  cut: string | null = null;
  private open: Open[] = [];
  private transform = 0;
  /** The panel's condition: how many steps it held at, and failed at. */
  readonly everywhere = { hits: 0, errors: 0 };
  readonly conditionsAt: Record<string, { hits: number; errors: number }> = {};

  constructor(
    private readonly tracer: Tracer,
    private readonly limits: StepLimits,
    private readonly traceLimits: TraceLimits,
    private readonly condition: Expr | null,
    private readonly conditionState: RunState,
    private readonly atConditions: ReadonlyMap<string, Expr>,
  ) {
    for (const at of atConditions.keys()) this.conditionsAt[at] = { hits: 0, errors: 0 };
  }

  begin(transform: number): void {
    this.transform = transform;
    this.open = [];
  }

  tx(t: Tx, at: string, name: string): Tx {
    return (ctx) => {
      const o = this.enter('step', name, at, ctx);
      let r: ReturnType<Tx>;
      try {
        r = t(ctx);
      } catch (err) {
        this.exit(o, ctx, undefined, err);
        throw err;
      }
      this.exit(o, ctx, undefined, undefined, r === undefined ? undefined : r === 1 ? 'filter' : 'discard');
      return r;
    };
  }

  expr(e: Expr, at: string, kind: string, label: string): Expr {
    if (kind !== 'call' || !NESTING_CALLS.has(label)) return e;
    return (ctx) => {
      const o = this.enter('call', label, at, ctx);
      let v: DtlValue;
      try {
        v = e(ctx);
      } catch (err) {
        this.exit(o, ctx, undefined, err);
        throw err;
      }
      this.exit(o, ctx, v);
      if (o.record !== null) this.returned(o.record, ctx);
      return v;
    };
  }

  /** The index of a snapshot of `v`, shared with equal snapshots. */
  private snapshot(v: DtlValue): number {
    const json = boundedValue(v, this.traceLimits).value;
    const text = JSON.stringify(json);
    const known = this.valueIndex.get(text);
    if (known !== undefined) return known;
    this.chars += text.length;
    this.values.push(json);
    this.valueIndex.set(text, this.values.length - 1);
    return this.values.length - 1;
  }

  /** Whether another step may be recorded (else the recording is cut, saying why). */
  private room(): boolean {
    if (this.cut !== null) return false;
    if (this.steps.length >= this.limits.maxSteps) {
      this.cut = `the recording stops after ${this.limits.maxSteps} steps; the transform ran on to the end (see the trace)`;
      return false;
    }
    if (this.chars >= this.limits.maxSnapshotChars) {
      this.cut = `the recording stops after ${this.steps.length} steps: the snapshots reached ${this.limits.maxSnapshotChars} characters`;
      return false;
    }
    return true;
  }

  /** The point after a call returned: the call's place again, its value, and the caller's `_T` as it is now. */
  private returned(call: StepRecord, ctx: Ctx): void {
    if (!this.room()) return;
    const target = this.snapshot(ctx.target);
    const { transform, name, at, rule, step, depth, node, source, parent, value } = call;
    const record: StepRecord = { index: this.steps.length, transform, kind: 'return', name, at, rule, step, depth, node, source, before: target, after: target, parent, changed: [], call: call.index };
    if (value !== undefined) record.value = value;
    this.steps.push(record);
  }

  private enter(kind: StepRecord['kind'], name: string, at: string, ctx: Ctx): Open {
    const o: Open = { record: null, target: ctx.target, before: new Map(Object.entries(ctx.target)) };
    const depth = this.open.length;
    this.open.push(o);
    if (!this.room()) return o;
    const place = kind === 'step' ? ruleOf(at) : null;
    const record: StepRecord = {
      index: this.steps.length,
      transform: this.transform,
      kind,
      name,
      at,
      rule: place?.rule ?? null,
      step: place?.step ?? null,
      depth,
      node: this.tracer.currentNode()?.id ?? null,
      source: this.snapshot(ctx.source),
      before: this.snapshot(ctx.target),
      after: -1,
      parent: ctx.parent === null ? null : this.snapshot({ _S: ctx.parent.source, _T: ctx.parent.target }),
      changed: [],
    };
    if (this.condition !== null) {
      const held = this.test(this.condition, ctx, this.everywhere);
      if (held === true) record.hit = true;
      else if (held !== false) record.conditionError = held.error;
    }
    const atCondition = kind === 'step' ? this.atConditions.get(at) : undefined;
    if (atCondition !== undefined) {
      const held = this.test(atCondition, ctx, this.conditionsAt[at]!);
      if (held === true) record.breakHit = true;
      else if (held !== false) record.breakError = held.error;
    }
    this.steps.push(record);
    o.record = record;
    return o;
  }

  /**
   * Evaluate a breakpoint's condition in the step's context (its own run state: it changes nothing of the run), and
   * count the answer in `count`.
   */
  private test(condition: Expr, ctx: Ctx, count: { hits: number; errors: number }): boolean | { error: string } {
    const at = new Ctx(ctx.source, ctx.target, ctx.parent, ctx.root, this.conditionState, ctx.sourceJson);
    at.current = ctx.current;
    try {
      // True as `if` takes it: anything but false, null and the empty list.
      const held = isTruthy(condition(at));
      if (held) count.hits++;
      return held;
    } catch (err) {
      count.errors++;
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  private exit(o: Open, ctx: Ctx, value: DtlValue | undefined, err?: unknown, stop?: 'filter' | 'discard'): void {
    const i = this.open.lastIndexOf(o);
    if (i >= 0) this.open.length = i;
    const r = o.record;
    if (r === null) return;
    r.after = this.snapshot(ctx.target);
    const changed: string[] = [];
    for (const [k, v] of Object.entries(o.target)) if (!o.before.has(k) || o.before.get(k) !== v) changed.push(k);
    for (const k of o.before.keys()) if (!(k in o.target)) changed.push(k);
    r.changed = changed;
    if (value !== undefined) r.value = this.snapshot(value);
    if (stop !== undefined) r.stop = stop;
    if (err !== undefined) r.error = err instanceof Error ? err.message : String(err);
  }
}

/** The rule set and index of a step at "...rules.<name>[<i>]". */
function ruleOf(at: string): { rule: string; step: number } | null {
  const m = /\.rules(?:\.([^.[\]]+)|\[("(?:[^"\\]|\\.)*")\])\[(\d+)\]$/.exec(at);
  if (m === null) return null;
  return { rule: m[1] ?? (JSON.parse(m[2] as string) as string), step: Number(m[3]) };
}

export interface StepThroughOptions extends DtlTransformOptions {
  limits?: Partial<StepLimits>;
  traceLimits?: Partial<TraceLimits>;
  /** A compiled conditional breakpoint (compileCondition). */
  condition?: Expr | null;
  /** Compiled conditions of line breakpoints, by the step's JSON path. */
  conditionsAt?: ReadonlyMap<string, Expr>;
  /** The look-ups the condition may make (untraced: the condition leaves no mark in the trace). */
  conditionLookup?: DtlLookup;
}

/**
 * Run one entity through a transform (or a chain) and record every step. Throws DtlCompileError when the transform
 * does not compile; a runtime error of the transform ends the recording with `error` (and the step that raised it).
 */
export function recordSteps(transform: unknown, entity: JsonObject, options: StepThroughOptions = {}): StepRecording {
  const limits: StepLimits = { ...DEFAULT_STEP_LIMITS, ...(options.limits ?? {}) };
  limits.maxSteps = Math.min(limits.maxSteps, MAX_STEPS);
  const traceLimits: TraceLimits = { ...DEFAULT_TRACE_LIMITS, ...(options.traceLimits ?? {}) };
  const conditionState = new RunState(options.conditionLookup, options.bindings ?? {}, false, 0);
  if (options.namespaces) setRunNamespaces(conditionState, options.namespaces);
  let recorder: StepRecorder | undefined;
  const traced = compileTracedTransform(transform, {
    ...options,
    limits: traceLimits,
    observe: (tracer) => (recorder = new StepRecorder(tracer, limits, traceLimits, options.condition ?? null, conditionState, options.conditionsAt ?? new Map())),
  });
  const run = traced.run(entity);
  const r = recorder as unknown as StepRecorder;
  return {
    steps: r.steps,
    values: r.values,
    cut: r.cut,
    limits,
    trace: run.trace,
    output: run.entities,
    error: run.error ? { msg: run.error.message, elements: run.error.elements ?? null } : null,
    condition: options.condition ? { ...r.everywhere } : null,
    conditionsAt: r.conditionsAt,
  };
}
