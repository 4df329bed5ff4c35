// The compiler's only link to tracing (trace.ts): when a compile is given these hooks, every compiled call, path,
// literal and transform function is wrapped by them. Without hooks the compiler makes exactly its usual closures.

import type { Expr, Tx } from './context.js';

/** What a recorded expression is: a function call, a path (`_S.a`) or a literal. */
export type TracedExprKind = 'call' | 'path' | 'literal';

export interface TraceHooks {
  /** Wrap a compiled expression at JSON path `at`; `label` is the function name, path text or literal JSON. */
  expr(e: Expr, at: string, kind: TracedExprKind, label: string, args: number): Expr;
  /** Wrap a compiled transform function (a step of a rule set) at JSON path `at`. */
  tx(t: Tx, at: string, name: string, args: number): Tx;
}
