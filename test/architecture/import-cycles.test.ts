// No import circle in hub-core, main or the renderer (type-only imports count: they tie modules together just the same).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import ts from 'typescript';
import { REPO } from '../helpers/hub-process.js';

const SOURCE = /\.(ts|cts|svelte)$/;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** A Svelte component's scripts, or a TypeScript file's text. */
function scriptOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.svelte')) return text;
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

/** The file a relative specifier names: `.js` for `.ts`, `.cjs` for `.cts`, or no extension (the renderer's style). */
function resolveImport(from: string, spec: string, known: Set<string>): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = spec.endsWith('.js')
    ? [base.slice(0, -3) + '.ts', base]
    : spec.endsWith('.cjs')
      ? [base.slice(0, -4) + '.cts']
      : [base, base + '.ts', base + '.svelte.ts', join(base, 'index.ts')];
  return candidates.find((c) => known.has(c));
}

/** Relative imports and re-exports of each file, resolved to the files they name. */
function importGraph(...roots: string[]): Map<string, string[]> {
  const files = roots.flatMap(tsFiles);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, scriptOf(file), ts.ScriptTarget.Latest);
    const deps: string[] = [];
    for (const s of source.statements) {
      if ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier)) {
        const spec = s.moduleSpecifier.text;
        if (!spec.startsWith('.')) continue;
        const target = resolveImport(file, spec, known);
        if (target) deps.push(target);
      }
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The groups of files that import each other in a circle (strongly connected components of more than one file). */
function importCircles(root: string, dirs: string[] = [root]): string[][] {
  const graph = importGraph(...dirs);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(relative(root, w));
      } while (w !== v);
      if (group.length > 1) circles.push(group.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

test('hub-core, main and the renderer have no import circle, across the layers too', () => {
  assert.deepEqual(importCircles(REPO, [join(REPO, 'hub-core'), join(REPO, 'main'), join(REPO, 'renderer', 'src')]), []);
});

test('the check finds a circle, type-only imports included', () => {
  const dir = mkdtempSync(join(tmpdir(), 'circles-'));
  try {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './sub/b.js';\nexport const a = b;\n");
    writeFileSync(join(dir, 'sub', 'b.ts'), "import type { C } from '../c.js';\nexport const b: C = 1;\n");
    writeFileSync(join(dir, 'c.ts'), "export type { A } from './a.js';\nexport type C = number;\n");
    writeFileSync(join(dir, 'd.ts'), "import { a } from './a.js';\nexport const d = a;\n");
    writeFileSync(join(dir, 'e.svelte'), "<script lang=\"ts\">\n  import { f } from './f';\n</script>\n<p>{f}</p>\n");
    writeFileSync(join(dir, 'f.ts'), "import E from './e.svelte';\nexport const f = String(E);\n");
    assert.deepEqual(importCircles(dir), [['a.ts', 'c.ts', join('sub', 'b.ts')], ['e.svelte', 'f.ts']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
