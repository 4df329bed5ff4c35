// The dataset sink type.

import type { SinkType } from '../pipe-types.js';
import { str, bool, num, strings } from '../../config/index.js';
import { openDatasetSink } from './dataset-sink.js';

export const datasetType: SinkType = {
  type: 'dataset',
  doc: 'writes a dataset (by default the one named after the pipe)',
  options: {
    properties: {
      dataset: str('the dataset to write (default: named after the pipe)'),
      indexes: {
        anyOf: [{ const: '$ids' }, strings('index expressions "_S.<property>" that make subsets of the dataset fast to read')],
        description: '"$ids": an index on the entities\' $ids; or a list of index expressions "_S.<property>" (subsets)',
      },
      circuit_breaker_threshold_count: num('trip the breaker when a run changes more entities than this', { minimum: 0 }),
      circuit_breaker_threshold_factor: num('trip the breaker when a run changes more than this factor of the dataset', { minimum: 0 }),
      deletion_tracking: bool('on a full run, mark entities the source no longer has as deleted (default true)'),
    },
  },
  runs: 'open',
  open: openDatasetSink,
  rescans: true,
  defaults: (sink, pipeId) => (typeof sink['dataset'] === 'string' ? sink : { ...sink, dataset: pipeId }),
};
