// The elasticsearch sink type: kept in configuration, not run by this hub.

import type { SinkType } from '../pipe-types.js';
import { str } from '../schema-parts.js';

export const elasticsearchType: SinkType = {
  type: 'elasticsearch',
  doc: 'an Elasticsearch index (kept in config; not run by the desktop hub)',
  options: { required: ['system'], properties: { system: str('a system:elasticsearch system'), default_index: str('index to write to') } },
};
