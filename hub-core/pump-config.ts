// The checks of a pipe's `pump` settings, and the configuration problems of a pipe as its pipe information reports them.

import { parseCron } from './cron-schedule.js';
import type { ConfigEntity } from './config-store.js';
import { checkPipeConfig, effectivePipeConfig, type EffectivePipe } from './pipe-config.js';
import type { ConfigError } from './config-error.js';

const MODES = ['scheduled', 'manual', 'off'];

/** Problems of a pipe's `pump` settings, reported with the pipe's config-errors. */
export function pumpConfigErrors(pipe: EffectivePipe): ConfigError[] {
  const errors: ConfigError[] = [];
  const pump = pipe.pump;
  if (!MODES.includes(pump['mode'] as string)) {
    errors.push({ elements: '$.pump.mode', level: 'error', msg: `"mode" is one of ${MODES.map((m) => `"${m}"`).join(', ')}` });
  }
  const interval = pump['schedule_interval'];
  if (interval !== undefined && (typeof interval !== 'number' || !(interval > 0))) {
    errors.push({ elements: '$.pump.schedule_interval', level: 'error', msg: '"schedule_interval" is a number of seconds greater than 0' });
  }
  const cron = pump['cron_expression'];
  if (cron !== undefined) {
    if (typeof cron !== 'string') errors.push({ elements: '$.pump.cron_expression', level: 'error', msg: '"cron_expression" must be a string' });
    else {
      try {
        parseCron(cron);
      } catch (e) {
        errors.push({ elements: '$.pump.cron_expression', level: 'error', msg: `invalid cron expression: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
  }
  if (pump['run_at_startup'] !== undefined && typeof pump['run_at_startup'] !== 'boolean') {
    errors.push({ elements: '$.pump.run_at_startup', level: 'error', msg: '"run_at_startup" must be true or false' });
  }
  return errors;
}

/** The configuration's problems, those of its pump settings included (its runtime config-errors). */
export function pipeConfigErrors(config: ConfigEntity): ConfigError[] {
  return [...checkPipeConfig(config), ...pumpConfigErrors(effectivePipeConfig(config))];
}
