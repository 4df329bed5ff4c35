// The source types the pump can read. A new source type is one file here plus one line in SOURCES.
import type { SourceFactory } from './source.js';
import { datasetSource, embeddedSource, emptySource } from './basic-sources.js';

export const SOURCES: ReadonlyMap<string, SourceFactory> = new Map<string, SourceFactory>([
  ['dataset', datasetSource],
  ['embedded', embeddedSource],
  ['empty', emptySource],
]);

export type { PumpSource, SourceBatch, SourceContext, SourceFactory } from './source.js';
