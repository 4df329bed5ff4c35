// The xml_endpoint sink type.

import type { SinkType } from '../pipe-types.js';
import { str } from '../../config/index.js';

export const xmlEndpointType: SinkType = {
  type: 'xml_endpoint',
  doc: 'publishes the entities as XML',
  options: { properties: { root_element: str('name of the document\'s root element') } },
  runs: 'publish',
  publishes: ['entities', 'xml'],
};
