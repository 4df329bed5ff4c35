// Where and when `$ENV(...)` is resolved, as the service does it: in every string of a pipe's configuration, but
// lazily.
//   - Checks run on the configuration with the set variables replaced (`"mode": "$ENV(pump-mode)"` is checked as the
//     mode it names).
//   - A conditional source or transform builds only the alternative its condition picks: variables of the other
//     alternatives are never looked at.
//   - In DTL a reference to an unset variable fails only when it is evaluated (see `variablesResolved` of
//     compileTransform), so a branch that is not taken never fails the pipe.
//   - The pump section only schedules: an unset variable there never stops reading or running the pipe; it is a
//     warning while the scheduler is off and an error of the pipe's schedule otherwise (pump-config.ts).
// `$SECRET(...)` is handled by config-variables.ts (system configuration only); nothing here reads secrets.

import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { substituteEnv } from './config-variables.js';
import { floatLiteralText } from '../base/index.js';
import type { ConfigError } from '../base/index.js';
import { PUMP_PROPERTIES, numberSettings } from './config-settings.js';

/** An environment variable's value, or undefined when it is not set. */
export type EnvLookup = (name: string) => string | undefined;

/** What checking a pipe's configuration needs of the hub. */
export interface VariableContext {
  readonly env: EnvLookup;
  /** No pump starts by itself (the scheduler is not started, or switched off): unset pump variables only warn. */
  schedulerOff(): boolean;
}

const ENV = /\$ENV\(([^)]*)\)/g;
const ENV_ONE = /\$ENV\(([^)]*)\)/;

/** The first `$ENV(name)` left in a string (a variable that was not set), or undefined. */
export function unsetEnvReference(text: string): string | undefined {
  const m = ENV_ONE.exec(text);
  return m === null ? undefined : (m[1] ?? '');
}

/** A string with every set variable replaced; references to unset ones stay as written. */
function replaceSet(text: string, env: EnvLookup): string {
  if (!text.includes('$ENV(')) return text;
  return text.replace(ENV, (whole, name: string) => env(name) ?? whole);
}

/** Every string of a value with the set variables replaced (unset references stay). */
export function withSetEnv<T extends JsonValue>(value: T, env: EnvLookup): T {
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') return replaceSet(v, env);
    if (Array.isArray(v)) return v.map(walk);
    if (floatLiteralText(v) !== undefined) return v;
    if (isJsonObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * A conditional (source or transform) with its condition resolved and only the picked alternative's variables
 * replaced; the other alternatives are left exactly as written. `inner` resolves the picked alternative.
 */
function resolveConditional(value: JsonObject, env: EnvLookup, inner: (v: JsonValue) => JsonValue): JsonObject {
  const condition = typeof value['condition'] === 'string' ? replaceSet(value['condition'], env) : value['condition'];
  const out: JsonObject = { ...value };
  if (condition !== undefined) out['condition'] = condition;
  const alternatives = value['alternatives'];
  if (typeof condition === 'string' && isJsonObject(alternatives) && Object.hasOwn(alternatives, condition)) {
    out['alternatives'] = { ...alternatives, [condition]: inner(alternatives[condition] as JsonValue) };
  }
  return out;
}

/** A pipe's transform (one, a chain, conditionals) with the set variables replaced where it will be built. */
export function transformWithEnv(transform: JsonValue, env: EnvLookup): JsonValue {
  if (Array.isArray(transform)) return transform.map((t) => transformWithEnv(t, env));
  if (isJsonObject(transform) && transform['type'] === 'conditional') return resolveConditional(transform, env, (t) => transformWithEnv(t, env));
  return withSetEnv(transform, env);
}

/** A source with the set variables replaced: for a conditional source only in the picked alternative. */
export function sourceWithEnv(source: JsonObject, env: EnvLookup): JsonObject {
  if (source['type'] === 'conditional') return resolveConditional(source, env, (s) => (isJsonObject(s) ? sourceWithEnv(s, env) : withSetEnv(s, env)));
  return withSetEnv(source, env);
}

/** Pump settings whose value is a number or true/false: a whole-value reference gives that type. */
const PUMP_NUMBERS: ReadonlySet<string> = new Set(numberSettings(PUMP_PROPERTIES));
const PUMP_BOOLEANS = new Set(['run_at_startup', 'track_dead_letters', 'fallback_to_single_entities_on_batch_fail', 'log_events_noop_runs', 'log_events_noop_runs_changes_only', 'use_dead_letter_dataset']);

/**
 * The pump settings with the set variables replaced. Variable values are text: a number or boolean setting written
 * as one whole reference ("$ENV(interval)") takes the value as that type when it reads as one.
 */
export function pumpWithEnv(pump: JsonObject, env: EnvLookup): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(pump)) {
    const replaced = withSetEnv(v, env);
    const whole = typeof v === 'string' && /^\$ENV\([^)]*\)$/.test(v) && typeof replaced === 'string' && replaced !== v;
    if (whole && PUMP_NUMBERS.has(k) && /^-?\d+(\.\d+)?$/.test(replaced.trim())) out[k] = Number(replaced);
    else if (whole && PUMP_BOOLEANS.has(k) && (replaced === 'true' || replaced === 'false')) out[k] = replaced === 'true';
    else out[k] = replaced;
  }
  return out;
}

