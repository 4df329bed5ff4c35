import type { ConfigStore, ConfigEntity } from './config-store.js';
import type { SecretStore } from '../security/index.js';
import { asConfigEntity, refuseDuplicateIds } from './config-store.js';
import { HubError, badRequest, notFound } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import type { JsonObject } from '../base/index.js';
import { COMPONENT_ID_RULE, SYSTEM_OPTIONS, checkNumberSettings, isComponentId } from './config-settings.js';

export interface SystemInfo extends JsonObject {
  _id: string;
  cached_response_info: { age: number; timestamp: string };
  config: { original: ConfigEntity };
  runtime: { 'is-valid-config': boolean; 'config-errors': ConfigError[] & JsonObject[] };
}

export function checkSystemConfig(config: JsonObject): ConfigError[] {
  const errors: ConfigError[] = [];
  const type = config['type'];
  if (!isComponentId(config['_id'])) errors.push({ elements: '$._id', level: 'error', msg: `the system needs an "_id": ${COMPONENT_ID_RULE}` });
  if (typeof type !== 'string' || !type.startsWith('system:')) {
    errors.push({ elements: '$.type', level: 'error', msg: 'a system has a type of the form "system:<kind>", for example "system:url"' });
  } else if (type === 'system:url' && typeof config['base_url'] !== 'string' && typeof config['url_pattern'] !== 'string') {
    errors.push({ elements: '$.base_url', level: 'error', msg: 'a system:url needs "base_url"' });
  } else if (type === 'system:url' && typeof config['base_url'] === 'string' && !/^\$|^https?:\/\//.test(config['base_url'])) {
    errors.push({ elements: '$.base_url', level: 'error', msg: '"base_url" must start with http:// or https://' });
  } else if (type === 'system:microservice') {
    errors.push({ elements: '$.type', level: 'warning', msg: 'microservices are not run by the desktop hub; the system is kept in config only' });
  }
  // Number settings of the well-known system types (port 1-65535, timeouts greater than 0); a whole "$ENV(...)" or
  // "$SECRET(...)" is replaced only when the system is used, and is not checked here.
  const options = typeof type === 'string' ? SYSTEM_OPTIONS[type] : undefined;
  if (options !== undefined) checkNumberSettings(config, options.properties, '$', (elements, msg) => void errors.push({ elements, level: 'error', msg }));
  return errors;
}

/** System configurations and their scoped secrets. */
export class SystemRegistry {
  constructor(
    private readonly config: ConfigStore,
    private readonly secrets: SecretStore,
  ) {}

  ids(): string[] {
    return this.config.list('system').map((s) => s._id);
  }

  require(id: string): ConfigEntity {
    const s = this.config.get('system', id);
    if (!s) throw notFound(`system ${JSON.stringify(id)}`);
    return s;
  }

  validate(values: readonly unknown[], force: boolean): ConfigEntity[] {
    const problems: string[] = [];
    const entities = values.map((v, i) => {
      const e = asConfigEntity(v, `system #${i}`);
      // The type decides what a configuration entity is: not even `force` stores a pipe or metadata entity as a system.
      if (!e.type.startsWith('system:')) {
        throw badRequest(`${e._id}: a system has a type of the form "system:<kind>", not ${JSON.stringify(e.type)}`, 'pipes and node metadata have endpoints of their own');
      }
      for (const x of checkSystemConfig(e)) if (x.level === 'error') problems.push(`${e._id}: ${x.elements}: ${x.msg}`);
      return e;
    });
    refuseDuplicateIds(entities, 'system');
    if (problems.length > 0 && !force) throw new HubError(400, 'invalid system configuration', problems.join('; '));
    return entities;
  }

  save(entities: readonly ConfigEntity[]): void {
    this.config.transaction(() => {
      for (const e of entities) this.config.put(e);
    });
  }

  delete(id: string): void {
    this.require(id);
    this.config.transaction(() => {
      this.config.delete('system', id);
      this.secrets.deleteScope(id);
    });
  }

  info(id: string): SystemInfo {
    const original = this.require(id);
    const errors = checkSystemConfig(original);
    return {
      _id: id,
      cached_response_info: { age: 0, timestamp: new Date().toISOString() },
      config: { original },
      runtime: { 'is-valid-config': !errors.some((e) => e.level === 'error'), 'config-errors': errors as ConfigError[] & JsonObject[] },
    };
  }

  /** Microservice-only operations: the desktop hub runs no containers, so they are refused clearly. */
  requireMicroservice(id: string, operation: string): never {
    const sys = this.require(id);
    if (sys.type !== 'system:microservice') {
      throw badRequest(`system ${JSON.stringify(id)} is not a microservice`, `"${operation}" applies only to systems of type system:microservice; this one is ${sys.type}`);
    }
    throw badRequest(`"${operation}" is not available in the desktop hub`, 'the desktop hub does not run microservice containers');
  }
}
