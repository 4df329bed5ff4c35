// Saved remote-instance connections, through the host's /desktop/connections routes. The token goes in once,
// when a connection is added; the host keeps it in the OS keychain and never sends it back. The list is shared
// state, so the connections panel and the sync panel always show the same instances.
import { hostApi, json } from '../../lib/api';
import type { Connection } from '../../../../hub-core/desktop-types';

export type InstanceConnection = Connection;

export const instances: { list: InstanceConnection[] } = $state({ list: [] });

export async function refreshInstances(): Promise<InstanceConnection[]> {
  const all = await hostApi<InstanceConnection[]>('/connections');
  instances.list = all.filter((c) => c.kind === 'instance');
  return instances.list;
}

export async function addInstance(label: string, url: string, token: string, allowInsecure = false, session = false): Promise<InstanceConnection> {
  const saved = await hostApi<InstanceConnection>('/connections', json('POST', { kind: 'instance', label, url, token, ...(allowInsecure ? { allowInsecure } : {}), ...(session ? { session } : {}) }));
  await refreshInstances();
  return saved;
}

/** Links an instance to a portal subscription, so its pipes get that subscription's alert badges; null unlinks. */
export async function linkInstance(id: string, to: { portal: string; subscription: string } | null): Promise<void> {
  await hostApi<InstanceConnection>(`/connections/${encodeURIComponent(id)}`, json('PATCH', to ?? { portal: null, subscription: null }));
  await refreshInstances();
}

export async function removeInstance(id: string): Promise<void> {
  await hostApi<void>(`/connections/${encodeURIComponent(id)}`, { method: 'DELETE' });
  await refreshInstances();
}

/** Replaces the stored token after the host has checked it against the instance. */
export function replaceToken(id: string, token: string): Promise<void> {
  return hostApi<void>(`/remote/${encodeURIComponent(id)}/token`, json('PUT', { token }));
}

// The portal panel stores API tokens as instance connections; it announces every change with this event.
window.addEventListener('datahub:connections-changed', () => {
  refreshInstances().catch(() => undefined);
});
