// The embedded source type.

import type { SourceType } from '../pipe-types.js';
import { embeddedSource } from './basic-sources.js';
import { isJsonObject, type JsonValue } from '../../base/index.js';

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
    const entities = source['entities'];
    if (!Array.isArray(entities)) err('$.source.entities', 'an embedded source needs "entities": an array');
    else embeddedEntityProblems(entities, '$.source.entities', err);
  },
};

/** Entities of an embedded source: objects, each with a string "_id" (a missing one reported through `missing`). */
export function embeddedEntityProblems(entities: readonly JsonValue[], at: string, err: (at: string, msg: string) => void, missing: (at: string, msg: string) => void = err): void {
  let reported = 0;
  const MAX = 20;
  entities.forEach((e, i) => {
    if (reported >= MAX) return;
    if (!isJsonObject(e)) {
      reported++;
      err(`${at}[${i}]`, 'an embedded entity is a JSON object');
    } else if (e['_id'] === undefined) {
      reported++;
      missing(`${at}[${i}]._id`, 'an embedded entity needs an "_id": a string');
    } else if (typeof e['_id'] !== 'string') {
      reported++;
      err(`${at}[${i}]._id`, `an embedded entity's "_id" is a string, not ${JSON.stringify(e['_id']).slice(0, 40)}`);
    }
  });
}