/**
 * A pipe configuration as it is checked: the set variables replaced in every section except the transform (which
 * is checked as written, its variables being resolved lazily) and the alternatives a conditional source does not pick.
 */
export function pipeWithEnv<T extends JsonObject>(config: T, env: EnvLookup): T {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === 'transform') out[k] = v;
    else if (k === 'source' && isJsonObject(v)) out[k] = sourceWithEnv(v, env);
    else if (k === 'pump' && isJsonObject(v)) out[k] = pumpWithEnv(v, env);
    else out[k] = withSetEnv(v, env);
  }
  return out as T;
}

/**
 * A source as it is opened: the `$ENV`s replaced (an unset one is a 400 naming it, config-variables.ts); for a
 * conditional source only its condition and the alternative it picks. `$SECRET` stays as written: a pipe never gets
 * secret values (they belong in its system, see config-variables.ts).
 */
export function resolveSource(source: JsonObject & { type: string }, env: EnvLookup, path = '$.source'): JsonObject & { type: string } {
  if (source['type'] !== 'conditional') return substituteEnv(source, env, path);
  const resolved = resolveConditional(source, env, (s) => s);
  const condition = resolved['condition'];
  if (typeof condition === 'string') substituteEnv(condition, env, `${path}.condition`);
  const alternatives = resolved['alternatives'];
  if (typeof condition !== 'string' || !isJsonObject(alternatives) || !isJsonObject(alternatives[condition])) return resolved as JsonObject & { type: string };
  const picked = alternatives[condition];
  const type = typeof picked['type'] === 'string' ? picked['type'] : 'dataset';
  const inner = resolveSource({ ...picked, type }, env, `${path}.alternatives.${condition}`);
  return { ...resolved, type: 'conditional', alternatives: { ...alternatives, [condition]: inner } };
}

/**
 * A warning at each `$ENV(name)` of the configuration that the environment does not set: a run that needs it stops
 * (`datahub test` does not run the pipe), every other pipe runs. Shown with the pipe's other problems.
 */
export function unsetEnvWarnings(config: JsonValue, env: EnvLookup): ConfigError[] {
  const out: ConfigError[] = [];
  const seen = new Set<string>();
  const walk = (v: JsonValue, at: string): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(/\$ENV\(([^)]*)\)/g)) {
        const name = m[1] ?? '';
        if (env(name) !== undefined || seen.has(name)) continue;
        seen.add(name);
        out.push({ elements: at, level: 'warning', msg: `$ENV(${name}) is not set: a run that needs it stops until it is set (Variables, or test-env.json for datahub test)` });
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) walk(x, /^[A-Za-z_$][\w$-]*$/.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`);
  };
  // The pump's settings have checks of their own (an unset schedule is an error there).
  if (isJsonObject(config)) for (const [k, x] of Object.entries(config)) if (k !== 'pump') walk(x, `$.${k}`);
  return out;
}
