// Where the workbench is: one view plus the pipe/dataset/system opened in it, mirrored in the URL hash
// (#/pipes/<id>) so back/forward and reloads work. Every move asks the dirty guard first.
import { confirmNavigation } from './dirty-guard';

export type View = 'pipes' | 'datasets' | 'graph' | 'systems' | 'env' | 'secrets' | 'config' | 'tests' | 'remote' | 'registry' | 'settings';
export const VIEWS: readonly View[] = ['pipes', 'datasets', 'graph', 'systems', 'env', 'secrets', 'config', 'tests', 'remote', 'registry', 'settings'];

export interface NavState {
  view: View;
  /** The pipe, dataset or system open in the view, or null for the view's list. */
  item: string | null;
  /** A sub-page of the item (a pipe tab, say), or null. */
  tab: string | null;
}

export const nav: NavState = $state({ view: 'pipes', item: null, tab: null });

function hashOf(state: NavState): string {
  const parts: string[] = [state.view];
  if (state.item !== null) parts.push(encodeURIComponent(state.item));
  if (state.item !== null && state.tab !== null) parts.push(encodeURIComponent(state.tab));
  return `#/${parts.join('/')}`;
}

function parseHash(hash: string): NavState | null {
  const [view, item, tab] = hash.replace(/^#\/?/, '').split('/');
  if (!view || !(VIEWS as readonly string[]).includes(view)) return null;
  return { view: view as View, item: item ? decodeURIComponent(item) : null, tab: tab ? decodeURIComponent(tab) : null };
}

/** Navigate; returns false when the user chose to stay with unsaved edits. */
export function go(view: View, item: string | null = null, tab: string | null = null): boolean {
  if (view === nav.view && item === nav.item && tab === nav.tab) return true;
  if (!confirmNavigation()) return false;
  nav.view = view;
  nav.item = item;
  nav.tab = tab;
  const hash = hashOf(nav);
  if (location.hash !== hash) history.pushState(null, '', hash);
  return true;
}

/** Switch tab inside the current item without a dirty check (tabs keep their own state). */
export function setTab(tab: string | null): void {
  nav.tab = tab;
  history.replaceState(null, '', hashOf(nav));
}

const initial = parseHash(location.hash);
if (initial) Object.assign(nav, initial);

window.addEventListener('popstate', () => {
  const next = parseHash(location.hash) ?? { view: 'pipes', item: null, tab: null };
  if (!confirmNavigation()) {
    history.pushState(null, '', hashOf(nav));
    return;
  }
  Object.assign(nav, next);
});
