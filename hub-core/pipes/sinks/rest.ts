// The rest sink type: one request per entity, to the REST system operation the entity (or the sink) names, with its
// properties and payload. Run offline: each request is recorded in the pipe's outbox.

import type { SinkType } from '../pipe-types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../base/index.js';
import { str } from '../../config/index.js';
import { defined, isDeleted, option, recordOffline } from './outbound.js';

/** The entity's value, else the sink's default (the entity's wins, as the rest sink's page says). */
function either(entity: JsonObject, sink: JsonObject, name: string): JsonValue {
  return entity[name] ?? sink[name] ?? null;
}

/** The named operation's own configuration: the sink's `operations` take precedence over the system's. */
function operationConfig(sink: JsonObject, system: JsonObject | undefined, operation: string): JsonObject | undefined {
  for (const holder of [sink, system]) {
    const ops = holder?.['operations'];
    const op = isJsonObject(ops) ? ops[operation] : undefined;
    if (isJsonObject(op)) return op;
  }
  return undefined;
}

/**
 * The payload (the rest sink's page): the entity's, else the sink's, else the one its operation defines (on the sink
 * or the system, as configured: a template is recorded unrendered), else the empty string.
 */
function payloadOf(entity: JsonObject, sink: JsonObject, system: JsonObject | undefined, operation: string): JsonValue {
  return entity['payload'] ?? sink['payload'] ?? operationConfig(sink, system, operation)?.['payload'] ?? '';
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
    record(entity, sink, context) {
      const operation = typeof entity['operation'] === 'string' ? entity['operation'] : (option(sink, 'operation') ?? '(no operation)');
      const systemId = option(sink, 'system');
      const system = systemId === undefined ? undefined : context.system(systemId);
      return {
        key: entity['_id'] ?? null,
        operation,
        ...(isDeleted(entity) ? { deleted: true } : {}),
        body: { properties: either(entity, sink, 'properties'), payload: payloadOf(entity, sink, system, operation) },
      };
    },
  }),
};
