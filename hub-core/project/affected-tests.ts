// Which of a project's tests (node/expected/*.test.json) a change to its files can affect, and why each one: the
// loop of `datahub test --changed <ref>` and `datahub test --watch` runs only those.
//   - a changed pipe (added, edited or removed; of a file that holds one or a list): its tests, and the tests of every
//     pipe downstream of it: pipes that read a dataset it writes (or wrote before the change) through their source
//     (dataset, merge, union, a conditional's alternatives), through `hops`/`apply-hops` or `lookup-entity` in their
//     transform, and so on transitively;
//   - a changed system: the pipes that name it, and downstream of them;
//   - a changed expected file or `.test.json`: the tests that read it;
//   - a changed test-env.json or node metadata: every test (they change what every pipe may do).
// Pure file reading: no hub is needed, so the selection is cheap to make after every save.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asConfigEntity, configKind, type ConfigEntity } from '../config/index.js';
import { parseConfigText } from '../base/index.js';
import { canonicalJson, isJsonObject, type JsonValue } from '../base/index.js';
import { effectivePipeConfig, pipeDependencies, type EffectivePipe } from '../pipes/index.js';
import { readTestSpecs, type TestSpec } from './project-test.js';
import { configFiles, readConfigFiles } from '../config/index.js';
import { transformDatasets } from '../pipes/index.js';

export interface ProjectChange {
  /** The changed files (added, edited or deleted), relative to the node folder, "/"-separated. */
  files: readonly string[];
  /**
   * What the changed configuration files held before the change, by file ([] for a file that is new). A pipe whose
   * content is the same before and after is not changed; a file left out counts all its components as changed.
   */
  before?: ReadonlyMap<string, readonly ConfigEntity[]>;
}

export interface AffectedTest {
  spec: TestSpec;
  /** Why the test is in the selection, one line each. */
  reasons: string[];
}

export interface AffectedSelection {
  /** Why every test is affected (test-env.json or node metadata changed), else null. */
  all: string | null;
  /** The affected tests, by name. */
  tests: AffectedTest[];
  /** The pipes the change touches directly (added, edited, removed, or naming a changed system). */
  changedPipes: string[];
  /** Changed files that affect no test (not configuration, expected files nor test env; or unchanged content). */
  unrelated: string[];
}

/** How a pipe reads a dataset: "source", "merge source", "hops", "apply-hops", "lookup-entity", ... */
type ReadHow = string;

/** The datasets a pipe reads and how (its source, and what its transform reaches into). */
export function pipeReads(p: EffectivePipe): Map<string, ReadHow> {
  const out = new Map<string, ReadHow>();
  const add = (ds: string, how: string): void => {
    if (!out.has(ds)) out.set(ds, how);
  };
  const sourceHow = p.source.type === 'dataset' ? 'source' : `${p.source.type} source`;
  for (const ds of pipeDependencies(p)) add(ds, sourceHow);
  for (const ds of transformDatasets(p.source)) add(ds, sourceHow);
  // In a transform: `datasets` lists of hops and apply-hops specs, the dataset of lookup-entity; named by the function
  // they are inside of.
  const walk = (v: JsonValue | undefined, fn: string): void => {
    if (Array.isArray(v)) {
      const head = typeof v[0] === 'string' ? v[0] : undefined;
      if (head === 'lookup-entity' && typeof v[1] === 'string') add(v[1], 'lookup-entity');
      const inner = head === 'hops' || head === 'apply-hops' ? head : fn;
      v.forEach((x) => walk(x, inner));
    } else if (isJsonObject(v)) {
      const ds = v['datasets'];
      if (Array.isArray(ds)) for (const d of ds) if (typeof d === 'string') add(d.trim().split(/\s+/)[0]!, fn);
      for (const x of Object.values(v)) walk(x, fn);
    }
  };
  walk(p['transform'], 'transform');
  return out;
}

/** The dataset a pipe's sink writes, if it writes one. */
function sinkDataset(p: EffectivePipe): string | undefined {
  return p.sink.type === 'dataset' && typeof p.sink['dataset'] === 'string' ? p.sink['dataset'] : undefined;
}

