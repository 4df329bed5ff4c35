// The answer of GET /datasets/<id>/entities/<entity-id>/lineage (entity-lineage.ts): plain JSON, shared by the API
// and the workbench.

import type { JsonObject, JsonValue } from '../base/index.js';

/** One entity version. */
export interface EntityRef {
  dataset: string;
  entity: string;
  /** The version's offset in its dataset (null: not known, e.g. the entity is gone). */
  offset: number | null;
}

/** A look-up of hops / apply-hops / lookup-entity while the pipe made the entity (as it runs on the data now). */
export interface JoinedRef {
  dataset: string;
  by: string;
  keys: JsonValue[];
  entities: string[];
}

/** Where one property of an entity came from: the pipe and DTL step that set it, and the source property. */
export interface PropertyOrigin {
  pipe: string;
  /** The step's function name ("copy", "add", ...), or "(source)" when the property came through unchanged. */
  step: string;
  /** JSON path of the step in the pipe's configuration. */
  at: string | null;
  /** The source entity and property it was taken from, where there is one. */
  source: (EntityRef & { property: string }) | null;
}

/** Why the pipe processed the source entity in the run that wrote this version. */
export interface ProcessedReason {
  reason: string;
  run: string;
  detail: JsonObject | null;
}

/** One pipe between entity versions: upstream, what made `output`; downstream, what `input` became. */
export interface LineageStep {
  depth: number;
  pipe: string;
  /** The entity version this step made (upstream) or was made from (downstream). */
  output: EntityRef;
  /** The source entity the pipe read (for a merge source: the merged entity, see contributors). */
  source: EntityRef | null;
  /** The members of a merged source entity. */
  contributors: EntityRef[];
  joined: JoinedRef[];
  /** emit_children: the `_id` of the parent entity whose `$children` held the output. */
  parent: string | null;
  /** How the output came to be: "transform", "create", "emit_children" or "passed" (no transform). */
  via: string;
  why: ProcessedReason | null;
  /** Per property of the output (upstream only). */
  properties?: Record<string, PropertyOrigin>;
  /** Why the step is incomplete, in words. */
  note?: string;
}

/** An entity made downstream of the one asked about. */
export interface DownstreamStep {
  depth: number;
  pipe: string;
  /** The entity it was made from (the one asked about, or one made on the way). */
  input: EntityRef;
  /** How the pipe used the input: read it from its source, merged it, or joined it in a look-up. */
  role: 'source' | 'merged' | 'joined';
  /** A dataset entity; for a sink that writes elsewhere, the outbox record (its run). */
  output: EntityRef | { outbox: string; entity: string };
  /** The output's latest version was made from this version of the input (false: from another one). */
  'from-this-version': boolean | null;
  why: ProcessedReason | null;
}

export interface LineageAnswer {
  dataset: string;
  entity: string;
  offset: number | null;
  direction: 'up' | 'down';
  depth: number;
  steps: LineageStep[] | DownstreamStep[];
  /** The walk was cut (depth, fan-in or fan-out limits): where, in words. */
  cut: string[];
  limits: { depth: number; 'fan-in': number; 'fan-out': number };
}
