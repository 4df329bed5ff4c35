// `$ENV(name)` and `$SECRET(name)` in configuration, replaced at run time.
//
// Where secrets are replaced follows the hosted service's documentation (security.rst, "Using secrets": "Secrets
// applies only to System configuration entities"; a property may be composed of several secrets, as in
// "http://$SECRET(user):$SECRET(password)@example.com"). So `$SECRET` is replaced in a system's configuration only
// (`substituteVariables`, with that system's secrets before the node's) and in the key argument of DTL's encrypt and
// decrypt (`substituteDtlKeySecrets`; the service lets its encryption functions take keys from secrets). A pipe's own
// configuration gets `$ENV` only (`substituteEnv`): a `$SECRET(...)` there — in embedded entities, a transform's
// values, a sink's headers — stays the text it is, so no entity, preview or output can carry a secret's value.
// What the hub shows or logs is passed through `ConfigVariables.mask` (the secret values, also URL-encoded, hidden).

import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { UnsetVariableError } from '../base/index.js';

/** Where variable values come from; the hub provides it. */
export interface ConfigVariables {
  env(name: string): string | undefined;
  /** A secret's value; `scope` is '' for the node, a system id for system secrets. */
  secret(name: string, scope: string): string | undefined;
  /** The text with every secret value in it (also URL-encoded) replaced by asterisks. */
  mask(text: string): string;
}

const ENV = /\$ENV\(([^)]*)\)/g;

/**
 * A system's configuration with every variable replaced; `scope` is the system whose secrets `$SECRET` reads first
 * (then the node's). `path` names where the value sits, for the error an unknown variable raises.
 */
export function substituteVariables<T extends JsonValue>(value: T, vars: ConfigVariables, scope = '', path = '$'): T {
  return substitute(value, vars, scope, path) as T;
}

/**
 * The same, but a variable that is not set is replaced by `<unset $SECRET(name)>` (never a value) and listed in
 * `unset`: for a sink that runs offline and records what it would have sent, where the value was never needed.
 */
export function substituteVariablesLeniently<T extends JsonValue>(value: T, vars: ConfigVariables, scope = ''): { value: T; unset: string[] } {
  const unset = new Set<string>();
  const lenient: ConfigVariables = {
    env: (name) => vars.env(name) ?? (unset.add(`$ENV(${name})`), `<unset $ENV(${name})>`),
    secret: (name, s) => (s === '' ? (vars.secret(name, '') ?? (unset.add(`$SECRET(${name})`), `<unset $SECRET(${name})>`)) : vars.secret(name, s)),
    mask: (text) => vars.mask(text),
  };
  return { value: substitute(value, lenient, scope, '$') as T, unset: [...unset] };
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
  if (!text.includes('$')) return text;
  // Both kinds are replaced in one pass, so a value never has its own `$ENV(...)`/`$SECRET(...)` text replaced again.
  return text.replace(/\$(ENV|SECRET)\(([^)]*)\)/g, (_m, kind: string, name: string) => {
    if (kind === 'ENV') {
      const v = vars.env(name);
      if (v === undefined) throw new UnsetVariableError(`unknown environment variable ${JSON.stringify(name)}`, `${path} refers to $ENV(${name}), which is not set`);
      return v;
    }
    const v = (scope !== '' ? vars.secret(name, scope) : undefined) ?? vars.secret(name, '');
    if (v === undefined) {
      const where = scope !== '' ? `among the secrets of system ${JSON.stringify(scope)} or the node` : 'among the node secrets';
      throw new UnsetVariableError(`unknown secret ${JSON.stringify(name)}`, `${path} refers to $SECRET(${name}), which is not set ${where}`);
    }
    return v;
  });
}

/**
 * `$ENV(name)` replaced in a pipe's configuration and inside its DTL transform (for example
 * `["eq", "$ENV(node-env)", "test"]`). `$SECRET(...)` stays as it is: a pipe's values end up in entities and logs.
 */
