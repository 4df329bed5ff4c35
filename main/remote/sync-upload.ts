// Upload of chosen local changes to a remote instance, guarded against lost updates: each chosen item names the
// versions (hashes) of both sides the user compared. The host compares again right before writing; if anything the
// user chose has changed on either side since, or a deletion lacks its confirmation, the whole batch is refused and
// nothing is written, so the user decides again with the full, current picture. The writes themselves are one
// instance call per item (the instance API has no multi-entity transaction), and each result is reported.
import { HubError, badRequest, conflict } from '../../hub-core/base/index.js';
import { configKind } from '../../hub-core/config/index.js';
import { type DiffItem, type InstanceClient, type LocalFolder, type SyncKind, diff, key, messageOf, type RemoteSnapshot } from './config-sync.js';

export interface UploadChoice {
  kind: SyncKind;
  id: string;
  /** The hash of the remote version the user compared; null when the remote did not have it. */
  remoteHash: string | null;
  /** The hash of the local version the user compared; null when the folder did not have it. */
  localHash: string | null;
  /** Required for an item whose upload deletes something on the remote. */
  confirmDelete?: boolean;
}

export interface UploadResult {
  kind: SyncKind;
  id: string;
  action: 'create' | 'update' | 'delete' | 'none';
  ok: boolean;
  status: number;
  message: string;
}

const describe = (i: { kind: SyncKind; id: string }): string => (i.kind === 'env' ? 'the env variables' : i.kind === 'metadata' ? 'the node metadata' : `${i.kind} ${i.id}`);

function list(items: { kind: SyncKind; id: string }[]): string {
  const names = items.map(describe);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
}

/** True when uploading the item removes something on the remote. */
export function deletesOnRemote(item: DiffItem): boolean {
  return item.status === 'removed' || (item.kind === 'env' && item.status === 'changed' && (item.removes ?? []).length > 0);
}

/** Checks every choice against a fresh comparison; throws (writing nothing) when any is stale or unconfirmed. */
export function checkChoices(items: DiffItem[], chosen: UploadChoice[]): void {
  const byKey = new Map(items.map((i) => [key(i.kind, i.id), i]));
  const remoteChanged: UploadChoice[] = [];
  const localChanged: UploadChoice[] = [];
  const unconfirmed: UploadChoice[] = [];
  for (const c of chosen) {
    const now = byKey.get(key(c.kind, c.id));
    if ((now?.remoteHash ?? null) !== c.remoteHash) remoteChanged.push(c);
    else if ((now?.localHash ?? null) !== c.localHash) localChanged.push(c);
    else if (now && deletesOnRemote(now) && c.confirmDelete !== true) unconfirmed.push(c);
  }
  if (remoteChanged.length > 0) {
    throw conflict(
      `${list(remoteChanged)} changed on the remote since you compared; compare again`,
      'nothing was uploaded: someone changed the remote after your comparison, and uploading now would overwrite that change unseen',
    );
  }
  if (localChanged.length > 0) {
    throw conflict(`the local file of ${list(localChanged)} changed since you compared; compare again`, 'nothing was uploaded: what you saw is no longer what would be sent');
  }
  if (unconfirmed.length > 0) {
    throw badRequest(`uploading ${list(unconfirmed)} deletes on the remote and needs confirmation`, 'nothing was uploaded; confirm the deletion (confirmDelete: true) and upload again');
  }
}

async function run(call: Promise<{ status: number; body: unknown }>): Promise<{ ok: boolean; status: number; message: string | null }> {
  try {
    const r = await call;
    const ok = r.status >= 200 && r.status < 300;
    return { ok, status: r.status, message: ok ? null : messageOf(r.body) };
  } catch (e) {
    return { ok: false, status: e instanceof HubError ? e.status : 502, message: e instanceof HubError ? `${e.message}${e.detail ? `: ${e.detail}` : ''}` : String(e) };
  }
}

/** Env: set what differs in one call, then delete what the local file no longer has. Secrets are never sent. */
async function uploadEnv(client: InstanceClient, local: Record<string, string>, remote: Record<string, string>): Promise<UploadResult> {
  const set = Object.fromEntries(Object.entries(local).filter(([k, v]) => remote[k] !== v));
  const remove = Object.keys(remote).filter((k) => !(k in local));
  const base = { kind: 'env' as const, id: 'env', action: 'update' as const };
  if (Object.keys(set).length > 0) {
    const r = await run(client.call('POST', '/env', set));
    if (!r.ok) return { ...base, ok: false, status: r.status, message: r.message ?? 'failed' };
  }
  for (const name of remove) {
    const r = await run(client.call('DELETE', `/env/${encodeURIComponent(name)}`));
    if (!r.ok) return { ...base, ok: false, status: r.status, message: `deleting ${name}: ${r.message ?? 'failed'}` };
  }
  return { ...base, ok: true, status: 200, message: `set ${Object.keys(set).length}, deleted ${remove.length} variable(s) on the remote` };
}

/**
 * Compares the folder with a fresh snapshot of the remote, checks the choices (see checkChoices), then sends each
 * chosen change and reports every result.
 */
export async function upload(client: InstanceClient, local: LocalFolder, remote: RemoteSnapshot, chosen: UploadChoice[]): Promise<UploadResult[]> {
  const items = diff(local, remote);
  checkChoices(items, chosen);
  const byKey = new Map(items.map((i) => [key(i.kind, i.id), i]));
  const results: UploadResult[] = [];
  for (const { kind, id } of chosen) {
    const item = byKey.get(key(kind, id));
    if (!item || item.status === 'same') {
      results.push({ kind, id, action: 'none', ok: true, status: 200, message: item ? 'already the same on the remote' : 'neither the folder nor the remote has it' });
      continue;
    }
    if (kind === 'env') {
      results.push(await uploadEnv(client, local.env ?? {}, remote.env));
      continue;
    }
    const entity = local.entities.get(key(kind, id))?.entity;
    const base = `/${kind}s/${encodeURIComponent(id)}`;
    let action: UploadResult['action'];
    let call: Promise<{ status: number; body: unknown }>;
    if (item.status === 'removed') {
      action = 'delete';
      call = client.call('DELETE', kind === 'metadata' ? '/metadata' : base);
    } else if (kind === 'metadata') {
      action = 'update';
      call = client.call('PUT', '/metadata', entity);
    } else if (item.status === 'added') {
      action = 'create';
      call = client.call('POST', `/${configKind(entity!)}s`, [entity]);
    } else {
      action = 'update';
      call = client.call('PUT', `${base}/config`, entity);
    }
    const r = await run(call);
    results.push({ kind, id, action, ok: r.ok, status: r.status, message: r.ok ? `${action}d on the remote` : (r.message ?? 'failed') });
  }
  return results;
}
