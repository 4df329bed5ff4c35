// The sandboxed preload script. It is CommonJS (.cts → preload.cjs) because a sandboxed preload cannot be an
// ES module, and it may require only 'electron' (the sandbox's require knows no files), so channels.ts is
// imported for its types alone. The page gets a narrow, hand-written API and never sees ipcRenderer.
import { contextBridge, ipcRenderer } from 'electron';
import type { DesktopApi, EventChannels, InvokeChannels, SyncChannels } from './channels.js';

const invoke = <K extends keyof InvokeChannels>(channel: K, request: InvokeChannels[K]['request']): Promise<InvokeChannels[K]['response']> =>
  ipcRenderer.invoke(channel, request) as Promise<InvokeChannels[K]['response']>;

const askNow = <K extends keyof SyncChannels>(channel: K, request: SyncChannels[K]['request']): SyncChannels[K]['response'] =>
  ipcRenderer.sendSync(channel, request) as SyncChannels[K]['response'];

const subscribe = <K extends keyof EventChannels>(channel: K, listener: (payload: EventChannels[K]) => void): (() => void) => {
  const wrapped = (_event: unknown, payload: EventChannels[K]): void => listener(payload);
  ipcRenderer.on(channel, wrapped);
  return () => {
    ipcRenderer.removeListener(channel, wrapped);
  };
};

// Main answers only pages of the hub it started; any other page (the loading page) gets null and no API.
const session = askNow('desktop:session', null);
if (session) {
  const api: DesktopApi = {
    hubUrl: session.hubUrl,
    token: session.token,
    workspace: session.workspace,
    platform: session.platform,
    appVersion: session.appVersion,
    openWorkspace: () => invoke('workspace:open', {}),
    openRecentWorkspace: (path: string) => invoke('workspace:open', { recent: String(path) }),
    recentWorkspaces: () => invoke('workspace:recent', null),
    onMenuCommand: (listener) => subscribe('menu:command', (command) => listener(command)),
    updateStatus: () => invoke('updates:status', null),
    onUpdateStatus: (listener) => subscribe('updates:status', (status) => listener(status)),
    downloadUpdate: () => invoke('updates:download', null),
    restartToUpdate: () => invoke('updates:install', null),
    setAutomaticUpdateChecks: (enabled: boolean) => invoke('updates:automatic', { enabled: enabled === true }),
  };
  contextBridge.exposeInMainWorld('datahubDesktop', api);
}
