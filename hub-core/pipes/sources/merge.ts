// The merge source type.

import type { SourceType } from '../pipe-types.js';
import { bool, datasetList } from '../../config/index.js';
import { mergeSource } from './merge-source.js';

export const mergeType: SourceType = {
  type: 'merge',
  doc: 'merges entities of several datasets that share identity by "equality" rules',
  options: {
    required: ['datasets'],
    properties: {
      datasets: datasetList,
      equality: { type: 'array', description: 'rules joining entities of two datasets, e.g. ["eq", "a.email", "b.email"]', items: { type: 'array' } },
      equality_sets: { type: 'array', description: 'lists of expressions that are all equal', items: { type: 'array', items: { type: 'string' } } },
      identity: { enum: ['composite', 'first'], description: '"composite": the merged id joins every member id; "first": the first member\'s id' },
      strategy: { enum: ['default', 'compact', 'list'], description: 'how properties of merged entities are combined' },
      version: { enum: [1, 2], description: 'version of the merge algorithm' },
      include_previous_versions: bool('read every version of each entity'),
    },
  },
  read: mergeSource,
};
