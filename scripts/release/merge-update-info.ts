// The release workflow builds macOS x64 and arm64 in separate jobs, and each writes a latest-mac.yml that lists
// only its own CPU's files. electron-updater on a Mac picks the zip whose name says arm64 (or the one that does
// not), so the release needs one latest-mac.yml listing both: `node scripts/release/merge-update-info.ts a.yml b.yml`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

export interface UpdateFile {
  url: string;
  sha512: string;
  size?: number;
  [key: string]: unknown;
}
export interface UpdateInfo {
  version: string;
  files: UpdateFile[];
  path?: string;
  sha512?: string;
  releaseDate?: string;
  [key: string]: unknown;
}

function asUpdateInfo(text: string, name: string): UpdateInfo {
  const doc: unknown = parse(text);
  if (!doc || typeof doc !== 'object') throw new Error(`${name} is not update metadata`);
  const info = doc as Partial<UpdateInfo>;
  if (typeof info.version !== 'string' || !Array.isArray(info.files) || info.files.length === 0) throw new Error(`${name} has no version or no files`);
  for (const f of info.files) if (typeof f?.url !== 'string' || typeof f.sha512 !== 'string') throw new Error(`${name} lists a file without url or sha512`);
  return info as UpdateInfo;
}

/** One metadata document listing the files of all of them; they must describe the same version. */
export function mergeUpdateInfo(texts: Array<{ name: string; text: string }>): string {
  const infos = texts.map(({ name, text }) => asUpdateInfo(text, name));
  const [first, ...rest] = infos;
  if (!first) throw new Error('nothing to merge');
  for (const [i, info] of rest.entries()) {
    if (info.version !== first.version) throw new Error(`${texts[i + 1]?.name} is version ${info.version}, ${texts[0]?.name} is ${first.version}`);
  }
  const files = new Map<string, UpdateFile>();
  for (const info of infos) {
    for (const f of info.files) {
      const seen = files.get(f.url);
      if (seen && seen.sha512 !== f.sha512) throw new Error(`${f.url} is listed twice with different checksums`);
      files.set(f.url, f);
    }
  }
  const releaseDate = infos.map((i) => i.releaseDate).filter((d): d is string => typeof d === 'string').sort().at(-1);
  // path/sha512 are the legacy single-file fields of electron-updater 1.x; they keep naming the first file.
  return stringify({ ...first, files: [...files.values()], ...(releaseDate ? { releaseDate } : {}) }, { lineWidth: 0 });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const paths = process.argv.slice(2);
  if (paths.length < 2) {
    process.stderr.write('usage: node scripts/release/merge-update-info.ts <latest-mac.yml> <latest-mac.yml> ...\n');
    process.exit(2);
  }
  process.stdout.write(mergeUpdateInfo(paths.map((name) => ({ name, text: readFileSync(name, 'utf8') }))));
}
