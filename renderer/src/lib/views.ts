// The workbench's views in sidebar order. Ctrl/Cmd+<n> opens the n-th of the first nine, in the browser and in the
// desktop app's Go menu alike (main/electron/menu.ts lists them in the same order); later ones have no shortcut.
import type { View } from './nav.svelte';

export interface ViewInfo {
  view: View;
  label: string;
}

export const VIEW_LIST: readonly ViewInfo[] = [
  { view: 'pipes', label: 'Pipes' },
  { view: 'datasets', label: 'Datasets' },
  { view: 'graph', label: 'Flow graph' },
  { view: 'systems', label: 'Systems' },
  { view: 'env', label: 'Environment' },
  { view: 'secrets', label: 'Secrets' },
  { view: 'config', label: 'Node config' },
  { view: 'tests', label: 'Tests' },
  { view: 'remote', label: 'Remote' },
  { view: 'registry', label: 'Registry' },
  { view: 'settings', label: 'Settings' },
];

/** True on macOS, where shortcuts use ⌘ rather than Ctrl. */
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** A shortcut for display: "Ctrl+K" on Linux and Windows, "⌘K" on macOS. */
export function shortcutText(key: string): string {
  return isMac ? `⌘${key}` : `Ctrl+${key}`;
}