export function substituteEnv<T extends JsonValue>(value: T, env: (name: string) => string | undefined, path = '$'): T {
  const walk = (v: JsonValue, at: string): JsonValue => {
    if (typeof v === 'string') {
      if (!v.includes('$ENV(')) return v;
      return v.replace(ENV, (_m, name: string) => {
        const found = env(name);
        if (found === undefined) throw new UnsetVariableError(`unknown environment variable ${JSON.stringify(name)}`, `${at} refers to $ENV(${name}), which is not set`);
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

/** DTL functions whose first argument is a key that may come from a secret. */
const KEY_FUNCTIONS = new Set(['encrypt', 'decrypt']);

/** Forms whose arguments are never evaluated: a key there would be output (or kept) as written. */
const UNEVALUATED = new Set(['literal', 'comment']);

/**
 * A transform with `"$SECRET(name)"` replaced where it is the whole key argument of an `encrypt` or `decrypt` call
 * (node secrets), and nowhere else. What such a call makes is the ciphertext or the plain value, never the key. Only
 * evaluated positions are looked at: the rule sets' function lists and the calls inside them, never a dict (a
 * constant in DTL) nor the arguments of `literal` or `comment`, which would give the value out as written.
 */
export function substituteDtlKeySecrets<T extends JsonValue>(value: T, vars: ConfigVariables, path = '$'): T {
  const expr = (v: JsonValue, at: string): JsonValue => {
    if (!Array.isArray(v) || (typeof v[0] === 'string' && UNEVALUATED.has(v[0]))) return v;
    const out = v.map((x, i) => expr(x, `${at}[${i}]`));
    const key = out[1];
    if (typeof out[0] === 'string' && KEY_FUNCTIONS.has(out[0]) && typeof key === 'string') {
      const m = /^\$SECRET\(([^)]*)\)$/.exec(key);
      if (m) {
        const found = vars.secret(m[1]!, '');
        if (found === undefined) throw new UnsetVariableError(`unknown secret ${JSON.stringify(m[1])}`, `${at}[1] refers to $SECRET(${m[1]}), which is not set among the node secrets`);
        out[1] = found;
      }
    }
    return out;
  };
  const transform = (t: JsonValue, at: string): JsonValue => {
    if (!isJsonObject(t) || !isJsonObject(t['rules'])) return t;
    const rules: JsonObject = {};
    for (const [name, rule] of Object.entries(t['rules'])) rules[name] = expr(rule, `${at}.rules.${name}`);
    return { ...t, rules };
  };
  return (Array.isArray(value) ? value.map((t, i) => transform(t, `${path}[${i}]`)) : transform(value, path)) as T;
}

/**
 * Whether a transform names a secret where `substituteDtlKeySecrets` gives its value (the whole key of an `encrypt`
 * or `decrypt` call): the only place a pipe's run needs a secret value. A `$SECRET(...)` anywhere else in a pipe
 * stays the text it is.
 */
export function hasDtlKeySecret(transform: JsonValue): boolean {
  let found = false;
  const probe: ConfigVariables = {
    env: () => undefined,
    secret: () => {
      found = true;
      return '';
    },
    mask: (text) => text,
  };
  substituteDtlKeySecrets(transform, probe);
  return found;
}

/**
 * Where a pipe's source or sink configuration holds `$SECRET(...)`, which a pipe never replaces (entities of an
 * embedded source are data, not settings, and are left out): the places a user may expect a secret and get the text.
 */
export function pipeSecretReferences(config: JsonObject): string[] {
  const found: string[] = [];
  const walk = (v: JsonValue, at: string): void => {
    if (typeof v === 'string') {
      if (v.includes('$SECRET(')) found.push(at);
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) if (!(at === '$.source' && k === 'entities')) walk(x, `${at}.${k}`);
  };
  for (const part of ['source', 'sink'] as const) {
    const v = config[part];
    if (v !== undefined) walk(v, `$.${part}`);
  }
  return found;
}
