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
import { kafkaType } from './kafka.js';
import { mailType } from './mail.js';
import { smsType, solrType } from './message-sinks.js';

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
  solrType,
  mailType,
  smsType,
  kafkaType,
  nullType,
];

const BY_TYPE = new Map(SINK_TYPE_LIST.map((t) => [t.type, t]));

export function sinkType(type: string): SinkType | undefined {
  return BY_TYPE.get(type);
}

/** Sink types the pump writes: a Sink it opens for each run. */
export function isPumpedSink(type: string): boolean {
  return sinkType(type)?.open !== undefined;
}

export type { Sink, LocalSink, RemoteSink, SinkContext, SinkRun, SinkOpener } from './sink.js';
export { SinkWriteError, idsOf } from './sink.js';
