// Where an entity came from and where it went: the lineage walk up and down through the pipes that
// wrote and read it, with the rule that set each property (the trace engine, re-run on the recorded source).
export { LINEAGE_DEFAULT_DEPTH, LINEAGE_MAX_DEPTH, entityLineage } from './entity-lineage.js';
export type { DownstreamStep, EntityRef, JoinedRef, LineageAnswer, LineageStep, ProcessedReason, PropertyOrigin } from './lineage-types.js';
