// Shapes of hub responses the UI reads. Types only: the renderer never imports hub-core code.
export type { DatasetInfo } from '../../../hub-core/dataset-log.js';
export type { PipeInfo } from '../../../hub-core/pipes.js';
export type { StoredEntity } from '../../../hub-core/entity.js';
