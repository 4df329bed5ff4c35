// The sql source type: kept in configuration, not read by this hub.

import type { SourceType } from '../pipe-types.js';
import { str } from '../../config/index.js';

export const sqlType: SourceType = {
  type: 'sql',
  doc: 'a table or query of a SQL system (kept in config; not run by the desktop hub)',
  options: {
    required: ['system'],
    properties: {
      system: str('a SQL system'),
      table: str('table to read'),
      query: str('a query instead of a table'),
      primary_key: { type: ['string', 'array'], items: { type: 'string' }, description: 'column(s) forming the _id' },
      updated_column: str('column used for incremental reads'),
      schema: str('database schema of the table'),
    },
  },
};
