// Publishers (spec §4.6, §4.8): a pipe whose sink is an endpoint publishes its source dataset through its transform.
// This is what a publisher serves; the HTTP route turns the pages into JSON, CSV, a workbook or XML.

import type { Hub } from '../hub.js';
import type { Dataset, ReadOptions } from '../storage/index.js';
import type { EffectivePipe } from '../pipes/index.js';
import type { PipeRuntime } from '../pipes/index.js';
import { DtlCompileError } from '../dtl/index.js';
import { badRequest, notFound } from '../base/index.js';
import type { JsonObject } from '../base/index.js';
import { parseJson } from '../base/index.js';
import type { PublishFormat } from '../pipes/index.js';
import { SINK_TYPE_LIST } from '../pipes/index.js';

export type { PublishFormat };

/** The sink types that publish a format (their modules in sinks/ say which formats they serve). */
function publishingSinks(format: PublishFormat): string[] {
  return SINK_TYPE_LIST.filter((t) => t.publishes?.includes(format)).map((t) => t.type);
}

export interface PublishQuery {
  /** The `_updated` offset of the last entity read. */
  since?: string;
  limit?: number;
}

/** One publisher pipe, ready to be read. */
export interface Publication {
  readonly pipe: EffectivePipe;
  readonly dataset: Dataset;
  /** A transform or a subset leaves entities out: the entity at the dataset's end may not be in what is published. */
  readonly filtered: boolean;
  /** The sink's `columns` setting (CSV, Excel), when it names them. */
  readonly columns: string[] | undefined;
  /**
   * Pages of entity JSON texts as published (through the pipe's transform when it has one; deleted entities only
   * with `deleted`). Each keeps its source's `_updated`, so that clients can continue with `since`.
   */
  pages(query: PublishQuery, deleted: boolean, pageSize?: number): Generator<string[], void, undefined>;
}

function sinceOf(q: PublishQuery): number | undefined {
  if (q.since === undefined || q.since === '') return undefined;
  const n = Number(q.since);
  if (!Number.isInteger(n)) throw badRequest('invalid since', `"since" is the _updated offset of the last entity read; got ${JSON.stringify(q.since)}`);
  return n;
}

function* transformed(runtime: PipeRuntime, raw: Generator<string[], void, undefined>, deleted: boolean): Generator<string[], void, undefined> {
  for (const page of raw) {
    const out: string[] = [];
    for (const text of page) {
      const source = parseJson(text) as JsonObject;
      // The pipe's own processing (source step, transform, sink step), as a pump run would give its sink.
      for (const e of runtime.process([source])) {
        if (!deleted && e['_deleted'] === true) continue;
        out.push(JSON.stringify({ ...e, _updated: source['_updated'] ?? null }));
      }
    }
    yield out;
  }
}

/** The publisher of a pipe in a format: 404 when its sink does not publish it, 400 when its source is not a dataset. */
export function publication(hub: Hub, pipeId: string, format: PublishFormat): Publication {
  const runtime = hub.pumps.runtimes.of(hub.pipes.require(pipeId));
  const pipe = runtime.pipe;
  const sinks = publishingSinks(format);
  if (!sinks.includes(pipe.sink.type)) {
    throw notFound(
      `publisher ${format} of pipe ${JSON.stringify(pipeId)}`,
      `the pipe's sink is "${pipe.sink.type}"; publishing ${format} needs a sink of type ${sinks.join(' or ')}`,
    );
  }
  if (pipe.source.type !== 'dataset' || typeof pipe.source['dataset'] !== 'string') {
    throw badRequest(`pipe ${JSON.stringify(pipeId)} cannot publish`, 'this hub publishes pipes whose source is a dataset');
  }
  const dataset = hub.datasets.get(pipe.source['dataset']);
  if (!dataset) throw notFound(`dataset ${JSON.stringify(pipe.source['dataset'])}`, `the source of publisher ${JSON.stringify(pipeId)} has no data yet`);
  const subset = pipe.source['subset'];
  const cols = pipe.sink['columns'];
  const readOptions = (q: PublishQuery, deleted: boolean): ReadOptions => {
    const s = sinceOf(q);
    return {
      history: false,
      deleted,
      ...(s !== undefined ? { since: s } : {}),
      ...(q.limit !== undefined ? { limit: q.limit } : {}),
      ...(subset !== undefined ? { subset } : {}),
    };
  };
  return {
    pipe,
    dataset,
    filtered: !runtime.passesThrough || subset !== undefined,
    columns: Array.isArray(cols) && cols.every((c) => typeof c === 'string') ? (cols as string[]) : undefined,
    pages(q, deleted, pageSize) {
      const transform = runtime.transform;
      if (transform && !transform.ok) throw new DtlCompileError(transform.errors);
      const raw = dataset.readJson({ ...readOptions(q, deleted), ...(pageSize !== undefined ? { pageSize } : {}) });
      return runtime.passesThrough ? raw : transformed(runtime, raw, deleted);
    },
  };
}
