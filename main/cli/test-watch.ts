// `datahub test --watch`: run the tests once, then after every saved change re-run only the tests it can affect
// (hub-core/project/affected-tests.ts), saying which and why. The folders are watched, not the files (as the workspace does:
// an editor's save by rename never leaves a watcher on a file that is gone); events come in bursts, so a short quiet
// time gathers them, and what changed is found by comparing the files' texts with those of the last look, so a save
// that changes nothing runs nothing. Ctrl+C or SIGTERM ends it (exit code 0) once a run under way has finished.

import { existsSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { affectedTests, configEntitiesOfText, isConfigFilePath, testInputTexts, type AffectedSelection } from '../../hub-core/project/index.js';
import { parseConfigText } from '../../hub-core/base/index.js';
import type { ConfigEntity } from '../../hub-core/config/index.js';
import { HubError } from '../../hub-core/base/index.js';
import type { TestSpec } from '../../hub-core/project/index.js';

/** Quiet time after a file event before the change is looked at (editors write a file in several steps). */
const DEBOUNCE_MS = 60;

export interface WatchContext {
  nodeDir: string;
  /** The file of a single-file export, else undefined. */
  single: string | undefined;
  /** What --pipe and --filter keep of a list of tests. */
  pick: (specs: readonly TestSpec[]) => TestSpec[];
  /** Whether --pipe or --filter narrow the tests at all. */
  narrowed: boolean;
  /** Run the given tests (every test when undefined) and print their results; `changed`: the files saved since the last run. */
  run: (selected: TestSpec[] | undefined, selection?: AffectedSelection, changed?: readonly string[]) => Promise<number>;
  /** Every test of the project (for the first run when --pipe/--filter narrow them). */
  specs: () => TestSpec[];
  print: (line: string) => void;
}

function message(e: unknown): string {
  return e instanceof HubError && e.detail ? `${e.message}: ${e.detail}` : e instanceof Error ? e.message : String(e);
}

/** Watch the project until a signal; resolves to the exit code (0). */
export async function watchTests(ctx: WatchContext): Promise<number> {
  const { nodeDir, single, print } = ctx;
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let pending = false;
  let stopping = false;
  let firstEventAt: number | undefined;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const schedule = (): void => {
    if (stopping) return;
    firstEventAt ??= Date.now();
    clearTimeout(timer);
    timer = setTimeout(() => void cycle(), DEBOUNCE_MS);
  };
  const watchFolders = (): void => {
    for (const sub of ['', 'pipes', 'systems', 'expected']) {
      if (watchers.has(sub)) continue;
      const dir = sub === '' ? nodeDir : join(nodeDir, sub);
      if (!existsSync(dir)) continue;
      try {
        const w = watch(dir, (_event, name) => {
          if (sub === '' && (name === 'pipes' || name === 'systems' || name === 'expected')) watchFolders();
          schedule();
        });
        w.on('error', () => {
          w.close();
          if (watchers.get(sub) === w) watchers.delete(sub);
        });
        watchers.set(sub, w);
      } catch {
        // Not watchable now; the next event of the node folder tries again.
      }
    }
  };

  let last = testInputTexts(nodeDir, single);
  const idle = (): void => print('Watching for changes (Ctrl+C to stop)…');

  // One look at what changed since the last, and a run of the tests it affects; again while saves came meanwhile.
  const cycle = async (): Promise<void> => {
    if (running) {
      pending = true;
      return;
    }
    running = true;
    try {
      do {
        pending = false;
        const seen = firstEventAt ?? Date.now();
        firstEventAt = undefined;
        watchFolders();
        const now = testInputTexts(nodeDir, single);
        // A config file that does not parse (half saved) is looked at again on its next event.
        for (const [f, text] of now) {
          if (!isConfigFilePath(f, single) || text === last.get(f)) continue;
          try {
            parseConfigText(text);
          } catch {
            if (last.has(f)) now.set(f, last.get(f)!);
            else now.delete(f);
          }
        }
        const changed = [...new Set([...last.keys(), ...now.keys()])].filter((f) => last.get(f) !== now.get(f)).sort();
        if (changed.length === 0) continue;
        const before = new Map<string, ConfigEntity[]>();
        for (const f of changed) if (isConfigFilePath(f, single)) before.set(f, last.has(f) ? configEntitiesOfText(last.get(f)!) : []);
        last = now;
        let selection: AffectedSelection;
        try {
          selection = affectedTests(nodeDir, { files: changed, before }, single !== undefined ? { single } : {});
        } catch (e) {
          print(`\n↻ ${changed.join(', ')} changed, but the tests cannot be read: ${message(e)}`);
          idle();
          continue;
        }
        const picked = new Set(ctx.pick(selection.tests.map((t) => t.spec)).map((s) => s.name));
        const tests = selection.tests.filter((t) => picked.has(t.spec.name));
        const narrowed = ctx.narrowed && tests.length < selection.tests.length ? ` (${selection.tests.length - tests.length} more left out by --pipe/--filter)` : '';
        print(`\n↻ ${changed.join(', ')} changed: ${tests.length} affected test(s)${narrowed}${tests.length > 0 ? ':' : ''}`);
        for (const t of tests) print(`  ${t.spec.name}: ${t.reasons.join('; ')}`);
        if (tests.length === 0) print('Nothing to run.');
        else {
          await ctx.run(
            tests.map((t) => t.spec),
            selection,
            changed,
          );
          print(`Result ${Date.now() - seen} ms after the change was seen.`);
        }
        idle();
      } while (pending && !stopping);
    } finally {
      running = false;
      if (stopping) finish(0);
    }
  };

  const stop = (): void => {
    if (stopping) process.exit(0); // a second Ctrl+C: at once
    stopping = true;
    clearTimeout(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
    if (!running) finish(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  watchFolders();
  running = true;
  try {
    let first: TestSpec[] | undefined;
    if (ctx.narrowed) {
      try {
        first = ctx.pick(ctx.specs());
      } catch (e) {
        print(`The tests cannot be read: ${message(e)}`);
        first = [];
      }
    }
    if (first === undefined || first.length > 0) await ctx.run(first);
    else print('No test matches --pipe/--filter yet.');
    idle();
  } finally {
    running = false;
  }
  if (stopping) finish(0);
  else if (pending || firstEventAt !== undefined) schedule();
  const code = await finished;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return code;
}
