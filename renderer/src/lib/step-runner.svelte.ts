// The Config tab's step-through: asks the hub to record one sample entity through the draft's transform
// (POST /pipes/<id>/step-through) and moves through the recording like a debugger (step-nav.ts). Breakpoints are the
// JSON paths of rule steps, each with an optional condition of its own (a DTL expression the hub evaluates at that
// step); the panel's condition is one the hub evaluates at every step.
import type { StepThrough } from '../../../hub-core/preview/index';
import type { JsonValue } from '../../../hub-core/base/index';
import { api, json } from './api';
import { encode, errorText } from './format';
import { continueFrom, stepInto, stepOut, stepOver, type StepRecord } from './step-nav';
import { parseExactJson } from './exact-json';

export type { StepThrough };

/** The condition as typed: JSON when it parses ("["eq", "_S.x", 1]"), else a path or text ("_T.name"); '' for none. */
export function conditionValue(text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return t;
  }
}

/** Where a pipe's breakpoints and whether its step-through panel is open are remembered across page loads. */
const storeKey = (pipeId: string, what: 'breakpoints' | 'conditions' | 'open'): string => `datahub.step-through.${what}.${pipeId}`;

function readStored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function writeStored(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage may be unavailable (private windows): remembered for this page only.
  }
}

/** Whether the pipe's step-through panel was open when last left. */
export function stepPanelOpen(pipeId: string): boolean {
  return readStored(storeKey(pipeId, 'open')) === 'open';
}

export function rememberStepPanel(pipeId: string, open: boolean): void {
  writeStored(storeKey(pipeId, 'open'), open ? 'open' : null);
}

function storedBreakpoints(pipeId: string): string[] {
  try {
    const v = JSON.parse(readStored(storeKey(pipeId, 'breakpoints')) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function storedConditions(pipeId: string): Record<string, string> {
  try {
    const v = JSON.parse(readStored(storeKey(pipeId, 'conditions')) ?? '{}') as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

export class StepRunner {
  recording = $state<StepThrough | null>(null);
  /** The step paused at; null before the first pause and after the run ended. */
  current = $state<number | null>(null);
  /** The run went past the last step. */
  ended = $state(false);
  busy = $state(false);
  error = $state<string | null>(null);
  /** The JSON paths of the rule steps with a breakpoint (remembered per pipe). */
  breakpoints = $state<string[]>([]);
  /** The condition of a line breakpoint, as typed, by its JSON path (remembered per pipe); none: it always pauses. */
  conditions = $state<Record<string, string>>({});
  condition = $state('');
  /** The condition applies to the line breakpoints (pause at one only when it holds) instead of every step. */
  conditionAtLines = $state(false);
  /** The sample: a source entity's _id ('' for the first), or a pasted entity (JSON) when `pasted` is not ''. */
  entityId = $state('');
  pasted = $state('');
  /** The draft configuration the recording was made from (JSON), to tell when it is out of date. */
  recordedFrom = $state<string | null>(null);

  constructor(private readonly pipeId: string) {
    this.breakpoints = storedBreakpoints(pipeId);
    this.conditions = storedConditions(pipeId);
  }

  /** The line breakpoints that have a condition of their own. */
  get conditional(): string[] {
    return this.breakpoints.filter((p) => (this.conditions[p] ?? '').trim() !== '');
  }

  get step(): StepRecord | null {
    return this.current === null ? null : (this.recording?.steps[this.current] ?? null);
  }

  value(i: number | null | undefined): JsonValue | undefined {
    return i === null || i === undefined ? undefined : this.recording?.values[i];
  }

  /** The line breakpoints whose condition the recording holds (a condition typed since counts from the next Restart). */
  private get conditionalRecorded(): string[] {
    const at = this.recording?.conditionsAt ?? {};
    return this.breakpoints.filter((p) => p in at);
  }

  /** The condition narrows the line breakpoints (only when asked for and there are both). */
  private get narrowed(): boolean {
    return this.conditionAtLines && this.breakpoints.length > 0 && this.recording?.condition != null;
  }

  toggleBreakpoint(path: string): void {
    const removed = this.breakpoints.includes(path);
    this.breakpoints = removed ? this.breakpoints.filter((p) => p !== path) : [...this.breakpoints, path];
    writeStored(storeKey(this.pipeId, 'breakpoints'), this.breakpoints.length > 0 ? JSON.stringify(this.breakpoints) : null);
    if (removed && path in this.conditions) this.setCondition(path, '');
  }

  /** Give a line breakpoint a condition ('' for none); it counts from the next Start or Restart. */
  setCondition(path: string, text: string): void {
    const next = { ...this.conditions };
    if (text.trim() === '') delete next[path];
    else next[path] = text;
    this.conditions = next;
    writeStored(storeKey(this.pipeId, 'conditions'), Object.keys(next).length > 0 ? JSON.stringify(next) : null);
  }

  /** Record the run afresh (the draft, the sample and the condition as they are now) and pause at the first break. */
  async restart(config: unknown): Promise<void> {
    this.busy = true;
    this.error = null;
    try {
      let body: Record<string, unknown> = { config };
      if (this.pasted.trim() !== '') {
        let entity: unknown;
        try {
          entity = parseExactJson(this.pasted);
        } catch (e) {
          throw new Error(`The pasted entity is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
        }
        body = { ...body, entity };
      } else if (this.entityId.trim() !== '') body = { ...body, 'entity-id': this.entityId.trim() };
      const condition = conditionValue(this.condition);
      if (condition !== undefined) body = { ...body, condition };
      const conditional = this.conditional;
      if (conditional.length > 0) body = { ...body, 'conditions-at': Object.fromEntries(conditional.map((p) => [p, conditionValue(this.conditions[p] ?? '')])) };
      this.recording = await api<StepThrough>(`/pipes/${encode(this.pipeId)}/step-through`, json('POST', body));
      this.recordedFrom = JSON.stringify(config);
      this.current = null;
      this.ended = false;
      // With breakpoints (or a condition): run to the first; without: pause at the first step.
      const breaks = this.breakpoints.length > 0 || condition !== undefined;
      this.move(breaks ? continueFrom(this.recording.steps, -1, this.breakpoints, this.narrowed, conditional) : this.recording.steps.length > 0 ? 0 : null);
    } catch (e) {
      // The run shown would no longer match what was asked for (another condition, sample or text).
      this.recording = null;
      this.current = null;
      this.ended = false;
      this.error = errorText(e, 'Stepping through');
    } finally {
      this.busy = false;
    }
  }

  private move(to: number | null): void {
    if (to === null) {
      this.ended = true;
      this.current = null;
    } else this.current = to;
  }

  /** Continue to the next breakpoint (or the end). */
  resume(): void {
    if (this.recording) this.move(continueFrom(this.recording.steps, this.current ?? -1, this.breakpoints, this.narrowed, this.conditionalRecorded));
  }

  over(): void {
    if (this.recording && this.current !== null) this.move(stepOver(this.recording.steps, this.current));
  }

  into(): void {
    if (this.recording && this.current !== null) this.move(stepInto(this.recording.steps, this.current));
  }

  out(): void {
    if (this.recording && this.current !== null) this.move(stepOut(this.recording.steps, this.current));
  }

  /** Pause at a step picked from the list. */
  goTo(i: number): void {
    if (this.recording && i >= 0 && i < this.recording.steps.length) {
      this.current = i;
      this.ended = false;
    }
  }
}
