// The http_endpoint source type.

import type { SourceType } from '../pipe-types.js';

export const httpEndpointType: SourceType = {
  type: 'http_endpoint',
  doc: 'entities posted to /api/receivers/<pipe>/entities',
  options: { properties: {} },
  receives: true,
  // A receiver's pump has nothing to read: it runs only when asked to.
  defaultMode: 'manual',
  template: {
    label: 'HTTP endpoint receiver → dataset',
    needsDataset: false,
    config: { _id: '{pipe}', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: '{pipe}' } },
  },
};
