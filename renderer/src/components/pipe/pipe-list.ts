// The pipe list's columns, filters and how it shows a pipe's source and sink: plain functions of a pipe's information.
import type { PipeInfo } from '../../lib/types';
import { configGroup, runResult, type LastRun } from './pipe-pump';

export type SortKey = 'id' | 'group' | 'source' | 'sink' | 'state' | 'schedule' | 'last-run' | 'processed' | 'changed' | 'errors' | 'config';
// The first column holds the pipe's id and, under it, where it reads from and writes to (source → sink): three
// whole ids side by side do not fit a 1440 px window, one above the other do.
export const COLUMNS: [SortKey, string, string][] = [
  ['id', 'Pipe', ''],
  ['group', 'Group', 'Config group'],
  // Running or idle above, the schedule below (two narrow texts in one column).
  ['state', 'State', 'Running or idle; a running run shows the entities it has processed so far'],
  ['last-run', 'Last run', 'Result and end of the last finished run'],
  ['config', 'Config', 'Problems of the configuration; hover for the first one'],
];

/** The pipe writes a dataset the registry lists, or will once it exists (the pipe has metadata.registry). */
export function publishes(p: PipeInfo, published: ReadonlySet<string>): boolean {
  const sink = p.config.effective.sink;
  if (sink.type !== 'dataset') return false;
  if (typeof sink['dataset'] === 'string' && published.has(sink['dataset'])) return true;
  const md = p.config.original['metadata'];
  const registry = md !== null && typeof md === 'object' && !Array.isArray(md) ? (md as Record<string, unknown>)['registry'] : undefined;
  return registry === true || (registry !== null && typeof registry === 'object' && !Array.isArray(registry));
}

/**
 * A source or sink in the list: a dataset by its name alone (a sink dataset named after the pipe, the default, as
 * "dataset"), a system's by type and system, else its type.
 */
export function endpoint(part: { type: string; [k: string]: unknown }, pipe?: string): string {
  const ds = part['dataset'];
  if (typeof ds === 'string' && ds === pipe && part.type === 'dataset') return 'dataset';
  if (typeof ds === 'string') return part.type === 'dataset' ? ds : `${part.type} ${ds}`;
  const sys = part['system'];
  if (typeof sys === 'string') return `${part.type} · ${sys}`;
  const many = part['datasets'];
  if (Array.isArray(many)) return `${part.type} (${many.length})`;
  return part.type;
}
/** The whole of it on hover: type, dataset(s), system. */
export function endpointTitle(part: { type: string; [k: string]: unknown }): string {
  const bits = [`type ${part.type}`];
  for (const key of ['dataset', 'system']) if (typeof part[key] === 'string') bits.push(`${key} ${String(part[key])}`);
  const many = part['datasets'];
  if (Array.isArray(many)) bits.push(`datasets ${many.map(String).join(', ')}`);
  return bits.join(' · ');
}

/** A pipe's configuration errors and warnings. */
export const problems = (p: PipeInfo): { errors: number; warnings: number } => {
  let errors = 0;
  for (const e of p.runtime['config-errors']) if (e.level === 'error') errors++;
  return { errors, warnings: p.runtime['config-errors'].length - errors };
};

/** The systems a pipe reads from or writes to (its source's and sink's `system`). */
export function systemsOf(p: PipeInfo): string[] {
  const out: string[] = [];
  for (const part of [p.config.effective.source, p.config.effective.sink]) {
    const sys = part['system'];
    if (typeof sys === 'string' && !out.includes(sys)) out.push(sys);
  }
  return out;
}
/** One word for where a pipe stands: running, config errors, failed (its last run), never run, or ok. */
export function stateOf(p: PipeInfo, lastRun: (p: PipeInfo) => LastRun | null): string {
  if (p.runtime['is-running']) return 'running';
  if (problems(p).errors > 0) return 'config errors';
  const last = lastRun(p);
  if (!last) return 'never run';
  return runResult(last) === 'failed' ? 'failed' : 'ok';
}

export type Facet = 'group' | 'system' | 'source' | 'sink' | 'state';
export const FACETS: { key: Facet; label: string; all: string; none: string }[] = [
  { key: 'group', label: 'Group', all: 'all groups', none: '(default)' },
  { key: 'system', label: 'System', all: 'all systems', none: '(no system)' },
  { key: 'source', label: 'Source', all: 'all sources', none: '' },
  { key: 'sink', label: 'Sink', all: 'all sinks', none: '' },
  { key: 'state', label: 'State', all: 'all states', none: '' },
];
export function facetValues(p: PipeInfo, f: Facet, lastRun: (p: PipeInfo) => LastRun | null): string[] {
  switch (f) {
    case 'group': return [configGroup(p.config.original)];
    case 'system': {
      const s = systemsOf(p);
      return s.length > 0 ? s : [''];
    }
    case 'source': return [p.config.effective.source.type];
    case 'sink': return [p.config.effective.sink.type];
    case 'state': return [stateOf(p, lastRun)];
  }
}
