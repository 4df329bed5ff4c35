// Shapes of hub responses the UI reads. Types only: the renderer never imports hub-core code.
export type { DatasetInfo } from '../../../hub-core/dataset-log.js';
export type { PipeInfo } from '../../../hub-core/pipes.js';
export type { StoredEntity } from '../../../hub-core/entity.js';

/** GET /desktop/scheduler: whether pumps start by themselves (paused from the workbench, or disabled by the node). */
export interface SchedulerState {
  paused: boolean;
  disabled: boolean;
  /** Pipes with a schedule armed now. */
  scheduled: number;
}
