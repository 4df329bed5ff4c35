// The `json` sink: JSON Push of a pipe's output to a `system:url` system. Each pump run is one push sequence; its
// requests are chained by request_id / previous_request_id, the first says is_first and an empty closing request says
// is_last (with is_full on runs that read the source whole, so the receiver deletes what the sequence did not send).

import { randomUUID } from 'node:crypto';
import type { EffectivePipe } from '../../config/index.js';
import { SinkWriteError, type RemoteSink, type SinkContext, type SinkRun } from './sink.js';
import { isJsonObject, type JsonObject } from '../../base/index.js';
import { HubError, UnsetVariableError } from '../../base/index.js';
import { substituteEnv, substituteVariables, substituteVariablesLeniently } from '../../config/index.js';
import { httpPost, type PostResponse } from './http-post.js';
import { reachable } from './reachable.js';

export type { SinkContext };
export { SinkWriteError };
/** The json sink's run: one push sequence. */
export type PushSink = RemoteSink;

/** Properties the hub keeps for itself; they mean nothing to the receiver. */
const INTERNAL = new Set(['_updated', '_ts', '_hash', '_previous']);

function outgoing(e: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(e)) if (!INTERNAL.has(k)) out[k] = v;
  return out;
}

export function jsonPushSink(pipe: EffectivePipe, ctx: SinkRun): PushSink {
  const options = { full: ctx.full };
  const systemId = pipe.sink['system'];
  if (typeof systemId !== 'string') throw new HubError(400, 'a json sink needs "system": the id of a system:url system');
  const stored = ctx.system(systemId);
  // A system the project does not hold, or a microservice (this hub runs none): what would be sent goes to the outbox.
  if (!stored) return outboxOnly(ctx, systemId, `the json sink's system ${JSON.stringify(systemId)} is not in this project: what it would have sent is in the outbox`);
  if (stored['type'] === 'system:microservice') {
    // Its environment is never needed here: unset variables in it are named (never a value), not an error.
    const { unset } = substituteVariablesLeniently(stored, ctx.vars, systemId);
    const values = unset.length > 0 ? `; not set here: ${unset.join(', ')}` : '';
    return outboxOnly(ctx, systemId, `the json sink pushes to system ${JSON.stringify(systemId)}, a microservice this hub does not run: what it would have sent is in the outbox${values}`, unset);
  }
  // $ENV and $SECRET (e.g. an Authorization header) are replaced in the system (its secrets before the node's); the
  // pipe's sink gets $ENV only (secrets belong in system configuration, see config-variables.ts).
  let system: JsonObject;
  // Variables the environment does not set: fine while the target cannot be reached anyway (the outbox says which).
  let unset: string[] = [];
  let unsetError: unknown;
  try {
    system = substituteVariables(stored, ctx.vars, systemId, `system ${systemId}`);
  } catch (e) {
    if (!(e instanceof UnsetVariableError)) throw e;
    ({ value: system, unset } = substituteVariablesLeniently(stored, ctx.vars, systemId));
    unsetError = e;
  }
  const sink = substituteEnv(pipe.sink, (name) => ctx.vars.env(name), `pipe ${pipe._id} sink`);
  if (system['type'] !== 'system:url' || typeof system['base_url'] !== 'string') {
    throw new HubError(400, `system ${JSON.stringify(systemId)} is not a system:url with a "base_url"`);
  }
  const base = system['base_url'];
  const path = typeof sink['url'] === 'string' ? sink['url'] : '';
  let target: URL;
  try {
    target = new URL(path, base.endsWith('/') ? base : `${base}/`);
  } catch {
    throw new HubError(400, `the json sink's URL is not valid`, `base_url ${JSON.stringify(base)}, url ${JSON.stringify(path)}`);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const source of [system['headers'], sink['headers']]) {
    if (!isJsonObject(source)) continue;
    for (const [k, v] of Object.entries(source)) if (typeof v === 'string') headers[k.toLowerCase()] = v;
  }
  const timeoutMs = typeof system['timeout'] === 'number' && system['timeout'] > 0 ? system['timeout'] * 1000 : 60_000;

  const sequenceId = randomUUID();
  let previous: string | undefined;
  // Whether the target answers is found out at the first request: a URL that cannot be reached (another hub that is
  // not running, a service of the hosted environment) makes the run offline, its requests recorded in the outbox.
  let offline: boolean | undefined;
  const where: JsonObject = { system: systemId, url: `${target.origin}${target.pathname}`, ...(unset.length > 0 ? { unset } : {}) };

  const send = async (entities: readonly JsonObject[], last: boolean): Promise<void> => {
    offline ??= !(await reachable(target, Math.min(timeoutMs, 2000)));
    // Reachable, but a value it needs is not set: the push cannot be made.
    if (!offline && unsetError !== undefined) throw unsetError;
    if (offline) {
      recordPush(ctx, where, entities);
      return;
    }
    const requestId = randomUUID();
    const url = new URL(target);
    const q = url.searchParams;
    q.set('sequence_id', sequenceId);
    q.set('request_id', requestId);
    if (previous === undefined) q.set('is_first', 'true');
    else q.set('previous_request_id', previous);
    if (last) q.set('is_last', 'true');
    if (options.full) q.set('is_full', 'true');
    let res: PostResponse;
    try {
      res = await httpPost(url, headers, JSON.stringify(entities.map(outgoing)), timeoutMs);
    } catch (e) {
      throw new SinkWriteError(`JSON Push to ${url.origin}${url.pathname} failed: ${e instanceof Error ? e.message : String(e)}`, null);
    }
    if (res.status < 200 || res.status >= 300) {
      throw new SinkWriteError(`JSON Push to ${url.origin}${url.pathname} answered ${res.status}: ${res.text.slice(0, 500)}`, res.status);
    }
    previous = requestId;
  };

  return {
    get offline() {
      return offline === true;
    },
    get offlineReason() {
      const values = unset.length > 0 ? `; not set here: ${unset.join(', ')}` : '';
      return `the json sink cannot reach system ${JSON.stringify(systemId)} (${where.url}): what it would have sent is in the outbox${values}`;
    },
    write: (entities) => send(entities, false),
    // An incremental run that sent nothing has nothing to close; a full run always ends (the receiver deletes the rest).
    finish: () => (previous === undefined && !options.full ? Promise.resolve() : send([], true)),
  };
}

function recordPush(ctx: SinkRun, target: JsonObject, entities: readonly JsonObject[]): void {
  ctx.outbox.record('json', {
    target,
    records: entities.map((e) => ({ key: e['_id'] ?? null, operation: e['_deleted'] === true ? 'delete' : 'push', body: outgoing(e) })),
  });
}

/** A json sink that records every push in the outbox (its target cannot exist offline). */
function outboxOnly(ctx: SinkRun, systemId: string, reason: string, unset: readonly string[] = []): PushSink {
  const target: JsonObject = { system: systemId, url: null, ...(unset.length > 0 ? { unset: [...unset] } : {}) };
  return {
    offline: true,
    offlineReason: reason,
    write: (entities) => {
      if (entities.length > 0) recordPush(ctx, target, entities);
      return Promise.resolve();
    },
    finish: () => Promise.resolve(),
  };
}
