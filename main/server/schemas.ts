/** Shared JSON schemas for route declarations (and the OpenAPI reference generated from them). */
import { HubError } from '../../hub-core/base/index.js';
export const bool = { type: 'boolean' } as const;
export const int = { type: 'integer' } as const;
/** A boolean query parameter as Python's requests sends it ("True"/"False", the service's own client) or as others do. */
export const pyBool = { type: 'string', enum: ['true', 'false', 'True', 'False', 'TRUE', 'FALSE', '1', '0'] } as const;
export const isTrue = (v: string | undefined, fallback = false): boolean => (v === undefined ? fallback : v === '1' || v.toLowerCase() === 'true');
export const str = { type: 'string' } as const;
/**
 * `since` of a log read: entities after this offset (`_updated`); -1 reads from the start. Larger than any offset a
 * log can reach, or beyond what a number holds exactly (1e400), it is a 400 that states the range.
 */
export const sinceParam = { type: 'integer', minimum: -1, maximum: Number.MAX_SAFE_INTEGER, description: 'the offset (_updated) to read after; -1 reads from the start' } as const;
/** `limit` of a log read: at most this many entities (0 to 2^53-1). */
export const limitParam = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'at most this many entities' } as const;
export const anyObject = { type: 'object', additionalProperties: true } as const;
export const entityArray = {
  type: 'array',
  items: { type: 'object', additionalProperties: true, required: ['_id'], properties: { _id: { type: 'string' } } },
} as const;
export const emptyReply = { description: 'empty', type: 'null' } as const;
export const errorReplies = {
  400: { $ref: 'Error#' },
  401: { $ref: 'Error#' },
  404: { $ref: 'Error#' },
} as const;

export function replies<T extends Record<number, unknown>>(ok: T): T & typeof errorReplies {
  return { ...errorReplies, ...ok };
}

export const idParam = (name: string, description: string) =>
  ({ type: 'object', required: [name], properties: { [name]: { type: 'string', description } } }) as const;

/**
 * A route hook that refuses a JSON object body whose values are not all strings (secrets), naming the value: for
 * bodies whose schema does not list the names (bodies are never coerced, main/server/validators.ts).
 */
export async function stringValuesOnly(request: { body: unknown }): Promise<void> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') {
      throw new HubError(400, 'invalid request', `the value of ${JSON.stringify(name)} must be a string, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
    }
  }
}
