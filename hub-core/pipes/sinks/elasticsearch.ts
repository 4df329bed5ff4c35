// The elasticsearch sink type: documents indexed (or deleted) by `_id` in bulk, one bulk request per pump batch.
// Run offline: each request is recorded in the pipe's outbox.

import type { SinkType } from '../pipe-types.js';
import { str } from '../../config/index.js';
import { contentOf, defined, isDeleted, option, recordOffline } from './outbound.js';

export const elasticsearchType: SinkType = {
  type: 'elasticsearch',
  doc: 'documents of an Elasticsearch index, indexed or deleted by _id (run offline: recorded in the outbox)',
  options: {
    required: ['system'],
    properties: {
      system: str('a system:elasticsearch system'),
      default_index: str('index to write to, unless the entity says "$index"'),
      default_type: str('document type, unless the entity says "$type"'),
    },
  },
  runs: 'open',
  open: recordOffline({
    target: (sink) => defined({ system: option(sink, 'system') }),
    record(entity, sink) {
      const index = typeof entity['$index'] === 'string' ? entity['$index'] : (option(sink, 'default_index') ?? null);
      const type = typeof entity['$type'] === 'string' ? entity['$type'] : (option(sink, 'default_type') ?? null);
      const key = entity['_id'] ?? null;
      // The document: every property but the root's "_*" and "$*" ones.
      if (isDeleted(entity)) return { key, operation: 'delete', index, type, body: null };
      return { key, operation: 'index', index, type, body: contentOf(entity, true) };
    },
  }),
};
