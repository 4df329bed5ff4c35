import type { ConfigEntity } from '../config/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../base/index.js';
import { parseIndexExpression } from '../storage/index.js';
import { compactionProblems } from '../storage/index.js';
import { compileTransform } from '../dtl/index.js';
import { HubError } from '../base/index.js';

import { hasErrors, type ConfigError } from '../base/index.js';
import type { EffectivePipe } from '../config/index.js';
import { SOURCE_TYPE_LIST, sourceType } from './sources/index.js';
import { embeddedEntityProblems } from './sources/embedded.js';
import { SINK_TYPE_LIST, sinkType } from './sinks/index.js';
import { pipeSecretReferences } from '../config/index.js';
import { COMPONENT_ID_RULE, PIPE_NUMBER_PROPERTIES, checkNumberSettings, isComponentId } from '../config/index.js';
import type { EnvLookup } from '../config/index.js';

export { hasErrors, type ConfigError };

/** Source and sink types seen in real configurations (their modules are in sources/ and sinks/); the hub runs the `running` ones. */
export const SOURCE_TYPES = {
  known: SOURCE_TYPE_LIST.map((t) => t.type),
  running: SOURCE_TYPE_LIST.filter((t) => t.read !== undefined || t.receives === true).map((t) => t.type),
};

export const SINK_TYPES = {
  known: SINK_TYPE_LIST.map((t) => t.type),
  running: SINK_TYPE_LIST.filter((t) => t.runs !== undefined).map((t) => t.type),
};

export const PUBLISHER_SINKS: ReadonlySet<string> = new Set(SINK_TYPE_LIST.filter((t) => t.runs === 'publish').map((t) => t.type));

/** `"indexes": "$ids"` on a dataset sink: an index on `$ids`. */
export const IDS_INDEX = '$ids';


/**
 * Compile errors of one DTL transform. Pipe information is asked for often (every list, every receiver request),
 * so results are kept for the transforms seen last instead of compiling the same rules again.
 */
const transformErrorCache = new Map<string, ConfigError[]>();
const TRANSFORM_CACHE_SIZE = 500;

function transformErrors(transform: JsonValue, at: string): ConfigError[] {
  const key = at + '\u0000' + JSON.stringify(transform);
  let errors = transformErrorCache.get(key);
  if (errors === undefined) {
    errors = compileTransform(transform, { configPath: at }).errors;
    if (transformErrorCache.size >= TRANSFORM_CACHE_SIZE) transformErrorCache.delete(transformErrorCache.keys().next().value!);
    transformErrorCache.set(key, errors);
  }
  return errors;
}

