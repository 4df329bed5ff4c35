// A pipe's `runtime.state` in pipe information, in the hosted service's vocabulary. The service's command-line client
// waits while any pipe is "Deploying"; this hub deploys a configuration when it is saved, so no pipe is ever in that
// state here.
import { isJsonObject, type JsonValue } from '../base/index.js';

export type PipeRuntimeState = 'running' | 'disabled' | 'finished' | 'failed' | 'stopped' | null;

/**
 * Running wins; then a pump switched off (the `disable` operation, or mode "off"); then how the last run ended; null
 * before the first run. A manual pump is not "disabled": it runs when asked.
 */
export function pipeRuntimeState(running: boolean, switchedOff: boolean, lastRun: JsonValue | undefined): PipeRuntimeState {
  if (running) return 'running';
  if (switchedOff) return 'disabled';
  if (!isJsonObject(lastRun)) return null;
  switch (lastRun['status']) {
    case 'completed':
      return 'finished';
    case 'failed':
      return 'failed';
    case 'stopped':
      return 'stopped';
    default:
      return null;
  }
}
