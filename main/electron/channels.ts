// The one map of IPC channels between the main process and the preload script. Both sides are typed from
// it (main/electron/ipc.ts, preload.cts), so a channel name or payload cannot drift between them.
// renderer/src/lib/desktop-bridge.ts repeats DesktopApi because the renderer may not import main/;
// test/architecture/desktop-api-types.ts makes the build fail when the two copies differ.

export const VIEWS = ['pipes', 'datasets', 'graph', 'systems', 'env', 'secrets', 'config', 'tests', 'remote', 'registry', 'settings'] as const;
export type WorkbenchView = (typeof VIEWS)[number];

export interface RecentWorkspaceInfo {
  path: string;
  name: string;
}

/** What the window learns about the running hub when its page loads. */
export interface DesktopSession {
  hubUrl: string;
  /** The hub's per-launch admin token (sent as `Authorization: Bearer`); never part of a URL. */
  token: string;
  workspace: string;
  platform: NodeJS.Platform;
  appVersion: string;
}

/** Where the app is with updates; the window shows a notice for available, downloading, ready and the answers to a check the user asked for. */
export type UpdateStatus =
  | { state: 'unsupported'; reason: 'development' | 'package-manager'; message: string }
  | { state: 'idle' }
  | { state: 'checking'; askedByUser: boolean }
  | { state: 'up-to-date' }
  | { state: 'failed'; message: string }
  | { state: 'available'; version: string; releaseNotes: string; releaseDate?: string; problem?: string }
  | { state: 'downloading'; version: string; releaseNotes: string; percent: number }
  | { state: 'ready'; version: string; releaseNotes: string };

/** Commands from the native menu that the page carries out. */
export type MenuCommand = { kind: 'navigate'; view: WorkbenchView };

/** Renderer → main requests answered with a promise (ipcRenderer.invoke / ipcMain.handle). */
export interface InvokeChannels {
  /** Show the open-folder dialog, or reopen a folder from the recent list; null when cancelled. */
  'workspace:open': { request: { recent?: string }; response: { opened: string } | null };
  'workspace:recent': { request: null; response: RecentWorkspaceInfo[] };
  'updates:status': { request: null; response: UpdateStatus };
  /** Download the available update (nothing downloads without this). */
  'updates:download': { request: null; response: UpdateStatus };
  /** Quit (the hub stops cleanly first) and install the downloaded update. */
  'updates:install': { request: null; response: null };
  /** Turn the checks at start and every 12 hours on or off; answers the setting now in force. */
  'updates:automatic': { request: { enabled: boolean }; response: { enabled: boolean } };
}

/** Renderer → main requests answered synchronously, once, while the preload script runs. */
export interface SyncChannels {
  'desktop:session': { request: null; response: DesktopSession | null };
}

/** Main → renderer events. */
export interface EventChannels {
  'menu:command': MenuCommand;
  'updates:status': UpdateStatus;
}

/** `window.datahubDesktop` as the preload script exposes it. */
export interface DesktopApi {
  readonly hubUrl: string;
  readonly token: string;
  readonly workspace: string;
  /** process.platform of the app ('darwin', 'win32', 'linux', ...). */
  readonly platform: string;
  readonly appVersion: string;
  openWorkspace(): Promise<{ opened: string } | null>;
  openRecentWorkspace(path: string): Promise<{ opened: string } | null>;
  recentWorkspaces(): Promise<RecentWorkspaceInfo[]>;
  /** Subscribe to menu commands; returns the unsubscribe function. */
  onMenuCommand(listener: (command: MenuCommand) => void): () => void;
  updateStatus(): Promise<UpdateStatus>;
  /** Subscribe to changes of the update status; returns the unsubscribe function. */
  onUpdateStatus(listener: (status: UpdateStatus) => void): () => void;
  downloadUpdate(): Promise<UpdateStatus>;
  restartToUpdate(): Promise<null>;
  setAutomaticUpdateChecks(enabled: boolean): Promise<{ enabled: boolean }>;
}