/** Check a pipe configuration; every problem carries the JSON path of the element at fault. */
export function checkPipeConfig(config: JsonObject): ConfigError[] {
  const errors: ConfigError[] = [];
  const err = (elements: string, msg: string): void => void errors.push({ elements, level: 'error', msg });
  const warn = (elements: string, msg: string): void => void errors.push({ elements, level: 'warning', msg });
  const compaction = compactionProblems(config['compaction']);
  for (const [at, msg] of compaction.errors) err(at, msg);
  for (const [at, msg] of compaction.warnings) warn(at, msg);
  const id = config['_id'];
  if (!isComponentId(id)) err('$._id', `the pipe needs an "_id": ${COMPONENT_ID_RULE}`);
  if (config['type'] !== 'pipe') err('$.type', 'a pipe has "type": "pipe"');
  const metadata = config['metadata'];
  if (metadata !== undefined && !isJsonObject(metadata)) err('$.metadata', '"metadata" must be an object');
  if (isJsonObject(metadata) && metadata['$config-group'] !== undefined && typeof metadata['$config-group'] !== 'string') {
    err('$.metadata.$config-group', 'the config group must be a string');
  }

  const source = config['source'];
  if (source === undefined) err('$.source', 'the pipe has no "source"');
  else if (!isJsonObject(source)) err('$.source', '"source" must be an object');
  else {
    const type = source['type'] ?? 'dataset';
    if (typeof type !== 'string' || !SOURCE_TYPES.known.includes(type)) {
      err('$.source.type', `unknown source type ${JSON.stringify(type)}; known types: ${SOURCE_TYPES.known.join(', ')}`);
    } else {
      if (!SOURCE_TYPES.running.includes(type)) {
        warn('$.source.type', `source type "${type}" is accepted but not run by this hub yet`);
      }
      sourceType(type)?.check?.(source, err);
      if (type === 'conditional') checkAlternatives(source, err, warn);
    }
  }

  const sink = config['sink'];
  if (sink !== undefined && !isJsonObject(sink)) err('$.sink', '"sink" must be an object');
  else if (isJsonObject(sink)) {
    const type = sink['type'] ?? 'dataset';
    if (typeof type !== 'string' || !SINK_TYPES.known.includes(type)) {
      err('$.sink.type', `unknown sink type ${JSON.stringify(type)}; known types: ${SINK_TYPES.known.join(', ')}`);
    } else {
      if (!SINK_TYPES.running.includes(type)) warn('$.sink.type', `sink type "${type}" is accepted but does nothing in this hub`);
      sinkType(type)?.check?.(sink, err);
    }
    if (sink['dataset'] !== undefined && typeof sink['dataset'] !== 'string') err('$.sink.dataset', '"dataset" must be a string');
    const indexes = sink['indexes'];
    // "$ids" (the documented string form, also an element of the list) maintains an index on the entities' $ids.
    if (indexes !== undefined && indexes !== IDS_INDEX) {
      if (!Array.isArray(indexes)) err('$.sink.indexes', '"indexes" must be "$ids" or an array of "_S.<property>" strings (and "$ids")');
      else
        indexes.forEach((ix, i) => {
          if (ix === IDS_INDEX) return;
          try {
            parseIndexExpression(ix as string);
          } catch (e) {
            err(`$.sink.indexes[${i}]`, e instanceof HubError ? `${e.message}: ${e.detail ?? ''}` : String(e));
          }
        });
    }
  }

  const transform = config['transform'];
  // The transforms are compiled as the pipe will run them (a chain, conditional alternatives, emit_children): every
  // problem carries its JSON path (e.g. "$.transform.rules.default[2][1]"). Transforms that are not run here warn.
  if (transform !== undefined) errors.push(...transformErrors(transform, '$.transform'));
  const pump = config['pump'];
  if (pump !== undefined && !isJsonObject(pump)) err('$.pump', '"pump" must be an object');
  const loop = selfFedDataset(config);
  if (loop !== undefined) {
    err(
      '$.source.dataset',
      `the pipe reads the dataset it writes (${JSON.stringify(loop)}): each run would read its own output again and a changing transform would never stop; write to another dataset`,
    );
  }
  for (const at of pipeSecretReferences(config)) {
    warn(at, '$SECRET(...) is replaced in system configuration only (and as the key of encrypt/decrypt); here it stays as written: put it in the system this pipe uses');
  }
  return errors;
}

/**
 * The alternatives of a conditional source. Only the picked one is opened, and the service accepts alternatives its
 * own checks of that source type would refuse (a real project's "dev" alternative holds embedded entities without
 * "_id" that its transform gives one): an embedded alternative's entities must be objects, and one without "_id" is
 * a warning here.
 */
function checkAlternatives(source: JsonObject, err: (at: string, msg: string) => void, warn: (at: string, msg: string) => void): void {
  const alternatives = source['alternatives'];
  if (!isJsonObject(alternatives)) return;
  for (const [name, alt] of Object.entries(alternatives)) {
    if (!isJsonObject(alt) || alt['type'] !== 'embedded' || !Array.isArray(alt['entities'])) continue;
    const at = `$.source.alternatives.${name}.entities`;
    embeddedEntityProblems(alt['entities'], at, err, warn);
  }
}

