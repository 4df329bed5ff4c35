// What a configuration entity's file holds (GET /desktop/config-file): the editor shows that text, so what is saved
// is what git will see. A remote instance has no files: its text stays two-space JSON.
import { hostApi } from './api';
import { encode } from './format';
import { instance } from './instance.svelte';

const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : typeof v === 'object' && v !== null
      ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(v);

/** The file text of a stored pipe or system when it holds `config`, else null (remote, or no such route). */
export async function fileText(kind: string, id: string, config: unknown): Promise<string | null> {
  if (instance.connection !== null || (kind !== 'pipe' && kind !== 'system')) return null;
  try {
    const r = await hostApi<{ file: string | null; text: string }>(`/config-file?kind=${kind}&id=${encode(id)}`);
    return canonical(JSON.parse(r.text)) === canonical(config) ? r.text : null;
  } catch {
    return null;
  }
}
