import type { ConfigEntity, ConfigKind } from './config-store.js';
import { configKind } from './config-store.js';
import { sesamLayout } from './json-format.js';

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

/** The text a new configuration file is written with: the layout of the service's tooling (`sesam format`). */
export function configFileText(e: ConfigEntity): string {
  return sesamLayout(e);
}