/**
 * The number settings of a pipe, of its source (and a conditional source's alternatives) and of its sink that are
 * not numbers in their documented range (config-settings.ts). Checked on the configuration as written: a whole
 * "$ENV(name)" is checked with the variable's value when `env` has it set. The pump's settings are checked with the
 * schedule (pump-config.ts).
 */
export function pipeNumberErrors(config: JsonObject, env?: EnvLookup): ConfigError[] {
  const errors: ConfigError[] = [];
  const err = (elements: string, msg: string): void => void errors.push({ elements, level: 'error', msg });
  checkNumberSettings(config, PIPE_NUMBER_PROPERTIES, '$', err, env);
  const checkSource = (source: JsonValue | undefined, at: string): void => {
    if (!isJsonObject(source)) return;
    const type = typeof source['type'] === 'string' ? source['type'] : 'dataset';
    const known = sourceType(type);
    if (known !== undefined) checkNumberSettings(source, known.options.properties, at, err, env);
    if (type === 'conditional' && isJsonObject(source['alternatives'])) {
      for (const [name, alt] of Object.entries(source['alternatives'])) checkSource(alt, `${at}.alternatives.${name}`);
    }
  };
  checkSource(config['source'], '$.source');
  const sink = config['sink'];
  if (isJsonObject(sink)) {
    const known = sinkType(typeof sink['type'] === 'string' ? sink['type'] : 'dataset');
    if (known !== undefined) checkNumberSettings(sink, known.options.properties, '$.sink', err, env);
  }
  return errors;
}

/** The dataset a pipe both reads and writes (its sink defaults to a dataset named like the pipe), if any. */
function selfFedDataset(config: JsonObject): string | undefined {
  const source = config['source'];
  const sink = isJsonObject(config['sink']) ? config['sink'] : {};
  if (!isJsonObject(source) || (sink['type'] ?? 'dataset') !== 'dataset') return undefined;
  const target = typeof sink['dataset'] === 'string' ? sink['dataset'] : config['_id'];
  if (typeof target !== 'string') return undefined;
  const read: unknown[] = [source['dataset'], ...(Array.isArray(source['datasets']) ? source['datasets'] : [])];
  return read.some((d) => typeof d === 'string' && d.split(' ')[0] === target) ? target : undefined;
}

export type { EffectivePipe };

/** The configuration with every default filled in, as the hub runs it. */
export function effectivePipeConfig(config: ConfigEntity): EffectivePipe {
  const source = isJsonObject(config['source']) ? config['source'] : {};
  const sink = isJsonObject(config['sink']) ? config['sink'] : {};
  const pump = isJsonObject(config['pump']) ? config['pump'] : {};
  const sourceTypeName = typeof source['type'] === 'string' ? source['type'] : 'dataset';
  const sinkTypeName = typeof sink['type'] === 'string' ? sink['type'] : 'dataset';
  const plainSink: JsonObject & { type: string } = { ...sink, type: sinkTypeName };
  const effSink = sinkType(sinkTypeName)?.defaults?.(plainSink, config._id) ?? plainSink;
  return {
    ...config,
    source: { ...source, type: sourceTypeName },
    sink: effSink,
    pump: {
      mode: sourceType(sourceTypeName)?.defaultMode ?? 'scheduled',
      schedule_interval: 30,
      run_at_startup: false,
      ...pump,
    },
    principals: Array.isArray(config['principals']) ? config['principals'] : ['group:Admin'],
  };
}

/** Datasets a pipe reads, for `runtime.dependencies`. */
export function pipeDependencies(effective: EffectivePipe): string[] {
  const deps = new Set<string>();
  const src = effective.source;
  if (typeof src['dataset'] === 'string') deps.add(src['dataset']);
  if (Array.isArray(src['datasets'])) {
    for (const d of src['datasets']) if (typeof d === 'string') deps.add(d.split(' ')[0]!);
  }
  return [...deps];
}