/** Does a configuration name this system (a `system` property anywhere: source, sink, transform)? */
function namesSystem(value: JsonValue | undefined, system: string): boolean {
  if (Array.isArray(value)) return value.some((v) => namesSystem(v, system));
  if (!isJsonObject(value)) return false;
  if (value['system'] === system) return true;
  return Object.values(value).some((v) => namesSystem(v, system));
}

/** Is this file (relative to the node folder) one the project's configuration is read from? */
export function isConfigFilePath(file: string, single?: string): boolean {
  return single !== undefined ? file === single : file === 'node-metadata.conf.json' || /^(pipes|systems)\/[^/]+\.conf\.json$/.test(file);
}

const posix = (file: string): string => file.replace(/\\/g, '/').replace(/^\.\//, '');

/**
 * The tests of the project in `nodeDir` that a change to `change.files` can affect. `single` names the file of a
 * single-file export (its only configuration file); otherwise pipes/, systems/ and node-metadata.conf.json are read.
 */
export function affectedTests(nodeDir: string, change: ProjectChange, options: { single?: string } = {}): AffectedSelection {
  const files = [...new Set(change.files.map(posix))].sort();
  const isConfigFile = (f: string): boolean => isConfigFilePath(f, options.single);
  const current = readConfigFiles(nodeDir, options.single !== undefined ? (existsSync(join(nodeDir, options.single)) ? [options.single] : []) : configFiles(nodeDir));
  const specs = readTestSpecs(nodeDir);
  const unrelated: string[] = [];
  const reasons = new Map<string, string[]>();
  const give = (name: string, reason: string): void => {
    const list = reasons.get(name) ?? [];
    if (!list.includes(reason)) list.push(reason);
    reasons.set(name, list);
  };
  let all: string | null = null;

  // Configuration: which components changed, by comparing each changed file's components before and after.
  const key = (e: ConfigEntity): string => `${configKind(e)}:${e._id}`;
  const changedPipes = new Map<string, string>(); // pipe -> why
  const oldPipes = new Map<string, ConfigEntity>();
  const changedSystems = new Map<string, string>();
  for (const file of files.filter(isConfigFile)) {
    const now = current.entities.filter((r) => r.file === file).map((r) => r.entity);
    const unreadable = current.unreadable.includes(file);
    const before = change.before?.get(file);
    const was = new Map((before ?? []).map((e) => [key(e), e]));
    const is = new Map(now.map((e) => [key(e), e]));
    let any = false;
    for (const k of new Set([...was.keys(), ...is.keys()])) {
      const a = was.get(k);
      const b = is.get(k);
      // An unreadable file (being saved, or broken) keeps its components as they were: nothing known changed.
      if (unreadable && b === undefined) continue;
      if (before !== undefined && a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b)) continue;
      any = true;
      const e = (b ?? a)!;
      const kind = configKind(e);
      const what = b === undefined ? 'removed' : a === undefined && before !== undefined ? 'added' : 'changed';
      if (kind === 'metadata') all ??= `the node metadata changed (${file})`;
      else if (kind === 'system') changedSystems.set(e._id, `system ${e._id} ${what} (${file})`);
      else {
        changedPipes.set(e._id, `pipe ${e._id} ${what} (${file})`);
        if (a !== undefined) oldPipes.set(e._id, a);
      }
    }
    if (!any) unrelated.push(file);
  }

  // The pipes as they are now, and who reads what.
  const pipes = new Map<string, EffectivePipe>();
  for (const r of current.entities) if (r.entity.type === 'pipe') pipes.set(r.entity._id, effectivePipeConfig(r.entity));
  for (const [system, why] of changedSystems) {
    for (const [id, p] of pipes) if (!changedPipes.has(id) && namesSystem(p as unknown as JsonValue, system)) changedPipes.set(id, `pipe ${id} uses ${why}`);
  }
  const readers = new Map<string, { pipe: string; how: ReadHow }[]>();
  for (const [id, p] of pipes) {
    for (const [ds, how] of pipeReads(p)) readers.set(ds, [...(readers.get(ds) ?? []), { pipe: id, how }]);
  }

  // Downstream, breadth first, keeping for each pipe the shortest chain from a changed pipe.
  const chain = new Map<string, { root: string; path: string }>();
  const queue: string[] = [];
  for (const id of [...changedPipes.keys()].sort()) {
    chain.set(id, { root: id, path: id });
    queue.push(id);
  }
  while (queue.length > 0) {
    const id = queue.shift()!;
    const { root, path } = chain.get(id)!;
    // What it writes now, and what it wrote before the change (readers of a dataset it stopped writing are affected).
    const written = new Set<string>();
    const now = pipes.get(id);
    if (now !== undefined) {
      const ds = sinkDataset(now);
      if (ds !== undefined) written.add(ds);
    }
    const old = oldPipes.get(id);
    if (old !== undefined && chain.get(id)!.root === id) {
      const ds = sinkDataset(effectivePipeConfig(old));
      if (ds !== undefined) written.add(ds);
    }
    for (const ds of [...written].sort()) {
      for (const r of readers.get(ds) ?? []) {
        if (chain.has(r.pipe)) continue;
        chain.set(r.pipe, { root, path: `${path} → ${r.pipe} (${r.how} "${ds}")` });
        queue.push(r.pipe);
      }
    }
  }

  // Expected files and test specs.
  const expectedChanged = new Set(files.filter((f) => f.startsWith('expected/')).map((f) => f.slice('expected/'.length)));
  const used = new Set<string>();
  for (const spec of specs) {
    const direct = changedPipes.get(spec.pipe);
    if (direct !== undefined) give(spec.name, direct);
    else {
      const c = chain.get(spec.pipe);
      if (c !== undefined) give(spec.name, `downstream of ${changedPipes.get(c.root)!}: ${c.path}`);
    }
    if (expectedChanged.has(`${spec.name}.test.json`)) {
      give(spec.name, `expected/${spec.name}.test.json changed`);
      used.add(`${spec.name}.test.json`);
    }
    if (expectedChanged.has(spec.file)) {
      give(spec.name, `expected/${spec.file} changed`);
      used.add(spec.file);
    }
  }
  for (const f of expectedChanged) if (!used.has(f)) unrelated.push(`expected/${f}`);

  if (files.includes('test-env.json')) all = 'test-env.json changed';
  for (const f of files) {
    if (!isConfigFile(f) && !f.startsWith('expected/') && f !== 'test-env.json') unrelated.push(f);
  }
  if (all !== null) for (const spec of specs) give(spec.name, `${all}: every test`);

  return {
    all,
    tests: specs.filter((s) => reasons.has(s.name)).map((spec) => ({ spec, reasons: reasons.get(spec.name)! })),
    changedPipes: [...changedPipes.keys()].sort(),
    unrelated: [...new Set(unrelated)].sort(),
  };
}

