// The null sink type.

import type { SinkType } from '../pipe-types.js';

export const nullType: SinkType = {
  type: 'null',
  doc: 'discards the entities',
  options: { properties: {} },
  runs: 'open',
  open: () => ({ local: true, write: () => 0 }),
};
