// What a configuration entity's file holds (GET /desktop/config-file): the editor shows that text, so what is saved
// is what git will see. A remote instance or a hub without a workspace has no files: the text stays two-space JSON.
import { hostApi } from './api';
import { encode } from './format';
import { instance } from './instance.svelte';

const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : typeof v === 'object' && v !== null
      ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(v);

/** The file text of a stored pipe or system, else null (remote, no workspace, or no such route). */
export async function storedFileText(kind: string, id: string): Promise<string | null> {
  if (instance.connection !== null || (kind !== 'pipe' && kind !== 'system')) return null;
  try {
    // Without a workspace there is no file: the editor keeps two-space JSON.
    const r = await hostApi<{ file: string | null; text: string }>(`/config-file?kind=${kind}&id=${encode(id)}`);
    return r.file === null ? null : r.text;
  } catch {
    return null;
  }
}

/** `text` when it holds `config` (the file and the stored configuration agree), else null. */
export function ifHolds(text: string | null, config: unknown): string | null {
  if (text === null) return null;
  try {
    return canonical(JSON.parse(text)) === canonical(config) ? text : null;
  } catch {
    return null;
  }
}

/** The file text of a stored pipe or system when it holds `config`, else null. */
export async function fileText(kind: string, id: string, config: unknown): Promise<string | null> {
  return ifHolds(await storedFileText(kind, id), config);
}
