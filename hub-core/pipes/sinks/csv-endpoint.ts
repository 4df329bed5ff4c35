// The csv_endpoint sink type.

import type { SinkType } from '../pipe-types.js';
import { str, strings } from '../../config/index.js';

export const csvEndpointType: SinkType = {
  type: 'csv_endpoint',
  doc: 'publishes the entities as CSV and spreadsheets',
  options: {
    properties: {
      columns: strings('properties written as columns, in order'),
      delimiter: str('field separator, default ","'),
    },
  },
  runs: 'publish',
  publishes: ['entities', 'csv', 'excel'],
};
