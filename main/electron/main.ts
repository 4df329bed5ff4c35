// The Electron shell: one window on the workbench served by the hub, which runs in a process of its own.
// Everything else (the hub, the API, the UI) is the same code `datahub serve` runs in plain Node.
import { app, BrowserWindow, dialog, Menu, screen, session, shell, type MessageBoxOptions } from 'electron';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAppArgs, userArgv } from './app-args.js';
import { HubProcess, type RunningHub } from './hub-process.js';
import { handle, handleSync, send } from './ipc.js';
import { buildMenu } from './menu.js';
import { isHubSender, originOf } from './navigation-policy.js';
import { RecentWorkspaces } from './recent-workspaces.js';
import { copySampleWorkspace } from './sample-workspace.js';
import { guardNavigation, secureSession } from './security.js';
import { loadWindowState, placeOnScreen, saveWindowState } from './window-state.js';
import { Updates } from './updates.js';
import type { MenuCommand } from './channels.js';

const APP_NAME = 'Datahub Desktop';
const isFolder = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const args = parseAppArgs(userArgv(process.argv, process.defaultApp === true), isFolder);
app.setName(APP_NAME);
// Unpackaged, Electron would name the profile folder after itself; keep ours apart from other apps.
if (args.userData) app.setPath('userData', resolve(args.userData));
else if (!app.isPackaged) app.setPath('userData', join(app.getPath('appData'), APP_NAME));
if (process.platform === 'win32') app.setAppUserModelId('io.datahub.desktop');
app.enableSandbox();

const userData = app.getPath('userData');
const hubDataDir = resolve(args.hubData ?? join(userData, 'hub'));
const recent = new RecentWorkspaces(join(userData, 'recent-workspaces.json'));
const windowStateFile = join(userData, 'window-state.json');
const hubPortFile = join(userData, 'hub-port');
const updates = new Updates(join(userData, 'update-settings.json'), (status) => {
  if (win) send(win.webContents, 'updates:status', status);
  refreshMenu();
});

let win: BrowserWindow | null = null;
let current: RunningHub | null = null;
/** Workspace switches run one after the other: two hubs must never start on the same data folder. */
let opening: Promise<unknown> = Promise.resolve();
let quitting = false;
let unloadRefused: (() => void) | null = null;

const hubOrigin = (): string | null => (current ? originOf(current.url) : null);
const fromHub = (url: string | undefined, topFrame: boolean): boolean => isHubSender(url, topFrame, hubOrigin());
const hub = new HubProcess(hubDataDir, app.isPackaged ? undefined : args.hubNode, (code, output) =>
  background(hubDied(code, output)),
);

/** Run a task started by a menu or an event; a failure is shown, never an unhandled rejection. */
function background(task: Promise<unknown>): void {
  task.catch((e: unknown) => dialog.showErrorBox(APP_NAME, e instanceof Error ? e.message : String(e)));
}

/** Load a URL where a failure is already visible in the window (a superseded load rejects with ERR_ABORTED). */
function show(window: BrowserWindow, url: string): void {
  window.loadURL(url).catch(() => undefined);
}

