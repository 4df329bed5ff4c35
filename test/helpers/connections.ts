// Teardown for tests whose hub stored remote connections: their tokens live in the real OS keychain, which outlives
// the hub's data folder, so they are removed before the folder goes.
import { ConnectionStore } from '../../main/remote/connections.js';
import { OsKeychain } from '../../main/secrets/keychain.js';
import { removeDir, type HubProcess } from './hub-process.js';

/** Remove every connection `hub` lists, its keychain entry with it. */
export async function forgetConnections(hub: HubProcess | undefined): Promise<void> {
  if (!hub) return;
  const store = new ConnectionStore(hub.dataDir, new OsKeychain());
  for (const c of store.list()) await store.remove(c.id).catch(() => false);
}

/** Stop the hubs that started and remove their data folders. */
export async function stopAndRemove(...hubs: (HubProcess | undefined)[]): Promise<void> {
  await Promise.all(hubs.map((h) => h?.stop()));
  for (const h of hubs) if (h) removeDir(h.dataDir);
}
