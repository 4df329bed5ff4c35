// The text each configuration entity has in a workspace's files, for writing it elsewhere in the user's own layout
// (the export zip; a renamed or duplicated pipe's new file). Only files that hold one entity count: a file holding a
// list lays its entities out inside the list.
import { join } from 'node:path';
import { configKind, type ConfigEntity } from './config-store.js';
import { updatedFileText } from './json-format.js';
import { isJsonObject } from '../base/index.js';
import { readConfigFiles } from './workspace-files.js';
import { readTextFile } from '../base/index.js';

const keyOf = (e: { _id: string; type?: unknown }): string => `${configKind(e)}:${e._id}`;

/** The text of each single-entity file of a node folder, by "<kind>:<id>". */
export function workspaceFileTexts(nodeDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const byFile = new Map<string, ConfigEntity[]>();
  for (const r of readConfigFiles(nodeDir).entities) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r.entity]);
  for (const [file, entities] of byFile) {
    if (entities.length !== 1) continue;
    let text: string;
    try {
      text = readTextFile(join(nodeDir, file));
      if (!isJsonObject(JSON.parse(text))) continue;
    } catch {
      continue;
    }
    out.set(keyOf(entities[0]!), text);
  }
  return out;
}

/**
 * The text a file for `entity` should hold, given the workspace's texts: its own file's text, updated (byte for byte
 * the same when the file holds it already); else the layout of the service's tooling.
 */
export function fileTextKeepingLayout(texts: ReadonlyMap<string, string>, entity: ConfigEntity): string {
  return updatedFileText(texts.get(keyOf(entity)), entity);
}
