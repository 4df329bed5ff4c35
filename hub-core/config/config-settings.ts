// Settings with a documented type and range, checked as strictly as the hosted service does (issue 32.3): the pump's
// settings (configuration-pump.rst), the pipe's `batch_size` and `checkpoint_interval` (configuration-pipes.rst,
// "Integer(>=1)"), the options of source, sink and system types, and component ids. The configuration schema
// (config-schema.ts) is made from the same definitions, so what an editor flags and what the hub refuses agree.
//
// A number setting may be written as one whole `"$ENV(name)"` (or, in a system, `"$SECRET(name)"`): the variable's
// value is then checked when it is set (a number written as text), and an unset one is left to the checks that
// report unset variables. An integer setting takes a whole number that a JSON number holds exactly (at most
// 2^53 - 1), so `1e308` is refused as the service refuses a float there.

import type { Complain } from '../base/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { VARIABLE, bool, headers, int, num, str, type TypeOptions } from './schema-parts.js';

/** The pump's settings (`$.pump.*`); unknown keys are flagged by the schema. */
export const PUMP_PROPERTIES: JsonObject = {
  mode: {
    anyOf: [{ enum: ['scheduled', 'manual', 'off'] }, { type: 'string', pattern: VARIABLE }],
    description: '"scheduled": by interval or cron; "manual": only when started; "off": never; or "$ENV(<name>)" naming one',
  },
  schedule_interval: num('seconds between runs (default 30)', { exclusiveMinimum: 0 }),
  cron_expression: str('a cron schedule in UTC, e.g. "0 3 * * *"; wins over schedule_interval'),
  run_at_startup: bool('run once when the hub starts'),
  rescan_run_count: int('every n-th run reads the source from the start', { minimum: 1 }),
  rescan_cron_expression: str('a cron schedule (UTC) for full rescans'),
  partial_rescan_count: int('entities re-read per partial rescan', { minimum: 1 }),
  partial_rescan_run_count: int('every n-th run is a partial rescan (with partial_rescan_delta)', { minimum: 1 }),
  partial_rescan_delta: int('how far back a partial rescan starts: offsets, or seconds for a timestamp', { minimum: 1 }),
  max_read_retries: int('how often a failing source read is retried', { minimum: 0 }),
  read_retry_delay: num('seconds between read retries', { minimum: 0 }),
  write_retry_delay: num('seconds between write retries', { minimum: 0 }),
  max_retries_per_entity: int('retries of an entity the sink refused before it goes to the dead letter dataset', { minimum: 0 }),
  max_consecutive_write_errors: int('refused batches in a row that fail the run', { minimum: 0 }),
  max_write_errors_in_retry_dataset: int('refused entities kept for retrying', { minimum: 0 }),
  notification_granularity: int('seconds after which a run that did nothing is logged anyway', { minimum: 0 }),
  dead_letter_dataset: str('dataset receiving entities that failed every retry'),
  track_dead_letters: bool('remove an entity from the dead letter dataset once it is written'),
  fallback_to_single_entities_on_batch_fail: bool('write a refused batch again one entity at a time'),
  log_events_noop_runs: bool('log scheduled runs that found nothing to do'),
  log_events_noop_runs_changes_only: bool('log only no-op runs that follow a run that did something (default true)'),
  use_dead_letter_dataset: bool('send entities that failed every retry to the dead letter dataset'),
  comment: { description: 'free text; ignored by the hub' },
};

/** The pipe's own number settings (`$.batch_size`, `$.checkpoint_interval`). */
export const PIPE_NUMBER_PROPERTIES: JsonObject = {
  batch_size: int('entities per batch', { minimum: 1 }),
  checkpoint_interval: int('batches between saves of the pipe\'s position (default 100, 1 with batch_size 1)', { minimum: 1 }),
};

/** Options of well-known system types; unknown types of the form "system:<kind>" are allowed. */
export const SYSTEM_OPTIONS: Record<string, TypeOptions> = {
  'system:url': {
    properties: {
      base_url: str('address that relative urls of sources and sinks start from', { pattern: '^(\\$|https?://)' }),
      url_pattern: str('a pattern such as "http://host/api/%s" instead of base_url'),
      headers,
      authentication: { enum: ['basic', 'digest', 'ntlm', 'jwt'], description: 'how requests authenticate' },
      username: str('user for basic/digest authentication'),
      password: str('password; use "$SECRET(name)"'),
      jwt_token: str('a bearer token; use "$SECRET(name)"'),
      verify_ssl: bool('check the server\'s TLS certificate (default true)'),
      timeout: num('seconds before a request is given up', { exclusiveMinimum: 0 }),
      read_timeout: num('seconds to wait for a response', { exclusiveMinimum: 0 }),
      connect_timeout: num('seconds to wait for a connection', { exclusiveMinimum: 0 }),
    },
  },
  'system:microservice': {
    properties: {
      docker: {
        type: 'object',
        description: 'the container (not run by the desktop hub)',
        properties: { image: { type: 'string' }, port: { type: 'integer' }, memory: { type: 'integer' }, environment: { type: 'object' } },
      },
    },
  },
  'system:rest': {
    properties: {
      base_url: str('address the operations\' urls are relative to'),
      operations: { type: 'object', description: 'named operations: method, url, payload-type, ...' },
      headers,
    },
  },
};
for (const kind of ['mssql', 'mysql', 'postgresql', 'oracle']) {
  SYSTEM_OPTIONS[`system:${kind}`] = {
    properties: {
      host: str('database server'),
      port: int('server port', { minimum: 1, maximum: 65535 }),
      database: str('database name'),
      username: str('database user'),
      password: str('password; use "$SECRET(name)"'),
    },
  };
}

