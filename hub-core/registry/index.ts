// The registry of shared pipes and systems.
export { DatasetRegistry, PREVIEW_SIZE, isSystemDataset } from './registry.js';
export type { RegistryEntry } from './registry.js';
