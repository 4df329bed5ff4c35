// "Re-run affected tests on save" in the Tests view: while on, every configuration change the hub writes to the
// workspace (a save in the workbench, or an edit of its files the hub loaded) is compared with the files as they were
// at the last look, and only the tests that change can affect run (hub-core/project/affected-tests.ts: the selection
// `datahub test --watch` runs), with why each one, in a hub kept warm between saves (workspace-test-warm.ts). The last
// such run is kept for the view to show, whichever view the save was made in.
import type { DesktopContext } from './desktop-context.js';
import type { WorkspaceTestReport } from './workspace-test-run.js';
import type { WorkspaceTestTasks } from './workspace-test-tasks.js';
import { WarmTestHub } from './workspace-test-warm.js';
import { affectedTests, configEntitiesOfText, isConfigFilePath, testInputTexts } from '../../../hub-core/project/index.js';
import type { ConfigEntity } from '../../../hub-core/config/index.js';
import { HubError } from '../../../hub-core/base/index.js';
import { workspaceNodeDir } from '../../../hub-core/project/index.js';

/** Quiet time after a change before it is looked at (a save may write several files). */
const DEBOUNCE_MS = 150;

export interface LoopRun {
  /** Counts up with every run, so a view knows a new one. */
  seq: number;
  /** When the change was seen (ISO time). */
  at: string;
  /** The changed files, relative to node/. */
  changed: string[];
  /** The affected tests and why each one. */
  tests: { name: string; reasons: string[] }[];
  /** Changed files that affect no test. */
  unrelated: string[];
  status: 'running' | 'done' | 'failed';
  report: WorkspaceTestReport | null;
  error: string | null;
}

export interface LoopState {
  enabled: boolean;
  last: LoopRun | null;
}

const message = (e: unknown): string => (e instanceof HubError && e.detail ? `${e.message}: ${e.detail}` : e instanceof Error ? e.message : String(e));

export class WorkspaceTestLoop {
  private enabled = false;
  private baseline: { dir: string; texts: Map<string, string> } | undefined;
  private last: LoopRun | null = null;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private cycling = false;
  private again = false;
  /** The hub the loop's runs share, kept between saves while the loop is on. */
  private readonly warm = new WarmTestHub();

  constructor(
    private readonly ctx: DesktopContext,
    private readonly tasks: WorkspaceTestTasks,
  ) {
    ctx.hub.config.onChange(() => this.saved());
  }

  state(): LoopState {
    return { enabled: this.enabled, last: this.last };
  }

  setEnabled(on: boolean): LoopState {
    if (on !== this.enabled) {
      this.enabled = on;
      clearTimeout(this.timer);
      this.baseline = on ? this.look() : undefined;
      if (!on) this.warm.close();
    }
    return this.state();
  }

  /** A file the host wrote itself (an accept): its new text is the baseline, not a change to re-run for. */
  absorb(file: string): void {
    const b = this.baseline;
    if (b === undefined || b.dir !== this.ctx.workspaceDir) return;
    const now = testInputTexts(workspaceNodeDir(b.dir), undefined).get(file);
    if (now === undefined) b.texts.delete(file);
    else b.texts.set(file, now);
  }

  private look(): { dir: string; texts: Map<string, string> } | undefined {
    const dir = this.ctx.workspaceDir;
    return dir === undefined ? undefined : { dir, texts: testInputTexts(workspaceNodeDir(dir), undefined) };
  }

  private saved(): void {
    if (!this.enabled) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.cycle(), DEBOUNCE_MS);
    this.timer.unref();
  }

  private async cycle(): Promise<void> {
    if (this.cycling) {
      this.again = true;
      return;
    }
    this.cycling = true;
    try {
      do {
        this.again = false;
        await this.once();
      } while (this.again && this.enabled);
    } finally {
      this.cycling = false;
    }
  }

  private async once(): Promise<void> {
    const now = this.look();
    const base = this.baseline;
    this.baseline = now;
    if (now === undefined || base === undefined || base.dir !== now.dir) return;
    const changed = [...new Set([...base.texts.keys(), ...now.texts.keys()])].filter((f) => base.texts.get(f) !== now.texts.get(f)).sort();
    if (changed.length === 0) return;
    const before = new Map<string, ConfigEntity[]>();
    for (const f of changed) if (isConfigFilePath(f)) before.set(f, base.texts.has(f) ? configEntitiesOfText(base.texts.get(f)!) : []);
    const run: LoopRun = { seq: ++this.seq, at: new Date().toISOString(), changed, tests: [], unrelated: [], status: 'running', report: null, error: null };
    this.last = run;
    try {
      const selection = affectedTests(workspaceNodeDir(now.dir), { files: changed, before });
      run.tests = selection.tests.map((t) => ({ name: t.spec.name, reasons: t.reasons }));
      run.unrelated = selection.unrelated;
      if (run.tests.length === 0) {
        run.status = 'done';
        return;
      }
      // A run someone started is finished first (one at a time); this one follows it.
      while (this.tasks.running) await new Promise((r) => setTimeout(r, 200));
      const names = run.tests.map((t) => t.name);
      run.report = await this.tasks.alone(() => this.warm.run(now.dir, names, changed));
      run.status = 'done';
    } catch (e) {
      run.status = 'failed';
      run.error = message(e);
    }
  }
}
