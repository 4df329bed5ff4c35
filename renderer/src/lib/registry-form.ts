// The registry metadata a user types (publish and enrich forms) and what it becomes in a pipe's `metadata.registry`.

/** Licences the forms suggest (SPDX identifiers; the same list as hub-core/config/registry-schema.ts offers the editor). Free text is fine too. */
export const LICENSE_SUGGESTIONS = ['CC0-1.0', 'CC-BY-4.0', 'CC-BY-SA-4.0', 'ODbL-1.0', 'PDDL-1.0', 'NLOD-2.0', 'MIT', 'Apache-2.0', 'proprietary'];

export interface RegistryFields {
  name: string;
  description: string;
  /** Comma-separated, as typed. */
  keywords: string;
  license: string;
}

/** Keywords from "a, b ,c": trimmed, empty ones and repeats left out. */
export function keywordList(text: string): string[] {
  const out: string[] = [];
  for (const k of text.split(',').map((s) => s.trim())) if (k !== '' && !out.includes(k)) out.push(k);
  return out;
}

/** `metadata.registry` from the form: only the fields the user filled in. */
export function registryMetadata(f: RegistryFields): Record<string, unknown> {
  const keywords = keywordList(f.keywords);
  return {
    ...(f.name.trim() !== '' ? { name: f.name.trim() } : {}),
    ...(f.description.trim() !== '' ? { description: f.description.trim() } : {}),
    ...(keywords.length > 0 ? { keywords } : {}),
    ...(f.license.trim() !== '' ? { license: f.license.trim() } : {}),
  };
}
