// The pump tests' view of a pipe's pump and log (spec §4.1), shared by pumps.test.ts and
// pumps-scheduling-and-status.test.ts: their types, and short calls on the test file's hub.
import assert from 'node:assert/strict';
import type { HubProcess } from './hub-process.js';
import { pumpOperation, pushEntities, runPump } from './api.js';

export type Json = Record<string, unknown>;

export interface LastRun {
  run_id: string;
  run_type: string;
  trigger: string;
  status: string;
  processed: number;
  changes: number;
  reason_why_stopped: string | null;
}

export interface PumpInfo {
  _id: string;
  'is-running': boolean;
  'is-disabled': boolean;
  'last-seen': string | null;
  'pending-retries': number;
  rescan: { 'is-running': boolean; 'last-seen': string | null };
  'supported-operations': string[];
  'scheduler-disabled': boolean;
  'next-run': string | null;
  runs: number;
  'last-run': LastRun | null;
  'webhook-token': string;
}

export interface LogEntity extends Json {
  _id: string;
  _updated: number;
  event_type: string;
}

export const p = (id: string): string => `/pipes/${encodeURIComponent(id)}`;

export async function createPipe(h: HubProcess, config: Json): Promise<void> {
  await h.json('/pipes', { method: 'POST', json: [{ type: 'pipe', ...config }] });
}

export interface PumpApi {
  push(dataset: string, entities: Json[]): Promise<void>;
  pump(id: string, h?: HubProcess): Promise<PumpInfo>;
  operate(id: string, operation: string, extra?: Record<string, string>, h?: HubProcess): Promise<Response>;
  op(id: string, operation: string, extra?: Record<string, string>, h?: HubProcess): Promise<PumpInfo>;
  /** Run an operation that starts a run and wait until that run has ended; returns its summary. */
  run(id: string, operation?: string, h?: HubProcess): Promise<LastRun>;
  log(id: string, query?: string): Promise<LogEntity[]>;
  /** The last pump-completed (or -failed) event of a pipe. */
  lastEnd(id: string): Promise<LogEntity>;
  latest(dataset: string): Promise<Map<string, Json>>;
}

/** The calls on `hub()`, the test file's hub (started in its `before`), unless another is given. */
export function pumpApi(hub: () => HubProcess): PumpApi {
  const log = (id: string, query = ''): Promise<LogEntity[]> => hub().json<LogEntity[]>(`${p(id)}/log${query}`);
  return {
    push: (dataset, entities) => pushEntities(hub(), dataset, entities),
    pump: (id, h = hub()) => h.json<PumpInfo>(`${p(id)}/pump`),
    operate: (id, operation, extra = {}, h = hub()) => h.fetch(`${p(id)}/pump`, { method: 'POST', body: new URLSearchParams({ operation, ...extra }) }),
    op: (id, operation, extra = {}, h = hub()) => pumpOperation<PumpInfo>(h, id, operation, extra),
    run: (id, operation = 'start', h = hub()) => runPump<LastRun>(h, id, operation),
    log,
    async lastEnd(id) {
      const events = await log(id, '?reverse=true');
      const end = events.find((e) => e.event_type === 'pump-completed' || e.event_type === 'pump-failed');
      assert.ok(end, `${id} has an ended run in its log`);
      return end;
    },
    async latest(dataset) {
      const list = await hub().json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false`);
      return new Map(list.map((e) => [e['_id'] as string, e]));
    },
  };
}
