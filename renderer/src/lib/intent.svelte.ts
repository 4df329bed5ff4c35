// Something a view should do once it is shown, asked for from outside it (the command palette): "run the
// workspace tests", "open the import file picker", "start a new system". The view takes the intent when it mounts
// or when one arrives while it is shown.
import { go, type View } from './nav.svelte';

export type Intent = 'new-system' | 'run-tests' | 'import-config' | 'delete-pipe' | 'rename-pipe' | 'duplicate-pipe' | 'publish-dataset';

export const pendingIntent: { view: View | null; intent: Intent | null } = $state({ view: null, intent: null });

/** Open `view` and leave it `intent`; false when the user chose to stay (unsaved edits). */
export function requestIntent(view: View, intent: Intent, item: string | null = null): boolean {
  if (!go(view, item)) return false;
  pendingIntent.view = view;
  pendingIntent.intent = intent;
  return true;
}

/** The intent left for `view`, taken (so it happens once), or null. Read inside an effect to follow new ones. */
export function takeIntent(view: View): Intent | null {
  if (pendingIntent.view !== view || pendingIntent.intent === null) return null;
  const intent = pendingIntent.intent;
  pendingIntent.view = null;
  pendingIntent.intent = null;
  return intent;
}
