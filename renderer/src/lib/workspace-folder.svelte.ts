// The workspace folder the local hub has open (GET /desktop/workspace/folder), and the "Open workspace folder" dialog
// that the palette and Node config open (App.svelte shows it).
import { hostApi } from './api';

export const workspaceFolder: { dir: string | null; dialog: boolean } = $state({ dir: null, dialog: false });

export async function readWorkspaceFolder(): Promise<string | null> {
  try {
    workspaceFolder.dir = (await hostApi<{ dir: string | null }>('/workspace/folder')).dir;
  } catch {
    workspaceFolder.dir = null;
  }
  return workspaceFolder.dir;
}

export function openFolderDialog(): void {
  workspaceFolder.dialog = true;
}
