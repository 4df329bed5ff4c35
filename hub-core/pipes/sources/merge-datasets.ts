// The merge_datasets source type.

import type { SourceType } from '../pipe-types.js';
import { datasetList } from '../../config/index.js';
import { mergeDatasetsSource } from './merge-datasets-source.js';

export const mergeDatasetsType: SourceType = {
  type: 'merge_datasets',
  doc: 'entities with the same _id from several datasets, merged',
  options: {
    required: ['datasets'],
    properties: {
      datasets: datasetList,
      strategy: { enum: ['latest', 'all'], description: '"latest": one entity per id (the newest); "all": one per id and dataset' },
    },
  },
  read: mergeDatasetsSource,
};
