// The http_endpoint sink type.

import type { SinkType } from '../pipe-types.js';

export const httpEndpointType: SinkType = {
  type: 'http_endpoint',
  doc: 'publishes the entities as JSON Pull (/api/publishers/<pipe>/entities)',
  options: { properties: {} },
  runs: 'publish',
  publishes: ['entities', 'csv', 'excel', 'xml'],
};
