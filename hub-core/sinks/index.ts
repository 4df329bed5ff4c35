// The sink types, one module each (its schema, defaults and how this hub runs it). A new sink type is one file here
// and one line in the list below.
import type { SinkType } from '../pipe-types.js';
import { datasetType } from './dataset.js';
import { httpEndpointType } from './http-endpoint.js';
import { csvEndpointType } from './csv-endpoint.js';
import { xmlEndpointType } from './xml-endpoint.js';
import { jsonType } from './json.js';
import { sqlType } from './sql.js';
import { restType } from './rest.js';
import { elasticsearchType } from './elasticsearch.js';
import { nullType } from './null.js';
import { mailType } from './mail.js';

/** Every sink type a configuration may name, in the order the schema and messages list them. */
export const SINK_TYPE_LIST: readonly SinkType[] = [
  datasetType,
  httpEndpointType,
  csvEndpointType,
  xmlEndpointType,
  jsonType,
  sqlType,
  restType,
  elasticsearchType,
  mailType,
  nullType,
];

const BY_TYPE = new Map(SINK_TYPE_LIST.map((t) => [t.type, t]));

export function sinkType(type: string): SinkType | undefined {
  return BY_TYPE.get(type);
}

/** Sink types the pump writes (a dataset, nothing, or a Sink it opens). */
export function isPumpedSink(type: string): boolean {
  const runs = sinkType(type)?.runs;
  return runs === 'dataset' || runs === 'discard' || runs === 'open';
}

export type { Sink, SinkContext, SinkOpener } from './sink.js';
export { SinkWriteError } from './sink.js';
