// Tests that can run apart: the pipes a run needs split into groups that share nothing (no pipe, no dataset one of
// them writes), each with the tests of its pipes. A group runs in a hub of its own (or after another in the same one:
// they touch different datasets), so a pipe that fails or never settles in one group cannot change another's result.
// What a pipe reads is counted generously: its source and what its transform reaches into (hops, apply-hops,
// lookup-entity), and any dataset another pipe writes whose name appears anywhere in its source or transform.

import { pipeReads } from './affected-tests.js';
import { upstreamClosure } from '../pipes/index.js';
import type { EffectivePipe } from '../pipes/index.js';
import type { TestSpec } from './project-test.js';

export interface TestGroup {
  /** The group's pipes, in the order they were given. */
  pipes: string[];
  /** The tests of the group's pipes (and tests naming a pipe that does not exist, each in a group of its own). */
  tests: TestSpec[];
}

function sinkDataset(p: EffectivePipe): string | undefined {
  return p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
}

/** The datasets of the project a pipe reads, counted generously (see above). */
function readsOf(p: EffectivePipe, written: ReadonlySet<string>): Set<string> {
  const out = new Set(pipeReads(p).keys());
  const text = JSON.stringify(p['transform'] ?? null) + JSON.stringify(p.source);
  for (const ds of written) if (text.includes(JSON.stringify(ds))) out.add(ds);
  return out;
}

/** For each dataset, the pipes writing it. */
function writersOf(pipes: ReadonlyMap<string, EffectivePipe>): Map<string, string[]> {
  const writers = new Map<string, string[]>();
  for (const [id, p] of pipes) {
    const ds = sinkDataset(p);
    if (ds !== undefined) writers.set(ds, [...(writers.get(ds) ?? []), id]);
  }
  return writers;
}

/** A pipe and every pipe it depends on, counted generously; the pipes a test's result can depend on. */
export function testClosure(pipes: ReadonlyMap<string, EffectivePipe>, pipe: string): Set<string> {
  const writers = writersOf(pipes);
  const written = new Set(writers.keys());
  const closure = new Set<string>();
  const visit = (id: string): void => {
    const p = pipes.get(id);
    if (p === undefined || closure.has(id)) return;
    closure.add(id);
    for (const ds of readsOf(p, written)) for (const w of writers.get(ds) ?? []) visit(w);
  };
  visit(pipe);
  return closure;
}

/**
 * The groups of a run: of every pipe (`only` undefined), or of the pipes the given ones need. Pipes end up in one
 * group when one reads what the other writes or both write the same dataset, transitively.
 */
export function testGroups(pipes: ReadonlyMap<string, EffectivePipe>, specs: readonly TestSpec[], only?: readonly string[]): TestGroup[] {
  let ids: string[];
  if (only === undefined) ids = [...pipes.keys()];
  else {
    const needed = new Set<string>();
    for (const id of only) for (const p of testClosure(pipes, id)) needed.add(p);
    // As the run of all pipes counts them too (its own closure of sources and hops).
    for (const p of upstreamClosure(pipes, only)) needed.add(p);
    ids = [...pipes.keys()].filter((id) => needed.has(id));
  }
  const parent = new Map<string, string>(ids.map((id) => [id, id]));
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (a: string, b: string): void => {
    if (parent.has(a) && parent.has(b)) parent.set(find(a), find(b));
  };
  const writers = writersOf(pipes);
  const written = new Set(writers.keys());
  for (const id of ids) {
    const p = pipes.get(id)!;
    for (const ds of readsOf(p, written)) for (const w of writers.get(ds) ?? []) union(id, w);
    const own = sinkDataset(p);
    for (const w of own === undefined ? [] : writers.get(own) ?? []) union(id, w);
  }
  const byRoot = new Map<string, TestGroup>();
  for (const id of ids) {
    const root = find(id);
    if (!byRoot.has(root)) byRoot.set(root, { pipes: [], tests: [] });
    byRoot.get(root)!.pipes.push(id);
  }
  const groups = [...byRoot.values()];
  for (const spec of specs) {
    const group = parent.has(spec.pipe) ? byRoot.get(find(spec.pipe)) : undefined;
    if (group !== undefined) group.tests.push(spec);
    else groups.push({ pipes: [], tests: [spec] });
  }
  return groups;
}
