// The workspace folder a serving hub is bound to, switchable while it runs (the workbench's "Open folder"): the hub's
// configuration becomes the new folder's, files are watched and written back there. One folder at a time.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Hub } from '../../../hub-core/hub.js';
import { HubError } from '../../../hub-core/base/index.js';
import { configKind } from '../../../hub-core/config/index.js';
import { Workspace, workspaceNodeDir, type WorkspaceLoad, type WorkspaceProblem } from '../../../hub-core/project/index.js';
import { readConfigFiles } from '../../../hub-core/config/index.js';

/** What opening a folder would do (a dry run) or did. */
export interface WorkspaceOpening {
  dir: string;
  nodeDir: string;
  pipes: number;
  systems: number;
  /** Files the hub cannot load (not JSON, not a configuration), as the workspace loader reports them. */
  problems: WorkspaceProblem[];
  /** Pipes and systems this hub holds now that the folder does not: opening removes them from the hub. */
  removed: string[];
  opened: boolean;
}

/** A folder whose files have problems, refused unless the caller opens it anyway. */
export class WorkspaceProblemsError extends HubError {
  constructor(
    readonly opening: WorkspaceOpening,
  ) {
    super(422, `${opening.problems.length} file${opening.problems.length === 1 ? '' : 's'} in ${opening.nodeDir} cannot be loaded`, opening.problems.map((p) => `${p.file}: ${p.msg}`).join('; '));
  }
}

export class WorkspaceHost {
  private current: Workspace | undefined;
  private folder: string | undefined;
  /** Told after every reload of the open workspace caused by a file change (the serving host prints its problems). */
  onReload: ((load: WorkspaceLoad) => void) | undefined;
  /** Told when the workbench opened another folder. */
  onSwitch: ((workspace: Workspace, load: WorkspaceLoad) => void) | undefined;

  constructor(private readonly hub: Hub) {}

  get dir(): string | undefined {
    return this.folder;
  }

  get workspace(): Workspace | undefined {
    return this.current;
  }

  /** Open the folder the hub starts on (`serve --workspace`): its problems are reported, never refused. */
  start(dir: string, options: { watch?: boolean } = {}): WorkspaceLoad {
    const workspace = new Workspace(this.hub, resolve(dir));
    const load = workspace.open(options);
    this.bind(workspace, resolve(dir));
    return load;
  }

  /**
   * Switch to another folder: checked first (it must be an existing folder with a project's layout), then the
   * current workspace is closed and the new one loaded. A folder with files the hub cannot load is refused (422)
   * unless `openWithProblems`; `dryRun` only says what opening would do.
   */
  open(path: string, options: { openWithProblems?: boolean; dryRun?: boolean } = {}): WorkspaceOpening {
    const opening = this.inspect(path);
    if (options.dryRun) return opening;
    if (opening.problems.length > 0 && !options.openWithProblems) throw new WorkspaceProblemsError(opening);
    const next = new Workspace(this.hub, opening.dir);
    this.current?.close();
    this.current = undefined;
    const load = next.open();
    this.bind(next, opening.dir);
    // Another project opens calm too: its schedules wait until the user resumes them (the top bar's toggle).
    this.hub.pumps.scheduler.setPaused(true);
    this.onSwitch?.(next, load);
    return { ...opening, pipes: load.pipes, systems: load.systems, problems: load.problems, opened: true };
  }

  close(): void {
    this.current?.close();
    this.current = undefined;
  }

  private bind(workspace: Workspace, dir: string): void {
    this.current = workspace;
    this.folder = dir;
    workspace.onReload = (load) => this.onReload?.(load);
  }

  /** What the folder at `path` holds, or a 4xx saying why it cannot be a workspace. */
  private inspect(path: string): WorkspaceOpening {
    const trimmed = path.trim();
    if (trimmed === '') throw new HubError(400, 'no folder given', 'type the path of a project folder');
    if (!isAbsolute(trimmed)) throw new HubError(400, `${trimmed} is not an absolute path`, 'give the whole path of the folder, from the root (/home/me/project, C:\\project)');
    const dir = resolve(trimmed);
    let isDir: boolean;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      throw new HubError(404, `there is no folder ${dir}`, 'check the path: nothing exists there');
    }
    if (!isDir) throw new HubError(400, `${dir} is a file, not a folder`, 'choose the project folder (the one that holds node/ or pipes/)');
    const nodeDir = workspaceNodeDir(dir);
    if (!['pipes', 'systems', 'node-metadata.conf.json'].some((f) => existsSync(join(nodeDir, f)))) {
      throw new HubError(400, `${dir} is not a project folder`, 'a project holds node/pipes/, node/systems/ or node/node-metadata.conf.json (or those at its top)');
    }
    const read = readConfigFiles(nodeDir);
    const inFolder = new Set(read.entities.map((r) => `${configKind(r.entity)}:${r.entity._id}`));
    const removed = this.hub.config
      .list()
      .filter((e) => configKind(e) !== 'metadata' && !inFolder.has(`${configKind(e)}:${e._id}`))
      .map((e) => e._id);
    return {
      dir,
      nodeDir,
      pipes: read.entities.filter((r) => configKind(r.entity) === 'pipe').length,
      systems: read.entities.filter((r) => configKind(r.entity) === 'system').length,
      problems: read.problems,
      removed,
      opened: false,
    };
  }
}
