// The embedded source type.

import type { SourceType } from '../pipe-types.js';
import { embeddedSource } from './basic-sources.js';

export const embeddedType: SourceType = {
  type: 'embedded',
  doc: 'entities written in the configuration',
  options: {
    required: ['entities'],
    properties: {
      entities: { type: 'array', description: 'the entities, written into the pipe', items: { type: 'object', properties: { _id: { type: 'string' } } } },
    },
  },
  read: embeddedSource,
  template: {
    label: 'Embedded entities → dataset',
    needsDataset: false,
    config: {
      _id: '{pipe}',
      type: 'pipe',
      source: { type: 'embedded', entities: [{ _id: '1', name: 'first example' }, { _id: '2', name: 'second example' }] },
      sink: { type: 'dataset', dataset: '{pipe}' },
      pump: { mode: 'manual' },
    },
  },
  check(source, err) {
    if (!Array.isArray(source['entities'])) err('$.source.entities', 'an embedded source needs "entities": an array');
  },
};
