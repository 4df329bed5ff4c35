import sjson from 'secure-json-parse';
import { prepareEntity, EntityError, PreparedEntities, type PreparedEntity } from '../../hub-core/entity.js';
import { HubError } from '../../hub-core/errors.js';
import { jsonTextProblem } from '../../hub-core/json.js';

export interface ParseFailure {
  status: number;
  error: string;
  detail: string;
}

export type ParseOutcome = { ok: true; entities: PreparedEntity[] } | { ok: false; failure: ParseFailure };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Parse a JSON body of entities (an array, or one entity object) and prepare each for storage. */
export function parseEntityBody(data: Uint8Array): ParseOutcome {
  let text: string;
  try {
    text = decoder.decode(data);
  } catch {
    return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: 'the body is not valid UTF-8' } };
  }
  if (text.trim() === '') return { ok: false, failure: { status: 400, error: 'empty JSON body', detail: 'send a JSON array of entities' } };
  const problem = jsonTextProblem(text);
  if (problem) return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: problem } };
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    return { ok: false, failure: { status: 400, error: 'malformed JSON', detail: e instanceof Error ? e.message : String(e) } };
  }
  const list: unknown[] | undefined = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? [value] : undefined;
  if (!list) {
    return { ok: false, failure: { status: 400, error: 'invalid request', detail: 'the body must be a JSON array of entities (or one entity object)' } };
  }
  try {
    const entities = new Array<PreparedEntity>(list.length);
    for (let i = 0; i < list.length; i++) entities[i] = prepareEntity(list[i], i);
    return { ok: true, entities };
  } catch (e) {
    if (e instanceof EntityError) return { ok: false, failure: { status: 400, error: 'invalid entity', detail: e.message } };
    throw e;
  }
}

export function outcomeToBatch(outcome: ParseOutcome): PreparedEntities {
  if (!outcome.ok) throw new HubError(outcome.failure.status, outcome.failure.error, outcome.failure.detail);
  return new PreparedEntities(outcome.entities);
}