function page(text: string): string {
  const html = `<!doctype html><meta charset="utf-8"><title>${APP_NAME}</title>` +
    `<body style="font:14px system-ui,sans-serif;margin:3em;color:#555">${text.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</body>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

function sampleWorkspace(): string {
  const shipped = app.isPackaged
    ? join(process.resourcesPath, 'sample-workspace')
    : fileURLToPath(new URL('../../../resources/sample-workspace', import.meta.url));
  return copySampleWorkspace(shipped, hubDataDir);
}

/** The app icon for the window (Linux and Windows show it in the taskbar); the installers carry their own. */
function windowIcon(): string | undefined {
  const icon = app.isPackaged ? join(process.resourcesPath, 'icon.png') : fileURLToPath(new URL('../../../resources/icon.png', import.meta.url));
  return process.platform !== 'darwin' && existsSync(icon) ? icon : undefined;
}

function createWindow(): BrowserWindow {
  // The primary display first: a window placed nowhere opens there.
  const primary = screen.getPrimaryDisplay();
  const displays = [primary, ...screen.getAllDisplays().filter((d) => d.id !== primary.id)].map((d) => d.workArea);
  const state = placeOnScreen(loadWindowState(windowStateFile), displays);
  const icon = windowIcon();
  const window = new BrowserWindow({
    ...state.bounds,
    minWidth: 720,
    minHeight: 480,
    title: APP_NAME,
    show: false,
    ...(icon ? { icon } : {}),
    webPreferences: {
      preload: fileURLToPath(new URL('./preload.cjs', import.meta.url)),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // The installed app has no DevTools (and no menu entry for them); a development tree keeps them.
      devTools: !app.isPackaged,
    },
  });
  if (state.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());

  let saveTimer: NodeJS.Timeout | undefined;
  const save = (): void => {
    if (window.isDestroyed() || window.isMinimized() || window.isFullScreen()) return;
    saveWindowState(windowStateFile, { bounds: window.getNormalBounds(), maximized: window.isMaximized() });
  };
  const saveSoon = (): void => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, 500);
  };
  window.on('resize', saveSoon);
  window.on('move', saveSoon);
  window.on('close', () => {
    clearTimeout(saveTimer);
    save();
  });
  window.on('closed', () => {
    if (win === window) win = null;
  });
  // The title names the open workspace, whatever the page calls itself.
  window.on('page-title-updated', (event) => event.preventDefault());
  let lastCrash = 0;
  window.webContents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit' || !current) return;
    // Reload once; a page that keeps crashing stays on the message instead of looping.
    const again = Date.now() - lastCrash < 30_000;
    lastCrash = Date.now();
    show(window, page(`The window's page stopped (${details.reason}).${again ? ' Reopen the workspace from File → Open Recent.' : ' Reloading…'}`));
    if (!again) background(showWorkbench(window, current));
  });
  // The workbench asks before unsaved edits are dropped (beforeunload); Electron shows no dialog by itself.
  window.webContents.on('will-prevent-unload', (event) => {
    const choice = dialog.showMessageBoxSync(window, {
      type: 'question',
      buttons: ['Leave', 'Stay'],
      defaultId: 1,
      cancelId: 1,
      message: 'Leave with unsaved changes?',
      detail: 'Edits that are not saved will be lost.',
    });
    if (choice === 0) event.preventDefault();
    else unloadRefused?.();
  });
  show(window, page('Starting the hub…'));
  return window;
}

/** Navigate away from the workbench; false when the user chose to stay with unsaved edits. */
async function leaveWorkbench(window: BrowserWindow, message: string): Promise<boolean> {
  if (originOf(window.webContents.getURL()) !== hubOrigin()) return true;
  const stayed = new Promise<false>((resolveStayed) => (unloadRefused = () => resolveStayed(false)));
  try {
    return await Promise.race([window.loadURL(page(message)).then(() => true, () => window.webContents.getURL().startsWith('data:')), stayed]);
  } finally {
    unloadRefused = null;
  }
}

async function showWorkbench(window: BrowserWindow, running: RunningHub): Promise<void> {
  // A one-time login link also gives the page the hub's session cookie, for plain links (downloads) that
  // cannot carry the Authorization header; the long-lived token itself never goes into a URL.
  let target = `${running.url}/`;
  try {
    const res = await fetch(`${running.url}/api/login-url`, { method: 'POST', headers: { authorization: `Bearer ${running.token}` } });
    if (res.ok) target = ((await res.json()) as { url: string }).url;
  } catch {
    // the page still authenticates with the token from the preload API
  }
  window.setTitle(`${APP_NAME} — ${running.workspace}`);
  await window.loadURL(target);
}

