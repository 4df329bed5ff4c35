// Shapes of hub responses the UI reads. Types only: the renderer never imports hub-core code.
export type { DatasetInfo } from '../../../hub-core/storage/index.js';
export type { PipeInfo } from '../../../hub-core/pipes/index.js';
export type { StoredEntity } from '../../../hub-core/base/index.js';

/** GET /desktop/scheduler: whether pumps start by themselves (paused from the workbench, or disabled by the node). */
/** A workspace file the hub could not load (GET /desktop/workspace/problems). */
export interface WorkspaceFileProblem {
  file: string;
  msg: string;
  line: number | null;
  /** The pipe the file name stands for (pipes/<id>.conf.json). */
  pipe: string | null;
  /** The hub holds that pipe still and runs the version last loaded from the file. */
  kept: boolean;
}

export interface SchedulerState {
  paused: boolean;
  disabled: boolean;
  /** Pipes with a schedule armed now. */
  scheduled: number;
}
