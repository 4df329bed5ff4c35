// Text files that people edit: Windows editors start UTF-8 files with a byte order mark, and the service's own
// command-line client reads such files (Python's utf-8-sig), so every JSON file the hub or the CLI reads is read
// without it.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

export const BOM = '\uFEFF';

/** The text without a leading byte order mark. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A UTF-8 text file's content, without a leading byte order mark. */
export function readTextFile(path: string): string {
  return withoutBom(readFileSync(path, 'utf8'));
}

/** Whether the file exists and starts with a UTF-8 byte order mark. */
export function startsWithBom(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(3);
    return readSync(fd, head, 0, 3, 0) === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  } finally {
    closeSync(fd);
  }
}
