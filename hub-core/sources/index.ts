// The source types the pump can read. A new source type is one file here plus one line in SOURCES.
import type { SourceFactory } from './source.js';
import { datasetSource, embeddedSource, emptySource } from './basic-sources.js';
import { conditionalSource } from './conditional-source.js';
import { unionDatasetsSource } from './union-datasets-source.js';
import { mergeDatasetsSource } from './merge-datasets-source.js';
import { mergeSource } from './merge-source.js';
import { jsonSource } from './json-source.js';

export const SOURCES: ReadonlyMap<string, SourceFactory> = new Map<string, SourceFactory>([
  ['dataset', datasetSource],
  ['embedded', embeddedSource],
  ['empty', emptySource],
  ['conditional', conditionalSource((type) => SOURCES.get(type))],
  ['union_datasets', unionDatasetsSource],
  ['merge_datasets', mergeDatasetsSource],
  ['merge', mergeSource],
  ['json', jsonSource],
]);

export type { PumpSource, SourceBatch, SourceContext, SourceFactory } from './source.js';
