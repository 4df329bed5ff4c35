import { zipSync, unzipSync, strToU8, strFromU8 } from 'fflate';
import type { ConfigEntity } from '../../hub-core/config/index.js';
import { configFileName } from '../../hub-core/config/index.js';
import { fileTextKeepingLayout, workspaceFileTexts } from '../../hub-core/config/index.js';
import { workspaceNodeDir } from '../../hub-core/project/index.js';
import { badRequest } from '../../hub-core/base/index.js';
import { parseConfigText } from '../../hub-core/base/index.js';

/**
 * One `.conf.json` file per entity. With the open workspace folder, an entity whose file is there keeps that file's
 * text (the same bytes when unchanged); the others get the layout of the service's tooling.
 */
export function configToZip(entities: readonly ConfigEntity[], workspaceDir?: string): Uint8Array {
  const texts = workspaceDir === undefined ? new Map<string, string>() : workspaceFileTexts(workspaceNodeDir(workspaceDir));
  const files: Record<string, Uint8Array> = {};
  for (const e of entities) files[configFileName(e)] = strToU8(fileTextKeepingLayout(texts, e));
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
      parsed = parseConfigText(strFromU8(bytes));
    } catch (e) {
      throw badRequest(`${name} in the zip archive is not valid JSON`, e instanceof Error ? e.message : String(e));
    }
    if (Array.isArray(parsed)) out.push(...(parsed as unknown[]));
    else out.push(parsed);
  }
  return out;
}
