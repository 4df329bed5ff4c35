// The rest source type: kept in configuration, not read by this hub.

import type { SourceType } from '../pipe-types.js';
import { str } from '../../config/index.js';

export const restType: SourceType = {
  type: 'rest',
  doc: 'a REST system operation (kept in config; not run by the desktop hub)',
  options: {
    required: ['system'],
    properties: {
      system: str('a system:rest system'),
      operation: str('the system operation to call'),
      properties: { type: 'object', description: 'values for the operation\'s templates' },
    },
  },
};
