// The configuration files of a workspace's node folder, read one way for everything that reads them: the workspace
// the hub loads (workspace.ts) and the comparison with a remote instance (main/remote/config-sync.ts).

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { asConfigEntity, configKind, type ConfigEntity } from './config-store.js';
import { HubError } from '../base/index.js';
import { parseConfigText } from '../base/index.js';
import { readTextFile } from '../base/index.js';

export interface WorkspaceProblem {
  file: string;
  msg: string;
}

export interface WorkspaceEntity {
  entity: ConfigEntity;
  /** The file it was read from, relative to the node folder. */
  file: string;
}

/** The config files of a node folder: the node metadata, then pipes/ and systems/ (`*.conf.json`, sorted). */
export function configFiles(nodeDir: string): string[] {
  const out: string[] = [];
  if (existsSync(join(nodeDir, 'node-metadata.conf.json'))) out.push('node-metadata.conf.json');
  for (const sub of ['pipes', 'systems']) {
    const dir = join(nodeDir, sub);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.conf.json')) out.push(`${sub}/${name}`);
  }
  return out;
}

/** Every configuration entity of a node folder's files (a file holds one or a list), and the problems of those that are not. */
export function readConfigFiles(nodeDir: string, files: readonly string[] = configFiles(nodeDir)): { entities: WorkspaceEntity[]; problems: WorkspaceProblem[]; unreadable: string[] } {
  const problems: WorkspaceProblem[] = [];
  const unreadable: string[] = [];
  const entities: WorkspaceEntity[] = [];
  const add = (file: string, value: unknown, i: number | undefined): void => {
    const where = i === undefined ? file : `${file}[${i}]`;
    try {
      const entity = asConfigEntity(value, where);
      configKind(entity);
      entities.push({ entity, file });
    } catch (err) {
      problems.push({ file, msg: err instanceof HubError ? `${err.message}${err.detail ? `: ${err.detail}` : ''}` : String(err) });
    }
  };
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = parseConfigText(readTextFile(join(nodeDir, file)));
    } catch (err) {
      problems.push({ file, msg: `not valid JSON: ${err instanceof Error ? err.message : String(err)}` });
      unreadable.push(file);
      continue;
    }
    if (Array.isArray(parsed)) parsed.forEach((v, i) => add(file, v, i));
    else add(file, parsed, undefined);
  }
  return { entities, problems, unreadable };
}
