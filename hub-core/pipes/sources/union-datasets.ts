// The union_datasets source type.

import type { SourceType } from '../pipe-types.js';
import { bool, datasetList } from '../../config/index.js';
import { unionDatasetsSource } from './union-datasets-source.js';

export const unionDatasetsType: SourceType = {
  type: 'union_datasets',
  doc: 'the entities of several datasets, one after the other',
  options: {
    required: ['datasets'],
    properties: {
      datasets: datasetList,
      prefix_ids: bool('prefix every _id with its dataset id (default true)'),
      include_previous_versions: bool('read every version of each entity'),
    },
  },
  read: unionDatasetsSource,
};
