// The kafka sink type: one message per entity, made of the entity's "key" and "value", produced to a topic and
// flushed after every batch. Run offline: each batch is recorded in the pipe's outbox.

import type { SinkType } from '../pipe-types.js';
import { str } from '../../config/index.js';
import { defined, isDeleted, option, recordOffline } from './outbound.js';

export const kafkaType: SinkType = {
  type: 'kafka',
  doc: 'messages to a Kafka topic, from each entity\'s "key" and "value" (run offline: recorded in the outbox)',
  options: {
    required: ['system', 'topic'],
    properties: {
      system: str('a system:kafka system'),
      topic: str('the topic to produce to'),
      key_serializer: str('bytes, string (default), json or confluent_schema_json'),
      value_serializer: str('bytes, string, json (default) or confluent_schema_json'),
    },
  },
  runs: 'open',
  open: recordOffline({
    target: (sink) => defined({ system: option(sink, 'system'), topic: option(sink, 'topic') }),
    record: (entity) => ({
      key: entity['key'] ?? null,
      operation: 'produce',
      ...(isDeleted(entity) ? { deleted: true } : {}),
      body: entity['value'] ?? null,
    }),
  }),
};
