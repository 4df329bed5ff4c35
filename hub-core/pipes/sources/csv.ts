// The csv source type: kept in configuration, not read by this hub.

import type { SourceType } from '../pipe-types.js';
import { str, bool, strings } from '../../config/index.js';

export const csvType: SourceType = {
  type: 'csv',
  doc: 'a CSV file (kept in config; not run by the desktop hub)',
  options: {
    properties: {
      system: str('a system:url system to read the file from'),
      url: str('location of the CSV file'),
      delimiter: str('field separator, default ","'),
      has_header: bool('the first row names the fields'),
      field_names: strings('field names when the file has no header'),
      primary_key: { type: ['string', 'array'], items: { type: 'string' }, description: 'field(s) forming the _id' },
      encoding: str('text encoding of the file'),
    },
  },
};
