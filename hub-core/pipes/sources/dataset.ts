// The dataset source type.

import type { SourceType } from '../pipe-types.js';
import { str, bool } from '../../config/index.js';
import { datasetSource } from './basic-sources.js';

export const datasetType: SourceType = {
  type: 'dataset',
  doc: 'reads the entities of a dataset (the usual source)',
  options: {
    required: ['dataset'],
    properties: {
      dataset: str('the dataset to read'),
      include_previous_versions: bool('read every version of each entity, not only the latest'),
      subset: { description: 'read only the entities matching this subset expression, e.g. ["eq", "_S.kind", "a"]' },
    },
  },
  read: datasetSource,
  positions: true,
  template: {
    label: 'Dataset → dataset with a DTL transform',
    needsDataset: true,
    config: {
      _id: '{pipe}',
      type: 'pipe',
      source: { type: 'dataset', dataset: '{dataset}' },
      transform: { type: 'dtl', rules: { default: [['copy', '*']] } },
      sink: { type: 'dataset', dataset: '{pipe}' },
      pump: { mode: 'manual' },
    },
  },
  check(source, err) {
    if (typeof source['dataset'] !== 'string') err('$.source.dataset', 'a dataset source needs "dataset": the id of the dataset to read');
  },
};
