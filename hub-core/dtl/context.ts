// What a compiled DTL closure sees when it runs: the evaluation context (`_S`, `_T`, `_P`, `_R`, `_`, `_B`), the
// per-run state, the stop signals of filter/discard, and the errors a run can raise.

import type { JsonObject } from '../base/index.js';
import { HubError } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import type { DtlLookup } from './lookup.js';
import type { DtlDict, DtlValue } from './values.js';
import { CHECK_EVERY, spend, type WorkState } from './work-limit.js';

/** Returned by a transform closure to stop the rule set: the entity is written as deleted with `_filtered`. */
export const STOP_FILTER = 1;
/** Returned by a transform closure to stop the rule set: nothing is written for the entity. */
export const STOP_DISCARD = 2;
export type Stop = typeof STOP_FILTER | typeof STOP_DISCARD;

/** A compiled value expression. */
export type Expr = (ctx: Ctx) => DtlValue;
/** A compiled transform function: changes `ctx.target`; returns a stop signal, or nothing to go on. */
export type Tx = (ctx: Ctx) => Stop | void;

/** The transform that does nothing (comment, empty rule lists); rule-set sequences leave it out. */
export const NOOP_TX: Tx = () => undefined;

/** State shared by everything one compiled transform does for one entity. */
export class RunState implements WorkState {
  /** Entities emitted by `create`, in order; null until the first one. */
  emitted: JsonObject[] | null = null;
  /** Work done so far and when the next bound check is due (work-limit.ts). */
  work = 0;
  nextCheck = CHECK_EVERY;
  /** When the current entity's first bound check ran (0: not yet for this entity). */
  entityStart = 0;
  entityLimitMs: number | undefined = undefined;
  constructor(
    readonly lookup: DtlLookup | undefined,
    /** `_B`: values bound by the caller (URL parameters of an endpoint sink). */
    readonly bindings: DtlDict,
    /** When true, a target or created entity without a string `_id` is an error; when false it is dropped. */
    readonly idRequired: boolean,
    /** Upper bound for one `sleep!`, in milliseconds. */
    readonly maxSleepMs: number,
  ) {}
  emit(entity: JsonObject): void {
    if (this.emitted === null) this.emitted = [entity];
    else this.emitted.push(entity);
  }
}

/** One level of evaluation: the source and target of a rule set, with links to the parent and root levels. */
export class Ctx {
  /** `_`: the current value inside function expressions (map, filter, sorted, ...). */
  current: DtlValue = null;
  readonly root: Ctx;
  constructor(
    /** `_S` */
    readonly source: DtlValue,
    /** `_T` */
    readonly target: DtlDict,
    /** The context `_P` refers to (null at the root). */
    readonly parent: Ctx | null,
    root: Ctx | null,
    readonly run: RunState,
    /** True when `source` is known to be plain JSON (no TypedValue instances inside). */
    readonly sourceJson: boolean,
  ) {
    this.root = root ?? this;
  }
}

/** A fresh context for applying a rule set to `value` below `parent`. */
export function childContext(parent: Ctx, value: DtlValue, sourceJson: boolean): Ctx {
  spend(parent.run, 1);
  return new Ctx(value, {}, parent, parent.root, parent.run, sourceJson);
}

/** `unset-variable`: an expression needs a `$ENV(...)` that is not set (the run is "not run", not failed). */
export type DtlErrorKind = 'error' | 'fail' | 'trip' | 'unset-variable';

/** An error raised while a compiled transform runs. `fail` comes from `fail!`, `trip` from `trip!`. */
export class DtlRuntimeError extends Error {
  constructor(
    readonly kind: DtlErrorKind,
    message: string,
    /** JSON path of the DTL element that raised it, when known. */
    readonly elements?: string,
    /** `_id` of the source entity being transformed, when known. */
    readonly entityId?: string,
  ) {
    super(message);
    this.name = 'DtlRuntimeError';
  }
  withEntity(entityId: string | undefined): DtlRuntimeError {
    if (entityId === undefined || this.entityId !== undefined) return this;
    const e = new DtlRuntimeError(this.kind, this.message, this.elements, entityId);
    e.stack = this.stack;
    return e;
  }
}

/** Thrown when a transform that failed to compile is run anyway. */
export class DtlCompileError extends HubError {
  constructor(readonly errors: readonly ConfigError[]) {
    const first = errors.find((e) => e.level === 'error') ?? errors[0];
    super(400, 'invalid DTL', first === undefined ? undefined : `${first.elements}: ${first.msg}`);
    this.name = 'DtlCompileError';
  }
}
