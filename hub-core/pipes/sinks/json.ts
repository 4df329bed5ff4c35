// The json sink type.

import type { SinkType } from '../pipe-types.js';
import { str, int, headers } from '../../config/index.js';
import { jsonPushSink } from './json-push-sink.js';

export const jsonType: SinkType = {
  type: 'json',
  doc: 'pushes the entities to a system:url system by JSON Push',
  options: {
    required: ['system'],
    properties: {
      system: str('a system:url system; the entities are sent to its base_url'),
      url: str('path relative to the system\'s base_url'),
      headers,
      batch_size: int('entities per request', { minimum: 1 }),
    },
  },
  runs: 'open',
  open: jsonPushSink,
  rescans: true,
};