function lastHubPort(): number {
  try {
    const port = Number(readFileSync(hubPortFile, 'utf8').trim());
    return Number.isInteger(port) && port > 1024 && port < 65536 ? port : 0;
  } catch {
    return 0;
  }
}

async function startHub(folder: string): Promise<RunningHub> {
  const running = await hub.start(folder, lastHubPort());
  mkdirSync(userData, { recursive: true });
  writeFileSync(hubPortFile, `${new URL(running.url).port}\n`);
  return running;
}

/** Open a workspace folder in the window, after any switch already under way. */
function openWorkspace(folder: string): Promise<boolean> {
  const next = opening.then(() => switchWorkspace(folder));
  opening = next.catch(() => undefined);
  return next;
}

async function switchWorkspace(folder: string): Promise<boolean> {
  const window = win ?? (win = createWindow());
  if (!(await leaveWorkbench(window, `Opening ${folder}…`))) return false;
  const previous = current;
  current = null;
  try {
    current = await startHub(folder);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    await dialog.showMessageBox(window, { type: 'error', message: `The workspace ${folder} could not be opened`, detail: reason });
    if (!previous) {
      await window.loadURL(page(`The hub could not start: ${reason}`));
      return false;
    }
    current = await startHub(previous.workspace);
    await showWorkbench(window, current);
    return false;
  }
  recent.add(folder);
  app.addRecentDocument(folder);
  refreshMenu();
  await showWorkbench(window, current);
  return true;
}

async function chooseWorkspace(): Promise<{ opened: string } | null> {
  const options = { title: 'Open workspace folder', properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
  const picked = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  const folder = picked.canceled ? undefined : picked.filePaths[0];
  if (!folder) return null;
  return (await openWorkspace(folder)) ? { opened: folder } : null;
}

async function hubDied(code: number, output: string): Promise<void> {
  const folder = current?.workspace;
  current = null;
  if (quitting || !win) return;
  const lastLines = output.trim().split('\n').slice(-5).join('\n');
  const options: MessageBoxOptions = {
    type: 'error',
    buttons: ['Restart the hub', 'Quit'],
    defaultId: 0,
    message: `The hub stopped unexpectedly (exit code ${code}).`,
    detail: lastLines,
  };
  const { response } = await dialog.showMessageBox(win, options);
  if (response === 0 && folder) await openWorkspace(folder);
  else app.quit();
}

function menuCommand(command: MenuCommand): void {
  if (win) send(win.webContents, 'menu:command', command);
}

function refreshMenu(): void {
  Menu.setApplicationMenu(
    buildMenu(APP_NAME, recent.list(), {
      openWorkspace: () => background(chooseWorkspace()),
      openRecent: (path) => background(openWorkspace(path)),
      clearRecent: () => {
        recent.clear();
        app.clearRecentDocuments();
        refreshMenu();
      },
      command: menuCommand,
      openApiReference: () => {
        if (win && current) show(win, `${current.url}/api/reference`);
      },
      back: () => {
        if (win?.webContents.navigationHistory.canGoBack()) win.webContents.navigationHistory.goBack();
      },
      openDataFolder: () => background(shell.openPath(hubDataDir)),
      checkForUpdates: () => background(checkForUpdates()),
      setAutomaticUpdates: (enabled) => updates.setAutomatic(enabled),
    }, { devTools: !app.isPackaged, automaticUpdates: updates.automatic, updatesSupported: updates.supported }),
  );
}

/** Help → Check for Updates…: the answer shows in the window; where this copy cannot update itself, a dialog says why. */
async function checkForUpdates(): Promise<void> {
  const status = updates.current;
  if (status.state === 'unsupported') {
    const options: MessageBoxOptions = { type: 'info', message: 'Updates', detail: status.message };
    await (win ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options));
    return;
  }
  await updates.check(true);
}

