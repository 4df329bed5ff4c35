import { zipSync, unzipSync, strToU8, strFromU8 } from 'fflate';
import type { ConfigEntity } from '../../hub-core/config-store.js';
import { configKind } from '../../hub-core/config-store.js';
import { badRequest } from '../../hub-core/errors.js';

/**
 * File name of a configuration entity in the project layout (pipes/<id>.conf.json, ...). Characters that file
 * systems refuse are percent-encoded (`:` is `%3A`, `%` itself `%25`): the encoding is one-to-one, so two ids
 * never share a file (replacing them all with `_` made "a:b" and "a_b" overwrite each other).
 */
export function configFileName(e: ConfigEntity): string {
  const kind = configKind(e);
  const safe = e._id.replace(/[/\\:*?"<>|%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  if (kind === 'metadata') return 'node-metadata.conf.json';
  return `${kind === 'pipe' ? 'pipes' : 'systems'}/${safe}.conf.json`;
}

export function configToZip(entities: readonly ConfigEntity[]): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const e of entities) files[configFileName(e)] = strToU8(JSON.stringify(e, null, 2) + '\n');
  return zipSync(files, { level: 6 });
}

/** Read every `*.conf.json` of a zip archive (one entity or an array per file). */
export function configFromZip(data: Uint8Array): unknown[] {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data);
  } catch (e) {
    throw badRequest('the body is not a valid zip archive', e instanceof Error ? e.message : String(e));
  }
  const out: unknown[] = [];
  for (const [name, bytes] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.endsWith('.conf.json')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(strFromU8(bytes));
    } catch (e) {
      throw badRequest(`${name} in the zip archive is not valid JSON`, e instanceof Error ? e.message : String(e));
    }
    if (Array.isArray(parsed)) out.push(...(parsed as unknown[]));
    else out.push(parsed);
  }
  return out;
}
