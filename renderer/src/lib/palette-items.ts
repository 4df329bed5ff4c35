// Everything the command palette can reach, built from what the hub listed: views, pipes (and each of their tabs),
// the pump operations a pipe supports, datasets, systems, config histories and workbench actions. The palette
// itself only matches and runs; the actions' effects are handed in by the app.
import type { DatasetInfo, PipeInfo } from './types';
import type { View } from './nav.svelte';
import { VIEW_LIST, shortcutText } from './views';
import { PUMP_OPERATIONS, type PumpOperation } from '../components/pipe/pipe-pump';

export interface PaletteItem {
  /** Stable across reloads: remembered as a recent item. */
  key: string;
  /** A word in front of the label (view, pipe, pump, dataset, …); matched too. */
  kind: string;
  label: string;
  /** Shown at the right in small print (a shortcut, a hint); not matched. */
  hint?: string;
  run: () => void;
}

export const PIPE_TABS: readonly [tab: string, label: string][] = [
  ['config', 'Config'],
  ['preview', 'Preview'],
  ['output', 'Output'],
  ['log', 'Execution log'],
  ['graph', 'Graph'],
];

export interface PaletteActions {
  go(view: View, item?: string | null, tab?: string | null): void;
  pump(pipe: string, operation: PumpOperation): void;
  newPipe(): void;
  /** Open the Registry view with its "Publish a dataset" dialog. */
  publishDataset(): void;
  /** Open the pipe's page and ask there whether to delete it. */
  deletePipe(pipe: string): void;
  /** Open the pipe's page with its Rename or Duplicate dialog. */
  renamePipe(pipe: string): void;
  duplicatePipe(pipe: string): void;
  newSystem(): void;
  runTests(): void;
  exportConfig(kind: 'json' | 'zip'): void;
  importConfig(): void;
  reload(): void;
  toggleSidebar(): void;
  showShortcuts(): void;
  /** Which pipes read a dataset, call a function, use a system, secret or variable. */
  searchConfigs(): void;
  /** Present only where this hub can open another folder (the local hub). */
  openFolder?: () => void;
  /** Present only while a remote instance is shown. */
  backToLocal?: () => void;
}

/** Operations that need a value typed on the pipe page (update-last-seen) are not offered here. */
const PALETTE_OPERATIONS = PUMP_OPERATIONS.filter((o) => o.param === undefined);

export function paletteItems(
  data: { pipes: readonly PipeInfo[]; datasets: readonly DatasetInfo[]; systems: readonly string[] },
  actions: PaletteActions,
): PaletteItem[] {
  const items: PaletteItem[] = VIEW_LIST.map(({ view, label }, i) => ({
    key: `view:${view}`,
    kind: 'view',
    label,
    ...(i < 9 ? { hint: shortcutText(String(i + 1)) } : {}),
    run: () => actions.go(view),
  }));

  const action = (key: string, label: string, run: () => void, hint?: string): void => {
    items.push({ key: `action:${key}`, kind: 'action', label, run, ...(hint ? { hint } : {}) });
  };
  action('new-pipe', 'New pipe', actions.newPipe);
  action('search-configs', 'Search configs… (datasets, functions, systems, secrets, variables)', actions.searchConfigs, shortcutText('Shift+F'));
  action('new-system', 'New system', actions.newSystem);
  action('publish-dataset', 'Publish a dataset…', actions.publishDataset);
  action('run-tests', 'Run workspace tests', actions.runTests);
  action('export-json', 'Export config (JSON)', () => actions.exportConfig('json'));
  action('export-zip', 'Export config (zip)', () => actions.exportConfig('zip'));
  action('import', 'Import config…', actions.importConfig);
  action('reload', 'Reload', actions.reload);
  action('sidebar', 'Toggle sidebar', actions.toggleSidebar, shortcutText('B'));
  action('shortcuts', 'Keyboard shortcuts', actions.showShortcuts, '?');
  if (actions.openFolder) action('open-folder', 'Open workspace folder…', actions.openFolder);
  if (actions.backToLocal) action('local', 'Back to this computer', actions.backToLocal);

  for (const p of data.pipes) {
    const id = p._id;
    items.push({ key: `pipe:${id}`, kind: 'pipe', label: id, run: () => actions.go('pipes', id) });
    for (const [tab, label] of PIPE_TABS) {
      items.push({ key: `pipe:${id}:${tab}`, kind: 'pipe', label: `${id} › ${label}`, run: () => actions.go('pipes', id, tab) });
    }
    const supported = p.runtime['supported-operations'];
    for (const o of PALETTE_OPERATIONS) {
      if (!supported.includes(o.op)) continue;
      items.push({ key: `pump:${id}:${o.op}`, kind: 'pump', label: `${o.op} ${id}`, hint: o.help, run: () => actions.pump(id, o) });
    }
    items.push({ key: `history:${id}`, kind: 'action', label: `Config history of ${id}`, run: () => actions.go('config', id) });
    items.push({ key: `rename-pipe:${id}`, kind: 'action', label: `Rename pipe ${id}…`, run: () => actions.renamePipe(id) });
    items.push({ key: `duplicate-pipe:${id}`, kind: 'action', label: `Duplicate pipe ${id}…`, run: () => actions.duplicatePipe(id) });
    items.push({ key: `delete-pipe:${id}`, kind: 'action', label: `Delete pipe ${id}…`, run: () => actions.deletePipe(id) });
  }
  for (const d of data.datasets) {
    items.push({ key: `dataset:${d._id}`, kind: 'dataset', label: d._id, run: () => actions.go('datasets', d._id) });
  }
  for (const id of data.systems) {
    items.push({ key: `system:${id}`, kind: 'system', label: id, run: () => actions.go('systems', id) });
    items.push({ key: `history:${id}`, kind: 'action', label: `Config history of ${id}`, run: () => actions.go('config', id) });
  }
  // A pipe and a system may share an id; their histories are one (the hub keeps history per id).
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.key) && seen.add(i.key));
}
