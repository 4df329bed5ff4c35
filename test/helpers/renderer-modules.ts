// Renderer modules run in Node: the build sends renderer files through Vite only, so the few plain-TS ones a test or
// bench needs (no DOM, no Svelte) are transpiled here, one file each, into a folder under out/ (so that their
// package imports, such as @dagrejs/dagre, resolve from the repository's node_modules), their relative imports pointed
// at the transpiled files.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { REPO } from './hub-process.js';

/**
 * Transpile `names` (files of renderer/src/lib without `.ts`) and return the folder and an importer. `root` (default:
 * this checkout) reads them from another worktree, a bench's "before"; they still resolve packages from this one.
 */
export function transpileRendererLib(names: readonly string[], root = REPO): { dir: string; load: <T>(name: string) => Promise<T> } {
  const dir = mkdtempSync(join(REPO, 'out', 'renderer-lib-'));
  for (const name of names) {
    const source = readFileSync(join(root, 'renderer', 'src', 'lib', `${name}.ts`), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } }).outputText;
    writeFileSync(join(dir, `${name}.mjs`), js.replace(/from '\.\/([\w-]+)'/g, "from './$1.mjs'"));
  }
  return { dir, load: async <T>(name: string) => (await import(pathToFileURL(join(dir, `${name}.mjs`)).href)) as T };
}