function registerIpc(): void {
  handleSync('desktop:session', fromHub, () =>
    current ? { hubUrl: current.url, token: current.token, workspace: current.workspace, platform: process.platform, appVersion: app.getVersion() } : null,
  );
  handle('workspace:recent', fromHub, async () => recent.list());
  handle('updates:status', fromHub, async () => {
    const status = updates.current;
    // The answer to a manual check is shown when it arrives; a page loaded later does not show it again.
    return status.state === 'up-to-date' || status.state === 'failed' ? { state: 'idle' } : status;
  });
  handle('updates:download', fromHub, () => updates.download());
  handle('updates:install', fromHub, async () => {
    updates.install();
    return null;
  });
  handle('updates:automatic', fromHub, async (request) => {
    const enabled = request !== null && typeof request === 'object' && (request as { enabled?: unknown }).enabled === true;
    return { enabled: updates.setAutomatic(enabled) };
  });
  handle('workspace:open', fromHub, async (request) => {
    const asked = request !== null && typeof request === 'object' ? (request as { recent?: unknown }).recent : undefined;
    if (asked === undefined) return chooseWorkspace();
    // The page may reopen only folders the user opened before; any other folder goes through the dialog.
    if (typeof asked !== 'string' || !recent.has(asked)) throw new Error('not a recent workspace');
    return (await openWorkspace(resolve(asked))) ? { opened: resolve(asked) } : null;
  });
}

async function startUp(): Promise<void> {
  secureSession(session.defaultSession, hubOrigin);
  app.on('web-contents-created', (_event, contents) => guardNavigation(contents, hubOrigin));
  registerIpc();
  refreshMenu();
  win = createWindow();
  const first = args.workspace ? resolve(args.workspace) : (recent.list()[0]?.path ?? sampleWorkspace());
  await openWorkspace(first);
  // Never in a development tree nor for a package-manager install (update-policy.ts); silent when offline.
  updates.start();
}

/** What a second launch hands over to the running app: the folder it was asked to open, as an absolute path. */
interface Handover {
  workspace?: string;
}

/** The folder a second launch asks for: from its handover, else from its command line (older or foreign launchers). */
function handedOverFolder(argv: readonly string[], workingDirectory: string, data: unknown): string | undefined {
  const handed = data !== null && typeof data === 'object' ? (data as Handover).workspace : undefined;
  if (typeof handed === 'string' && isFolder(handed)) return handed;
  const inArgs = parseAppArgs(userArgv(argv, process.defaultApp === true), (p) => isFolder(resolve(workingDirectory, p))).workspace;
  return inArgs !== undefined ? resolve(workingDirectory, inArgs) : undefined;
}

const handover: Handover = args.workspace ? { workspace: resolve(args.workspace) } : {};
if (!app.requestSingleInstanceLock(handover)) {
  // The running app opens the folder (second-instance below); this process has nothing more to do.
  app.quit();
} else {
  app.on('second-instance', (_event, argv, workingDirectory, data) => {
    const folder = handedOverFolder(argv, workingDirectory, data);
    if (!win && app.isReady()) {
      // macOS keeps running without windows; the hub may still be up.
      win = createWindow();
      if (current && (!folder || folder === current.workspace)) background(showWorkbench(win, current));
    }
    if (win) {
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
    }
    if (folder && folder !== current?.workspace) background(openWorkspace(folder));
  });
  // Logging out, `kill` or Ctrl+C in a terminal: quit the way the menu does, so the hub stops cleanly.
  if (process.platform !== 'win32') for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (win || !current) return;
    const running = current;
    win = createWindow();
    showWorkbench(win, running).catch(() => undefined);
  });
  // After the windows closed (a page with unsaved edits may have kept the app open), let the hub close its
  // databases and remove its lock before the app exits.
  app.on('will-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    void hub.stop().finally(() => app.quit());
  });
  app.whenReady().then(startUp).catch((e: unknown) => {
    dialog.showErrorBox(`${APP_NAME} could not start`, e instanceof Error ? e.message : String(e));
    app.exit(1);
  });
}
