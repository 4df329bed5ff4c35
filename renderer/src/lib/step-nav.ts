// Moving through a step-through recording (hub-core/dtl/step-through.ts) as a debugger moves through a run: each
// function answers the index of the step to pause at next, or null when the run ends before one.
import type { StepRecord } from '../../../hub-core/dtl/index';

export type { StepRecord };

/**
 * Where the recording pauses: at a line breakpoint (the step's JSON path; one with a condition of its own only where
 * that held, `breakHit`) or where the panel's condition held; with `onlyAtLines`, the panel's condition narrows the
 * line breakpoints instead (pause at one only when it holds there).
 */
export function isBreak(step: StepRecord, breakpoints: ReadonlySet<string>, onlyAtLines = false, conditional: ReadonlySet<string> = new Set()): boolean {
  const atLine = step.kind === 'step' && breakpoints.has(step.at) && (!conditional.has(step.at) || step.breakHit === true);
  return onlyAtLines ? atLine && step.hit === true : atLine || step.hit === true;
}

/** Continue: the next step after `from` (-1: from the start) that breaks. */
export function continueFrom(steps: readonly StepRecord[], from: number, lines: readonly string[], onlyAtLines = false, conditional: readonly string[] = []): number | null {
  const breakpoints = new Set(lines);
  const withCondition = new Set(conditional);
  for (let i = from + 1; i < steps.length; i++) if (isBreak(steps[i] as StepRecord, breakpoints, onlyAtLines, withCondition)) return i;
  return null;
}

/** Step into: the very next step, inside apply/hops when the current one calls them. */
export function stepInto(steps: readonly StepRecord[], from: number): number | null {
  return from + 1 < steps.length ? from + 1 : null;
}

/** Step over: the next step at the same depth or shallower (what the current step nests runs unseen). */
export function stepOver(steps: readonly StepRecord[], from: number): number | null {
  const depth = steps[from]?.depth ?? 0;
  for (let i = from + 1; i < steps.length; i++) if ((steps[i] as StepRecord).depth <= depth) return i;
  return null;
}

/** Step out: the next step shallower than the current one (the rest of this rule set runs unseen). */
export function stepOut(steps: readonly StepRecord[], from: number): number | null {
  const depth = steps[from]?.depth ?? 0;
  for (let i = from + 1; i < steps.length; i++) if ((steps[i] as StepRecord).depth < depth) return i;
  return null;
}

/** The steps that enclose step `at`, outermost first (the "call stack"), and the step itself last. */
export function stackOf(steps: readonly StepRecord[], at: number): StepRecord[] {
  const out: StepRecord[] = [];
  let depth = (steps[at]?.depth ?? 0) + 1;
  for (let i = at; i >= 0; i--) {
    const s = steps[i] as StepRecord;
    if (s.depth < depth) {
      out.unshift(s);
      depth = s.depth;
    }
  }
  return out;
}
