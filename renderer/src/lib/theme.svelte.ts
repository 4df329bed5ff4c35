// Light, dark, or the system's colour scheme (the default), remembered in localStorage. The choice sets
// `data-theme` on the root element (app.css picks the colours from it) and tells the editor and the charts.
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'datahub.theme';
export const THEME_EVENT = 'datahub-theme';

function read(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export const theme: { choice: ThemeChoice } = $state({ choice: read() });
const media = window.matchMedia('(prefers-color-scheme: dark)');

/** Whether the workbench shows dark colours now. */
export function isDark(): boolean {
  return theme.choice === 'dark' || (theme.choice === 'system' && media.matches);
}

function apply(): void {
  const root = document.documentElement;
  if (theme.choice === 'system') {
    delete root.dataset['theme'];
    root.style.colorScheme = '';
  } else {
    root.dataset['theme'] = theme.choice;
    root.style.colorScheme = theme.choice;
  }
  window.dispatchEvent(new Event(THEME_EVENT));
}

export function setTheme(choice: ThemeChoice): void {
  theme.choice = choice;
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    // Not remembered; it still applies now.
  }
  apply();
}

/** System → light → dark → system. */
export function nextTheme(): ThemeChoice {
  return theme.choice === 'system' ? 'light' : theme.choice === 'light' ? 'dark' : 'system';
}

media.addEventListener('change', () => window.dispatchEvent(new Event(THEME_EVENT)));
apply();
