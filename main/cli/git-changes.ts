// The files of a project that differ from a git commit, for `datahub test --changed <ref>`: what `git diff --name-only
// <ref>` lists (committed since, staged or not, deleted too) plus the untracked files git does not ignore, relative to
// the node folder; and what the changed configuration files held at that commit, so that only the components that
// really changed count (hub-core/project/affected-tests.ts).

import { execFileSync } from 'node:child_process';
import type { ConfigEntity } from '../../hub-core/config/index.js';
import { configEntitiesOfText } from '../../hub-core/project/index.js';

export class GitError extends Error {}

function git(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
}

function stderrOf(e: unknown): string {
  const err = e as { stderr?: string | Buffer; message?: string };
  const text = typeof err.stderr === 'string' ? err.stderr : err.stderr?.toString('utf8') ?? '';
  return (text.trim() || err.message || String(e)).split('\n')[0]!;
}

/** The files under `nodeDir` that differ from `ref`, relative to it ("/"-separated), and the config files' components at `ref`. */
export function changedSince(nodeDir: string, ref: string, isConfigFile: (file: string) => boolean): { files: string[]; before: Map<string, ConfigEntity[]>; commit: string } {
  if (ref === '' || ref.startsWith('-')) throw new GitError(`--changed needs a git commit (a branch, tag or hash), not ${JSON.stringify(ref)}`);
  try {
    if (git(nodeDir, ['rev-parse', '--is-inside-work-tree']).trim() !== 'true') throw new Error('not a work tree');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new GitError('--changed needs git, which is not on the PATH');
    throw new GitError(`${nodeDir} is not in a git repository, so there is nothing to compare with ${JSON.stringify(ref)} (${stderrOf(e)})`);
  }
  let commit: string;
  try {
    commit = git(nodeDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]).trim();
  } catch {
    throw new GitError(`${JSON.stringify(ref)} is not a commit of the git repository at ${nodeDir}`);
  }
  const list = (args: readonly string[]): string[] => git(nodeDir, args).split('\0').filter((f) => f !== '');
  const files = [
    ...new Set([
      ...list(['diff', '--name-only', '--relative', '--no-renames', '-z', commit, '--']),
      ...list(['ls-files', '--others', '--exclude-standard', '-z', '--', '.']),
    ]),
  ].sort();
  const before = new Map<string, ConfigEntity[]>();
  for (const file of files.filter(isConfigFile)) {
    let text: string | undefined;
    try {
      text = git(nodeDir, ['show', `${commit}:./${file}`]);
    } catch {
      text = undefined; // not in that commit: a new file
    }
    before.set(file, text === undefined ? [] : configEntitiesOfText(text));
  }
  return { files, before, commit };
}
