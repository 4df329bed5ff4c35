import type { ConfigEntity, ConfigKind } from './config-store.js';
import { configKind } from './config-store.js';

/**
 * Where a configuration entity lives in a project folder (node/pipes/<id>.conf.json, ...). Characters that file
 * systems refuse are percent-encoded (`:` is `%3A`, `%` itself `%25`): one-to-one, so two ids never share a file.
 */
export function configFileName(e: { _id: string; type: string }): string {
  return configFilePath(configKind(e), e._id);
}

export function configFilePath(kind: ConfigKind, id: string): string {
  if (kind === 'metadata') return 'node-metadata.conf.json';
  const safe = id.replace(/[/\\:*?"<>|%]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `${kind === 'pipe' ? 'pipes' : 'systems'}/${safe}.conf.json`;
}

/** The stable text a configuration file is written with: two-space indent, a final newline. */
export function configFileText(e: ConfigEntity): string {
  return JSON.stringify(e, null, 2) + '\n';
}
