// What many API tests do, in one place: expect a JSON error, post entities, operate a pump and wait for its run.
import assert from 'node:assert/strict';
import type { HubProcess } from './hub-process.js';

type Json = Record<string, unknown>;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A pipe's API path. */
export const pipePath = (id: string): string => `/pipes/${encodeURIComponent(id)}`;

/** Expect a JSON error body `{error, detail}` with this status ('4xx': any client error); answers the body. */
export async function expectError(res: Response, status: number | '4xx', what: string): Promise<{ error: string; detail: unknown }> {
  const text = await res.text();
  if (status === '4xx') assert.ok(res.status >= 400 && res.status < 500, `${what}: expected a 4xx, got ${res.status}: ${text}`);
  else assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/, `${what}: the error is JSON`);
  const body = JSON.parse(text) as { error: string; detail: unknown };
  assert.equal(typeof body.error, 'string', `${what}: the error body has a string "error"`);
  assert.ok('detail' in body, `${what}: the error body has "detail"`);
  return body;
}

/** Poll until `fn` answers something other than undefined. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 8000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Post entities to a dataset. */
export async function pushEntities(h: HubProcess, dataset: string, entities: Json[]): Promise<void> {
  await h.json(`/datasets/${encodeURIComponent(dataset)}/entities`, { method: 'POST', json: entities });
}

interface PumpRuns {
  runs: number;
  'is-running': boolean;
  'last-run': unknown;
}

/** Carry out a pump operation (it must succeed); answers the pump information. */
export async function pumpOperation<T = Json>(h: HubProcess, id: string, operation: string, extra: Record<string, string> = {}): Promise<T> {
  const res = await h.fetch(`${pipePath(id)}/pump`, { method: 'POST', body: new URLSearchParams({ operation, ...extra }) });
  const text = await res.text();
  assert.equal(res.status, 200, `${operation} on ${id}: ${text}`);
  return JSON.parse(text) as T;
}

/** Run an operation that starts a run (start, start-rescan) and wait until that run has ended; answers its `last-run`. */
export async function runPump<T>(h: HubProcess, id: string, operation = 'start', timeoutMs = 8000): Promise<T> {
  const before = (await h.json<PumpRuns>(`${pipePath(id)}/pump`)).runs;
  await pumpOperation(h, id, operation);
  const info = await waitFor(
    `a run of ${id}`,
    async () => {
      const i = await h.json<PumpRuns>(`${pipePath(id)}/pump`);
      return i.runs > before && !i['is-running'] ? i : undefined;
    },
    timeoutMs,
  );
  return info['last-run'] as T;
}
