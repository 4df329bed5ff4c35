// The recently opened workspace folders, most recent first, kept as JSON in the app's userData folder.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

export const MAX_RECENT = 10;

export interface RecentWorkspace {
  path: string;
  name: string;
}

export class RecentWorkspaces {
  constructor(private readonly file: string) {}

  /** Folders that still exist; a damaged file counts as an empty list. */
  list(): RecentWorkspace[] {
    let paths: unknown;
    try {
      paths = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      return [];
    }
    if (!Array.isArray(paths)) return [];
    return paths
      .filter((p): p is string => typeof p === 'string' && existsSync(p))
      .slice(0, MAX_RECENT)
      .map((p) => ({ path: p, name: basename(p) }));
  }

  has(path: string): boolean {
    const wanted = resolve(path);
    return this.list().some((r) => r.path === wanted);
  }

  add(path: string): RecentWorkspace[] {
    const added = resolve(path);
    this.write([added, ...this.list().map((r) => r.path).filter((p) => p !== added)].slice(0, MAX_RECENT));
    return this.list();
  }

  clear(): void {
    this.write([]);
  }

  private write(paths: string[]): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, JSON.stringify(paths, null, 2) + '\n');
    renameSync(temp, this.file);
  }
}
