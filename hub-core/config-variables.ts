// `$ENV(name)` and `$SECRET(name)` in configuration, replaced at run time. `$ENV` may stand anywhere in a string;
// `$SECRET` only as a whole string value, so a secret is never spliced into text that might be logged or echoed.
// A secret in a system's configuration is looked up among that system's secrets, then among the node's.

import { isJsonObject, type JsonObject, type JsonValue } from './json.js';
import { HubError } from './errors.js';

/** Where variable values come from; the hub provides it. */
export interface ConfigVariables {
  env(name: string): string | undefined;
  /** A secret's value; `scope` is '' for the node, a system id for system secrets. */
  secret(name: string, scope: string): string | undefined;
}

const ENV = /\$ENV\(([^)]*)\)/g;
const SECRET_WHOLE = /^\$SECRET\(([^)]*)\)$/;

/**
 * The value with every variable replaced; `scope` picks the system whose secrets `$SECRET` reads first ('' for the
 * node only). `path` names where the value sits, for the error an unknown variable raises.
 */
export function substituteVariables<T extends JsonValue>(value: T, vars: ConfigVariables, scope = '', path = '$'): T {
  return substitute(value, vars, scope, path) as T;
}

function substitute(value: JsonValue, vars: ConfigVariables, scope: string, path: string): JsonValue {
  if (typeof value === 'string') return substituteString(value, vars, scope, path);
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, vars, scope, `${path}[${i}]`));
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, vars, scope, `${path}.${k}`);
    return out;
  }
  return value;
}

function substituteString(text: string, vars: ConfigVariables, scope: string, path: string): string {
  const secret = SECRET_WHOLE.exec(text);
  if (secret) {
    const name = secret[1]!;
    const v = (scope !== '' ? vars.secret(name, scope) : undefined) ?? vars.secret(name, '');
    if (v === undefined) {
      const where = scope !== '' ? `among the secrets of system ${JSON.stringify(scope)} or the node` : 'among the node secrets';
      throw new HubError(400, `unknown secret ${JSON.stringify(name)}`, `${path} refers to $SECRET(${name}), which is not set ${where}`);
    }
    return v;
  }
  if (text.includes('$SECRET(')) {
    throw new HubError(400, 'a $SECRET(...) reference must be the whole value', `${path} uses $SECRET(...) inside a longer string`);
  }
  if (!text.includes('$ENV(')) return text;
  return text.replace(ENV, (_m, name: string) => {
    const v = vars.env(name);
    if (v === undefined) throw new HubError(400, `unknown environment variable ${JSON.stringify(name)}`, `${path} refers to $ENV(${name}), which is not set`);
    return v;
  });
}

/**
 * `$ENV(name)` replaced inside a DTL transform, as everywhere else in configuration (for example
 * `["eq", "$ENV(node-env)", "test"]`). `$SECRET(...)` stays as it is: a transform's values end up in entities and logs.
 */
export function substituteEnv<T extends JsonValue>(value: T, env: (name: string) => string | undefined, path = '$'): T {
  const walk = (v: JsonValue, at: string): JsonValue => {
    if (typeof v === 'string') {
      if (!v.includes('$ENV(')) return v;
      return v.replace(ENV, (_m, name: string) => {
        const found = env(name);
        if (found === undefined) throw new HubError(400, `unknown environment variable ${JSON.stringify(name)}`, `${at} refers to $ENV(${name}), which is not set`);
        return found;
      });
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}[${i}]`));
    if (isJsonObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, `${at}.${k}`);
      return out;
    }
    return v;
  };
  return walk(value, path) as T;
}
