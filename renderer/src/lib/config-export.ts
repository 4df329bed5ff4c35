// Download the configuration of a config group as JSON or as a zip of *.conf.json files (the workspace layout).
// Shared by the Node config view and the command palette.
import { HubRequestError } from './api';
import { apiBase } from './instance.svelte';
import { desktopAuthorization } from './desktop-bridge';

export type ExportKind = 'json' | 'zip';

/** The file name a download of `group` gets. */
export function exportFileName(group: string, kind: ExportKind): string {
  return `datahub-config${group === '' ? '' : `-${group.replace(/[^\w.-]+/g, '_')}`}.${kind}`;
}

/** Fetch the configuration and hand it to the browser as a download; returns the file name. */
export async function downloadConfig(group: string, kind: ExportKind): Promise<string> {
  const path = group === '' ? '/config' : `/config/${encodeURIComponent(group)}`;
  const headers = new Headers({ accept: kind === 'zip' ? 'application/zip' : 'application/json' });
  const authorization = desktopAuthorization();
  if (authorization) headers.set('authorization', authorization);
  const res = await fetch(`${apiBase()}${path}`, { credentials: 'same-origin', headers });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string; detail?: string | null };
    throw new HubRequestError({ status: res.status, error: body.error ?? res.statusText, detail: body.detail ?? null });
  }
  const blob = kind === 'zip' ? await res.blob() : new Blob([JSON.stringify(await res.json(), null, 2) + '\n'], { type: 'application/json' });
  const name = exportFileName(group, kind);
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}