/** Names of the number settings among `properties` (integers and numbers). */
export function numberSettings(properties: JsonObject): string[] {
  return Object.entries(properties)
    .filter(([, p]) => numberKind(p) !== undefined)
    .map(([k]) => k);
}

function numberKind(schema: JsonValue | undefined): 'integer' | 'number' | undefined {
  if (!isJsonObject(schema)) return undefined;
  const types = Array.isArray(schema['type']) ? schema['type'] : [schema['type']];
  return types.includes('integer') ? 'integer' : types.includes('number') ? 'number' : undefined;
}

/** The allowed values of a number setting in words: "an integer from 1 to 9007199254740991", "a number (greater than 0)". */
export function allowedRange(schema: JsonObject): string {
  const kind = numberKind(schema) ?? 'number';
  const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : undefined;
  const above = typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] : undefined;
  const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : kind === 'integer' ? Number.MAX_SAFE_INTEGER : undefined;
  const what = kind === 'integer' ? 'an integer' : 'a number';
  if (min !== undefined && max !== undefined) return `${what} from ${min} to ${max}`;
  const parts = [min !== undefined ? `at least ${min}` : above !== undefined ? `greater than ${above}` : undefined, max !== undefined ? `at most ${max}` : undefined].filter((p) => p !== undefined);
  return parts.length === 0 ? `${what} (finite)` : `${what} (${parts.join(', ')})`;
}

function inRange(value: number, schema: JsonObject): boolean {
  const kind = numberKind(schema);
  if (!Number.isFinite(value) || (kind === 'integer' && !Number.isSafeInteger(value))) return false;
  if (typeof schema['minimum'] === 'number' && value < schema['minimum']) return false;
  if (typeof schema['exclusiveMinimum'] === 'number' && value <= schema['exclusiveMinimum']) return false;
  if (typeof schema['maximum'] === 'number' && value > schema['maximum']) return false;
  return true;
}

const WHOLE_VARIABLE = new RegExp(VARIABLE);
const ENV_WHOLE = /^\$ENV\(([^)]*)\)$/;
const NUMBER_TEXT = /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/;

/**
 * Complain about every number setting of `section` (at JSON path `at`) that `properties` describes and whose value is
 * not a number in its range. `env`: the variables, to check the value of a set `$ENV(...)`; without it (or for
 * `$SECRET`) a whole-value reference is not checked here.
 */
export function checkNumberSettings(section: JsonObject, properties: JsonObject, at: string, err: Complain, env?: (name: string) => string | undefined): void {
  for (const [key, schema] of Object.entries(properties)) {
    const value = section[key];
    if (value === undefined || !isJsonObject(schema) || numberKind(schema) === undefined) continue;
    let n: number | undefined = typeof value === 'number' ? value : undefined;
    let shown = JSON.stringify(value);
    if (typeof value === 'string' && WHOLE_VARIABLE.test(value)) {
      const name = ENV_WHOLE.exec(value)?.[1];
      const set = name !== undefined && env !== undefined ? env(name) : undefined;
      if (set === undefined) continue;
      if (NUMBER_TEXT.test(set)) n = Number(set);
      shown = `${JSON.stringify(set)} (the value of ${value})`;
    }
    if (n === undefined || !inRange(n, schema)) err(`${at}.${key}`, `"${key}" must be ${allowedRange(schema)}, not ${shown.length > 60 ? shown.slice(0, 57) + '...' : shown}`);
  }
}

/** Control characters (C0, DEL, C1 with U+0085) and lone surrogates: never in a component id. */
const ID_UNUSABLE = /[\u0000-\u001f\u007f-\u009f/\\?#]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a text is a usable pipe or system id: 1 to 512 characters without control characters, lone surrogates, "/", "\", "?" or "#". */
export function isComponentId(id: unknown): id is string {
  return typeof id === 'string' && id.length >= 1 && id.length <= 512 && !ID_UNUSABLE.test(id);
}

/** The rule `isComponentId` checks, in words. */
export const COMPONENT_ID_RULE = 'a string of 1 to 512 characters without control characters (U+0000-U+001F, U+007F-U+009F), lone surrogates, slashes, "?" or "#"';

/** The JSON Schema pattern of a component id (for editors; lone surrogates are left to the hub). */
export const COMPONENT_ID_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f/\\\\?#]{1,512}$';
