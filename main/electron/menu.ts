// The native menu: the usual roles and shortcuts, plus workspace commands and views of the workbench.
import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { MenuCommand, RecentWorkspaceInfo, WorkbenchView } from './channels.js';

export interface MenuActions {
  openWorkspace(): void;
  openRecent(path: string): void;
  clearRecent(): void;
  command(command: MenuCommand): void;
  openApiReference(): void;
  back(): void;
  openDataFolder(): void;
  checkForUpdates(): void;
  setAutomaticUpdates(enabled: boolean): void;
}

const VIEW_ITEMS: { view: WorkbenchView; label: string }[] = [
  { view: 'pipes', label: 'Pipes' },
  { view: 'datasets', label: 'Datasets' },
  { view: 'graph', label: 'Graph' },
  { view: 'systems', label: 'Systems' },
  { view: 'env', label: 'Environment' },
  { view: 'secrets', label: 'Secrets' },
  { view: 'config', label: 'Node config' },
  { view: 'tests', label: 'Tests' },
  { view: 'remote', label: 'Remote' },
  { view: 'registry', label: 'Registry' },
  { view: 'settings', label: 'Settings' },
];

export interface MenuOptions {
  /** Offer View → Toggle Developer Tools (a development tree only; the installed app has no DevTools). */
  devTools: boolean;
  /** Whether checks at start and every 12 hours are on (Help → Check for Updates Automatically). */
  automaticUpdates: boolean;
  /** False in a development tree and for a package-manager install: the checkbox is off and disabled. */
  updatesSupported: boolean;
}

export function buildMenu(appName: string, recent: readonly RecentWorkspaceInfo[], actions: MenuActions, options: MenuOptions): Menu {
  const mac = process.platform === 'darwin';
  const recentItems: MenuItemConstructorOptions[] = recent.length
    ? [
        ...recent.map((r): MenuItemConstructorOptions => ({ label: `${r.name} — ${r.path}`, click: () => actions.openRecent(r.path) })),
        { type: 'separator' },
        { label: 'Clear Recent', click: () => actions.clearRecent() },
      ]
    : [{ label: 'No recent workspaces', enabled: false }];

  const template: MenuItemConstructorOptions[] = [
    ...(mac ? [{ label: appName, role: 'appMenu' } as MenuItemConstructorOptions] : []),
    {
      label: '&File',
      submenu: [
        { label: 'Open Workspace Folder…', accelerator: 'CmdOrCtrl+O', click: () => actions.openWorkspace() },
        { label: 'Open Recent', submenu: recentItems },
        { type: 'separator' },
        { label: 'Show Data Folder', click: () => actions.openDataFolder() },
        ...(mac ? [] : [{ type: 'separator' } as MenuItemConstructorOptions, { role: 'quit' } as MenuItemConstructorOptions]),
      ],
    },
    { label: '&Edit', role: 'editMenu' },
    {
      label: '&Go',
      submenu: [
        ...VIEW_ITEMS.map(({ view, label }, i): MenuItemConstructorOptions => ({
          label,
          // Nine digits: the tenth view has no shortcut (the sidebar shows none either).
          ...(i < 9 ? { accelerator: `CmdOrCtrl+${i + 1}` } : {}),
          click: () => actions.command({ kind: 'navigate', view }),
        })),
        { type: 'separator' },
        { label: 'Back', accelerator: mac ? 'Cmd+[' : 'Alt+Left', click: () => actions.back() },
      ],
    },
    {
      label: '&View',
      submenu: [
        { role: 'reload' },
        { role: 'forceReload' },
        ...(options.devTools ? [{ role: 'toggleDevTools' } as MenuItemConstructorOptions] : []),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { label: '&Window', role: 'windowMenu' },
    {
      label: '&Help',
      role: 'help',
      submenu: [
        { label: 'Hub API Reference', click: () => actions.openApiReference() },
        { type: 'separator' },
        { label: 'Check for Updates…', click: () => actions.checkForUpdates() },
        {
          label: 'Check for Updates Automatically',
          type: 'checkbox',
          checked: options.updatesSupported && options.automaticUpdates,
          enabled: options.updatesSupported,
          click: (item) => actions.setAutomaticUpdates(item.checked),
        },
        ...(mac ? [] : [{ role: 'about' } as MenuItemConstructorOptions]),
      ],
    },
  ];
  return Menu.buildFromTemplate(template);
}
