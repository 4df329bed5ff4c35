// The rest sink type: kept in configuration, not run by this hub.

import type { SinkType } from '../pipe-types.js';
import { str } from '../schema-parts.js';

export const restType: SinkType = {
  type: 'rest',
  doc: 'a REST system operation (kept in config; not run by the desktop hub)',
  options: { required: ['system'], properties: { system: str('a system:rest system'), operation: str('the system operation to call') } },
};
