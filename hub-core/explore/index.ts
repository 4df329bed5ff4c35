// Looking at data: dataset profiles and their sketches, relations between datasets, the write
// timeline and entity filters.
export type { PropertyProfile } from './dataset-profile.js';
export { DatasetProfiler } from './dataset-profiler.js';
export type { DatasetProfile } from './dataset-profiler.js';
export { namespaceRelations } from './dataset-relations.js';
export type { NamespaceRelation } from './dataset-relations.js';
export { EntityFilters, compileEntityFilter } from './entity-filter.js';
export type { EntityFilter } from './entity-filter.js';
export { sampleSchema } from './schema-sampler.js';
