// The sql sink type: kept in configuration, not run by this hub.

import type { SinkType } from '../pipe-types.js';
import { str } from '../schema-parts.js';

export const sqlType: SinkType = {
  type: 'sql',
  doc: 'a SQL table (kept in config; not run by the desktop hub)',
  options: { required: ['system', 'table'], properties: { system: str('a SQL system'), table: str('table to write'), schema: str('database schema') } },
};
