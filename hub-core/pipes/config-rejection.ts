// A configuration upload refused for the errors of some of its entities, reported per entity as the hosted service
// does, so that its command-line client can print which pipe or system is wrong and why:
// {"validation_errors": [{"posted-config": {...}, "config-errors": [{"level", "msg", "elements"}]}]}.

import type { ConfigEntity } from '../config/index.js';
import { configKind } from '../config/index.js';
import { HubError } from '../base/index.js';
import type { ConfigError } from './pipe-config.js';
import { pipeConfigErrors } from './pipes.js';
import { checkSystemConfig } from '../config/index.js';
import type { JsonObject } from '../base/index.js';
import type { EnvLookup } from '../config/index.js';

export interface ValidationError extends JsonObject {
  'posted-config': ConfigEntity;
  'config-errors': (ConfigError & JsonObject)[];
}

export class ConfigRejected extends HubError {
  constructor(readonly validationErrors: ValidationError[]) {
    const lines = validationErrors.flatMap((v) => v['config-errors'].filter((e) => e.level === 'error').map((e) => `${v['posted-config']._id}: ${e.elements}: ${e.msg}`));
    super(400, `invalid configuration: ${validationErrors.length} entit${validationErrors.length === 1 ? 'y has' : 'ies have'} errors`, lines.join('; '));
  }
}

/** The entities with at least one error (each with all its errors and warnings); none for metadata. */
export function configValidationErrors(entities: readonly ConfigEntity[], env?: EnvLookup): ValidationError[] {
  const out: ValidationError[] = [];
  // Pipes are checked with the set `$ENV` variables replaced; an unset pump variable does not refuse an upload.
  const vars = env && { env, schedulerOff: () => true };
  for (const e of entities) {
    const kind = configKind(e);
    const errors = kind === 'pipe' ? pipeConfigErrors(e, vars) : kind === 'system' ? checkSystemConfig(e) : [];
    if (errors.some((x) => x.level === 'error')) out.push({ 'posted-config': e, 'config-errors': errors.map((x) => ({ ...x })) });
  }
  return out;
}
