// The json source type.

import type { SourceType } from '../pipe-types.js';
import { str, bool, int, headers } from '../../config/index.js';
import { jsonSource } from './json-source.js';

export const jsonType: SourceType = {
  type: 'json',
  doc: 'reads a JSON endpoint of a system:url system',
  options: {
    required: ['system'],
    properties: {
      system: str('a system:url system whose base_url the url is relative to'),
      url: str('path relative to the system\'s base_url'),
      supports_since: bool('the endpoint takes a "since" parameter, so runs read only what changed'),
      page_size: int('entities per request', { minimum: 1 }),
      headers,
    },
  },
  read: jsonSource,
  check(source, err) {
    if (typeof source['system'] !== 'string') err('$.source.system', 'a json source needs "system": a system id');
  },
};
