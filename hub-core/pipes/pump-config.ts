// The checks of a pipe's `pump` settings, and the configuration problems of a pipe as its pipe information reports them.

import { parseCron } from '../config/index.js';
import type { ConfigEntity } from '../config/index.js';
import { checkPipeConfig, effectivePipeConfig, pipeNumberErrors, type EffectivePipe } from './pipe-config.js';
import { PUMP_PROPERTIES, checkNumberSettings } from '../config/index.js';
import type { ConfigError } from '../base/index.js';
import { isJsonObject, type JsonObject } from '../base/index.js';
import { pipeWithEnv, pumpWithEnv, unsetEnvReference, unsetEnvWarnings, type EnvLookup, type VariableContext } from '../config/index.js';

const MODES = ['scheduled', 'manual', 'off'];

/**
 * Problems of a pipe's `pump` settings, reported with the pipe's config-errors. `variables`: the set `$ENV`s were
 * replaced, so a reference left is to an unset variable: an error of the schedule while the scheduler runs, a
 * warning while it is off. Without it (nothing replaced) a reference is only a warning. A setting holding a
 * reference is not checked further.
 */
export function pumpConfigErrors(pipe: EffectivePipe, variables?: { resolved: boolean; schedulerOff: boolean }): ConfigError[] {
  const errors: ConfigError[] = [];
  const pump: JsonObject = { ...pipe.pump };
  for (const [key, value] of Object.entries(pipe.pump)) {
    const name = typeof value === 'string' ? unsetEnvReference(value) : undefined;
    if (name === undefined) continue;
    delete pump[key];
    const off = variables?.resolved !== true || variables.schedulerOff;
    const why = variables?.resolved !== true ? 'it is resolved when the pipe is scheduled' : off ? 'the pipe is not scheduled while the scheduler is off' : 'the pipe cannot be scheduled';
    errors.push({ elements: `$.pump.${key}`, level: off ? 'warning' : 'error', msg: `"${key}" refers to $ENV(${name})${variables?.resolved === true ? ', which is not set' : ''}: ${why}` });
  }
  if (pump['mode'] === undefined) pump['mode'] = 'scheduled';
  if (!MODES.includes(pump['mode'] as string)) {
    errors.push({ elements: '$.pump.mode', level: 'error', msg: `"mode" is one of ${MODES.map((m) => `"${m}"`).join(', ')}` });
  }
  // Every number setting with its documented range (schedule_interval: seconds greater than 0; counts: integers).
  checkNumberSettings(pump, PUMP_PROPERTIES, '$.pump', (elements, msg) => void errors.push({ elements, level: 'error', msg }));
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

/** The effective configuration as the schedule reads it: the pump settings with the set `$ENV` variables replaced. */
export function scheduledPipe(config: ConfigEntity, env: EnvLookup): EffectivePipe {
  const pump = config['pump'];
  return effectivePipeConfig(isJsonObject(pump) ? { ...config, pump: pumpWithEnv(pump, env) } : config);
}

/**
 * The configuration's problems, those of its pump settings included (its runtime config-errors), checked with the set
 * `$ENV` variables replaced when `variables` is given.
 */
export function pipeConfigErrors(config: ConfigEntity, variables?: VariableContext): ConfigError[] {
  if (variables === undefined) return [...checkPipeConfig(config), ...pipeNumberErrors(config), ...pumpConfigErrors(effectivePipeConfig(config))];
  const checked = pipeWithEnv(config, variables.env);
  return [
    ...checkPipeConfig(checked),
    ...pipeNumberErrors(config, variables.env),
    ...unsetEnvWarnings(config, variables.env),
    ...pumpConfigErrors(effectivePipeConfig(checked), { resolved: true, schedulerOff: variables.schedulerOff() }),
  ];
}