/** Every configuration component of the node folder's config files, by file: the `before` of a later change. */
export function configSnapshot(nodeDir: string, options: { single?: string } = {}): Map<string, ConfigEntity[]> {
  const files = options.single !== undefined ? (existsSync(join(nodeDir, options.single)) ? [options.single] : []) : configFiles(nodeDir);
  const read = readConfigFiles(nodeDir, files);
  const out = new Map<string, ConfigEntity[]>();
  for (const f of files) if (!read.unreadable.includes(f)) out.set(f, []);
  for (const r of read.entities) out.get(r.file)?.push(r.entity);
  return out;
}

/** The configuration components of a config file's text (as it was at a commit, say); unreadable text holds none. */
export function configEntitiesOfText(text: string): ConfigEntity[] {
  let parsed: unknown;
  try {
    parsed = parseConfigText(text);
  } catch {
    return [];
  }
  const out: ConfigEntity[] = [];
  for (const v of Array.isArray(parsed) ? parsed : [parsed]) {
    try {
      const e = asConfigEntity(v, 'file');
      configKind(e);
      out.push(e);
    } catch {
      // Not a component: the current files' problems say so.
    }
  }
  return out;
}

/** The texts of the files a change of which can affect a test: config files, expected/*, test-env.json. */
export function testInputTexts(nodeDir: string, single: string | undefined): Map<string, string> {
  const files = single !== undefined ? [single] : configFiles(nodeDir);
  const expected = join(nodeDir, 'expected');
  if (existsSync(expected)) for (const f of readdirSync(expected).sort()) files.push(`expected/${f}`);
  files.push('test-env.json');
  const out = new Map<string, string>();
  for (const f of files) {
    try {
      out.set(f, readFileSync(join(nodeDir, f), 'utf8'));
    } catch {
      // Gone while we looked, a folder, or no test-env.json.
    }
  }
  return out;
}
