// The rest sink type: one request per entity, to the REST system operation the entity (or the sink) names, with its
// properties and payload. Run offline: each request is recorded in the pipe's outbox.

import type { SinkType } from '../pipe-types.js';
import type { JsonObject, JsonValue } from '../json.js';
import { str } from '../schema-parts.js';
import { defined, isDeleted, option, recordOffline } from './outbound.js';

/** The entity's value, else the sink's default (the entity's wins, as the rest sink's page says). */
function either(entity: JsonObject, sink: JsonObject, name: string): JsonValue {
  return entity[name] ?? sink[name] ?? null;
}

export const restType: SinkType = {
  type: 'rest',
  doc: 'requests to the operations of a REST system, one per entity (run offline: recorded in the outbox)',
  options: {
    required: ['system'],
    properties: {
      system: str('a system:rest system'),
      operation: str('the operation used when the entity names none'),
      properties: { type: 'object', description: 'properties used when the entity has none' },
      payload: { description: 'payload used when the entity has none' },
    },
  },
  runs: 'open',
  open: recordOffline({
    batchSize: () => 1,
    target: (sink) => defined({ system: option(sink, 'system') }),
    record(entity, sink) {
      const operation = typeof entity['operation'] === 'string' ? entity['operation'] : (option(sink, 'operation') ?? '(no operation)');
      return {
        key: entity['_id'] ?? null,
        operation,
        ...(isDeleted(entity) ? { deleted: true } : {}),
        body: { properties: either(entity, sink, 'properties'), payload: either(entity, sink, 'payload') },
      };
    },
  }),
};
