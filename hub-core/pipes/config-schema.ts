// A JSON Schema (draft-07) for pipe and system configuration, for editors (completion, hover, validation) and
// tests. It is deliberately more lenient than the hub where the reference notes are vague: options of a source or
// sink type that the schema does not know are allowed, but misspelled top-level keys of a pipe or pump are flagged,
// since the hub would silently ignore them. The hub's own checks (pipe-config.ts, systems.ts) stay authoritative.

import type { JsonObject, JsonValue } from '../base/index.js';
import { SINK_TYPES, SOURCE_TYPES } from './pipe-config.js';
import { SOURCE_TYPE_LIST } from './sources/index.js';
import { SINK_TYPE_LIST } from './sinks/index.js';
import { bool, ref, str, strings, type TypeOptions } from '../config/index.js';
import { COMPONENT_ID_PATTERN, PIPE_NUMBER_PROPERTIES, PUMP_PROPERTIES, SYSTEM_OPTIONS } from '../config/index.js';
import { nodeMetadataSchema, pipeRegistrySchema } from '../config/index.js';

/** Options of every source type (from its module in sources/); a type's other options are allowed. */
const SOURCE_OPTIONS: Record<string, TypeOptions> = Object.fromEntries(SOURCE_TYPE_LIST.map((t) => [t.type, t.options]));

const SINK_OPTIONS: Record<string, TypeOptions> = Object.fromEntries(SINK_TYPE_LIST.map((t) => [t.type, t.options]));

/** "When the type is X, these options apply", one branch per type. `implicit` is the type a missing "type" means. */
function typeBranches(options: Record<string, TypeOptions>, implicit?: string): JsonValue[] {
  return Object.entries(options).map(([type, { required, properties }]): JsonObject => {
    const test: JsonObject = { properties: { type: { const: type } } };
    if (type !== implicit) test['required'] = ['type'];
    return { if: test, then: required ? { properties, required } : { properties } };
  });
}

const source: JsonObject = {
  type: 'object',
  description: 'where the pipe reads entities',
  properties: {
    type: { enum: [...SOURCE_TYPES.known], description: 'source type (default "dataset")', enumDescriptions: SOURCE_TYPE_LIST.map((t) => t.doc) },
    comment: { description: 'free text; ignored by the hub' },
  },
  allOf: typeBranches(SOURCE_OPTIONS, 'dataset'),
};

const sink: JsonObject = {
  type: 'object',
  description: 'where the pipe writes entities (default: a dataset named after the pipe)',
  properties: {
    type: { enum: [...SINK_TYPES.known], description: 'sink type (default "dataset"); http_endpoint, csv_endpoint and xml_endpoint publish the entities' },
    comment: { description: 'free text; ignored by the hub' },
  },
  allOf: typeBranches(SINK_OPTIONS, 'dataset'),
};

const ruleStep: JsonObject = {
  type: 'array',
  description: 'a transform function call: ["function-name", argument, ...]',
  minItems: 1,
};

/** A rule set: a list of transform function calls, or one call written on its own (["copy", "*"]). */
const ruleSet: JsonObject = {
  anyOf: [
    { type: 'array', items: ruleStep },
    { type: 'array', minItems: 1, items: [{ type: 'string' }] },
  ],
};

const transform: JsonObject = {
  type: 'object',
  description: 'a transform: "dtl", "conditional" (the alternative named by "condition") or "emit_children"; others (http, rest, ...) are kept but not run',
  required: ['type'],
  properties: {
    type: { type: 'string', examples: ['dtl', 'conditional', 'emit_children'], description: 'transform type' },
    condition: str('conditional: picks the alternative by name, usually "$ENV(node-env)"'),
    alternatives: { type: 'object', description: 'conditional: transforms (or lists of them) keyed by the values of "condition"' },
    rules: {
      type: 'object',
      description: 'named rule sets: "default" runs once per source entity, the others through apply/apply-hops',
      required: ['default'],
      properties: { default: ruleSet },
      additionalProperties: ruleSet,
    },
    id_required: bool('the target entity must have an _id (default true)'),
    comment: { description: 'free text; ignored by the hub' },
  },
  if: { properties: { type: { const: 'dtl' } } },
  then: { required: ['rules'] },
};

