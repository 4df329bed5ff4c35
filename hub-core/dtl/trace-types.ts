// The shape of a DTL trace (trace.ts records it): plain JSON, shared by the API, the CLI and the workbench.

import type { JsonValue } from '../base/index.js';

/** How much a trace records; beyond these it says what it left out. */
export interface TraceLimits {
  /** Nesting of recorded nodes (steps and sub-expressions) below a step of the default rule set. */
  maxDepth: number;
  /** Recorded nodes per entity, all steps and sub-expressions together. */
  maxNodes: number;
  /** Recorded children of one node (a `map` over a long list evaluates its function once per item). */
  maxChildren: number;
  /** Items of a list (and keys of a dict) shown in a recorded value. */
  maxListItems: number;
  /** Characters of a string shown in a recorded value. */
  maxStringLength: number;
  /** Nesting shown in a recorded value. */
  maxValueDepth: number;
}

export const DEFAULT_TRACE_LIMITS: TraceLimits = {
  maxDepth: 24,
  maxNodes: 4000,
  maxChildren: 40,
  maxListItems: 25,
  maxStringLength: 400,
  maxValueDepth: 6,
};

/** A property of a step's target that the step set or removed itself (not through a step inside it). */
export interface TracePropertyChange {
  property: string;
  action: 'set' | 'removed';
  /** The new value (set only). */
  value?: JsonValue;
  /** The value was shortened to the limits. */
  truncated?: true;
}

/** One look-up in another dataset, made by hops, apply-hops or lookup-entity. */
export interface TraceLookup {
  dataset: string;
  /** The property path the keys were matched against (`_id` for lookup-entity). */
  by: string;
  keys: JsonValue[];
  /** `_id`s of the entities that matched, in order (at most maxListItems). */
  matched: string[];
  /** How many entities matched. */
  count: number;
}

/** Which branch of an `if`, `case` or `case-eq` ran. */
export interface TraceBranch {
  /** The argument index of the branch that ran; null when no branch ran (no condition held and no else). */
  argument: number | null;
  /** In words: "then", "else", "clause 2", "none". */
  label: string;
}

export interface TraceNode {
  /** Unique within the entity's trace. */
  id: number;
  /** step: a transform function; call/path/literal: a value expression; lookup: a join's look-up. */
  kind: 'step' | 'call' | 'path' | 'literal' | 'lookup';
  /** The function name, the path text or the literal as JSON. */
  name: string;
  /** JSON path of the element in the pipe configuration ("$.transform.rules.default[2]"); a lookup has its call's. */
  at: string;
  /** Rule-set nesting: 0 for the entity's own rule sets, more inside `apply` and `apply-hops`. */
  level: number;
  /** What a value expression gave. */
  value?: JsonValue;
  truncated?: true;
  /** A step that stopped the rule set. */
  stop?: 'filter' | 'discard';
  /** Properties a step set or removed in its target. */
  changes?: TracePropertyChange[];
  /** `_id`s of the entities a step created (`create`). */
  created?: string[];
  branch?: TraceBranch;
  lookup?: TraceLookup;
  /** The error it raised. */
  error?: string;
  children?: TraceNode[];
  /** Children not recorded because of the limits. */
  omitted?: number;
}

/** One change of an output property, in the order they happened. */
export interface TracePropertyEvent {
  action: 'set' | 'removed';
  /** The step's node id (-1: set by the engine, e.g. `_id` from the source or `_deleted` by a filter). */
  step: number;
  /** The step's function name, or "(source)" / "(filter)" for what the engine did. */
  name: string;
  at: string;
  value?: JsonValue;
  truncated?: true;
}

/** One entity through one transform (of a chain): its steps, what became of it, and where each property came from. */
export interface EntityTrace {
  /** Which transform of a chain (0 for a single transform). */
  transform: number;
  /** JSON path of that transform's rules. */
  at: string;
  /** `_id` of the entity it transformed. */
  source: string | null;
  outcome: 'output' | 'filtered' | 'discarded' | 'no-id' | 'error';
  /** The filter or discard that stopped the rule set, and why. */
  stoppedBy?: { step: number; name: string; at: string; reason: string };
  error?: { msg: string; elements: string | null };
  /** The steps of the default rule set, in the order they ran. */
  steps: TraceNode[];
  /** Every property of the target that was set or removed, with its history (the last event is what it became). */
  properties: Record<string, TracePropertyEvent[]>;
  /** Entities created by `create`, in output order, with the step that created them. */
  created: { _id: string; step: number; at: string }[];
  /** Nodes recorded, and whether the limits left some out. */
  nodes: number;
  truncated: boolean;
}

/** The trace of one source entity through a pipe's transform (every transform of a chain). */
export interface TransformTrace {
  entities: EntityTrace[];
  limits: TraceLimits;
}
