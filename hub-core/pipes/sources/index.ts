// The source types, one module each (its schema, checks and how it is read). A new source type is one file here and
// one line in the list below; the configuration schema, the config checks and the pump operations follow from it.
import type { PipeTemplate, SourceType } from '../pipe-types.js';
import type { SourceFactory } from './source.js';
import { datasetType } from './dataset.js';
import { conditionalType } from './conditional.js';
import { mergeType } from './merge.js';
import { embeddedType } from './embedded.js';
import { httpEndpointType } from './http-endpoint.js';
import { jsonType } from './json.js';
import { mergeDatasetsType } from './merge-datasets.js';
import { unionDatasetsType } from './union-datasets.js';
import { sqlType } from './sql.js';
import { restType } from './rest.js';
import { csvType } from './csv.js';
import { emptyType } from './empty.js';
import { ldapType } from './ldap.js';

/** Every source type a configuration may name, in the order the schema and messages list them. */
export const SOURCE_TYPE_LIST: readonly SourceType[] = [
  datasetType,
  conditionalType((type) => SOURCES.get(type)),
  mergeType,
  embeddedType,
  httpEndpointType,
  jsonType,
  mergeDatasetsType,
  unionDatasetsType,
  sqlType,
  restType,
  csvType,
  emptyType,
  ldapType,
];

const BY_TYPE = new Map(SOURCE_TYPE_LIST.map((t) => [t.type, t]));

export function sourceType(type: string): SourceType | undefined {
  return BY_TYPE.get(type);
}

/** The source types the pump reads, and how. */
export const SOURCES: ReadonlyMap<string, SourceFactory> = new Map(
  SOURCE_TYPE_LIST.flatMap((t): [string, SourceFactory][] => (t.read ? [[t.type, t.read]] : [])),
);

/** The "new pipe" templates, from the source types that offer one. */
export function pipeTemplates(): PipeTemplate[] {
  return SOURCE_TYPE_LIST.flatMap((t): PipeTemplate[] => (t.template ? [{ id: t.type, ...t.template }] : []));
}

export type { PumpSource, SourceBatch, SourceContext, SourceFactory, SourcePart } from './source.js';