const pump: JsonObject = {
  type: 'object',
  description: 'when and how the pipe runs',
  additionalProperties: false,
  properties: PUMP_PROPERTIES,
};

const metadata: JsonObject = {
  type: 'object',
  description: 'free metadata; the hub reads "$config-group" and "registry"',
  properties: {
    '$config-group': str('config group the entity belongs to; absent means the default group'),
    registry: pipeRegistrySchema,
  },
};

const pipe: JsonObject = {
  type: 'object',
  description: 'a pipe: reads a source, transforms, writes a sink',
  required: ['_id', 'type', 'source'],
  additionalProperties: false,
  properties: {
    _id: str('pipe id: 1 to 512 characters, no control characters, slashes, "?" or "#"', { pattern: COMPONENT_ID_PATTERN }),
    type: { const: 'pipe' },
    name: str('display name'),
    description: str('what the pipe is for'),
    comment: { description: 'free text or a list of lines; ignored by the hub' },
    metadata,
    source: ref('source'),
    transform: { anyOf: [ref('transform'), { type: 'array', items: ref('transform'), minItems: 1 }], description: 'a transform or a list run in order (chained)' },
    sink: ref('sink'),
    pump,
    add_namespaces: bool(
      'before the first transform, give _id the identity namespace and every property the property namespace (default with namespaced identifiers on: true for embedded, sql, csv, json, http_endpoint, ldap and kafka sources)',
    ),
    remove_namespaces: bool(
      'after the last transform, remove namespaces from _id, property names and namespaced-identifier values (default with namespaced identifiers on: true for every sink but a dataset)',
    ),
    namespaces: {
      type: 'object',
      description: 'namespaces the pipe uses with namespaced identifiers on',
      properties: { identity: { type: 'string' }, property: { type: 'string' } },
    },
    namespaced_identifiers: bool('override the node\'s namespaced_identifiers setting for this pipe'),
    ...PIPE_NUMBER_PROPERTIES,
    principals: strings('principals allowed to use the pipe, e.g. "group:Admin"'),
    compaction: { type: 'object', description: 'how old versions of the sink dataset are removed' },
    exclude_completeness: strings('datasets ignored when the completeness of the output is computed'),
    disable_set_last_seen: bool('do not move the source position when the pipe runs'),
    reprocessing_policy: { enum: ['continue', 'wait_for_next_run', 'automatic'], description: 'what happens when the pipe config changes' },
    infer_pipe_entity_types: bool('infer entity types for the pipe\'s output'),
    entity_type: { type: 'object', description: 'an explicit entity type (JSON Schema) for the output' },
  },
};

const system: JsonObject = {
  type: 'object',
  description: 'a system: an external service that sources and sinks connect to',
  required: ['_id', 'type'],
  properties: {
    _id: str('system id: 1 to 512 characters, no control characters, slashes, "?" or "#"', { pattern: COMPONENT_ID_PATTERN }),
    type: str('"system:<kind>"', { pattern: '^system:[A-Za-z0-9_-]+$', examples: Object.keys(SYSTEM_OPTIONS) }),
    name: str('display name'),
    description: str('what the system is'),
    comment: { description: 'free text; ignored by the hub' },
    metadata,
  },
  allOf: typeBranches(SYSTEM_OPTIONS),
};

/** One configuration entity: a pipe, a system or the node metadata, told apart by "type". */
export const configSchema: JsonObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://datahub.local/schemas/config.json',
  title: 'Datahub configuration entity',
  type: 'object',
  required: ['_id', 'type'],
  properties: {
    _id: { type: 'string' },
    type: { type: 'string', pattern: '^(pipe|metadata|system:.+)$', examples: ['pipe', 'system:url'], description: '"pipe", "system:<kind>" or "metadata"' },
  },
  allOf: [
    { if: { properties: { type: { const: 'pipe' } }, required: ['type'] }, then: ref('pipe') },
    { if: { properties: { type: { type: 'string', pattern: '^system:' } }, required: ['type'] }, then: ref('system') },
    { if: { properties: { type: { const: 'metadata' } }, required: ['type'] }, then: ref('node_metadata') },
  ],
  definitions: { pipe, system, source, sink, transform, node_metadata: nodeMetadataSchema },
};
