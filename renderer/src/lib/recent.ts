// What the command palette ran last, newest first, remembered per browser profile so it survives reloads.
const KEY = 'datahub.palette.recent';
const MAX = 20;

export function recentKeys(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberRecent(key: string): void {
  const keys = [key, ...recentKeys().filter((k) => k !== key)].slice(0, MAX);
  try {
    localStorage.setItem(KEY, JSON.stringify(keys));
  } catch {
    // Storage may be full or switched off; the palette still works without recents.
  }
}
