// What the Electron shell's preload script exposes as `window.datahubDesktop` (main/electron/channels.ts
// holds the original; the renderer may not import main/, so the shape is repeated here and
// test/architecture/desktop-api-types.ts fails the build when the copies differ). In a plain browser it is absent and
// the session cookie authenticates instead.

export type DesktopView = 'pipes' | 'datasets' | 'graph' | 'systems' | 'env' | 'secrets' | 'config' | 'tests' | 'remote' | 'registry' | 'settings';

export interface RecentWorkspaceInfo {
  path: string;
  name: string;
}

export type DesktopMenuCommand = { kind: 'navigate'; view: DesktopView };

export type UpdateStatus =
  | { state: 'unsupported'; reason: 'development' | 'package-manager'; message: string }
  | { state: 'idle' }
  | { state: 'checking'; askedByUser: boolean }
  | { state: 'up-to-date' }
  | { state: 'failed'; message: string }
  | { state: 'available'; version: string; releaseNotes: string; releaseDate?: string; problem?: string }
  | { state: 'downloading'; version: string; releaseNotes: string; percent: number }
  | { state: 'ready'; version: string; releaseNotes: string };

export interface DesktopApi {
  readonly hubUrl: string;
  readonly token: string;
  readonly workspace: string;
  readonly platform: string;
  readonly appVersion: string;
  openWorkspace(): Promise<{ opened: string } | null>;
  openRecentWorkspace(path: string): Promise<{ opened: string } | null>;
  recentWorkspaces(): Promise<RecentWorkspaceInfo[]>;
  onMenuCommand(listener: (command: DesktopMenuCommand) => void): () => void;
  updateStatus(): Promise<UpdateStatus>;
  onUpdateStatus(listener: (status: UpdateStatus) => void): () => void;
  downloadUpdate(): Promise<UpdateStatus>;
  restartToUpdate(): Promise<null>;
  setAutomaticUpdateChecks(enabled: boolean): Promise<{ enabled: boolean }>;
}

declare global {
  interface Window {
    datahubDesktop?: DesktopApi;
  }
}

/** The desktop API when running inside the Electron shell. */
export function desktop(): DesktopApi | undefined {
  return (globalThis as { datahubDesktop?: DesktopApi }).datahubDesktop;
}

/** The Authorization header value for hub requests made from the desktop app, if any. */
export function desktopAuthorization(): string | undefined {
  const token = desktop()?.token;
  return token ? `Bearer ${token}` : undefined;
}

/** Carry out the native menu's commands (Go → Pipes, ...); a no-op in a browser. */
export function followDesktopMenu(navigate: (view: DesktopView) => void): () => void {
  return desktop()?.onMenuCommand((command) => {
    if (command.kind === 'navigate') navigate(command.view);
  }) ?? (() => undefined);
}
