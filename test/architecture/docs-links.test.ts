// The README and docs/ send a reader to files: every link and every code path they name must exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO } from '../helpers/hub-process.js';

const DOCS = join(REPO, 'docs');
const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort();
const files = [join(REPO, 'README.md'), ...pages.map((p) => join(DOCS, p))];
const text = (file: string): string => readFileSync(file, 'utf8');

/** Relative link targets of a Markdown text, without their #anchor. */
function links(md: string): string[] {
  const targets = [...md.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('#')).map((t) => t.replace(/#.*$/, ''));
}

/** Paths into the code a text names, e.g. hub-core/storage/dataset-log.ts; a placeholder (<name>, *) ends the path. */
function codePaths(md: string): string[] {
  const found = md.matchAll(/(?<![\w./-])(?:hub-core|main|renderer|test)\/[\w./<>*{}-]*/g);
  return [...found].map((m) => {
    const path = m[0];
    const cut = path.search(/[<*{]/);
    const fixed = cut === -1 ? path : path.slice(0, path.lastIndexOf('/', cut) + 1);
    return fixed.replace(/[.]+$/, '');
  });
}

test('every relative link in README.md and docs/*.md points at a file that exists', () => {
  const missing: string[] = [];
  for (const file of files) {
    for (const target of links(text(file))) {
      if (target !== '' && !existsSync(join(dirname(file), target))) missing.push(`${relative(REPO, file)}: ${target}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every hub-core/, main/, renderer/ and test/ path in README.md and docs/*.md exists', () => {
  const missing: string[] = [];
  for (const file of files) {
    for (const path of new Set(codePaths(text(file)))) {
      if (!existsSync(join(REPO, path))) missing.push(`${relative(REPO, file)}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('the README is a front door: at most 200 lines, with a link to every docs page', () => {
  const readme = text(join(REPO, 'README.md'));
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines`);
  const linked = new Set(links(readme));
  assert.deepEqual(pages.filter((p) => !linked.has(`docs/${p}`)), []);
});

test('the architecture page answers where the code that writes a dataset is', () => {
  const architecture = text(join(DOCS, 'architecture.md'));
  assert.match(architecture, /writes a dataset[^\n]*`hub-core\/storage\/dataset-log\.ts`/);
  assert.ok(links(text(join(REPO, 'README.md'))).includes('docs/architecture.md'));
});

test('the check sees a missing path and a missing link', () => {
  assert.deepEqual(codePaths('see `hub-core/storage/no-such-file.ts`, and test/hub-core/<folder>.'), ['hub-core/storage/no-such-file.ts', 'test/hub-core/']);
  assert.deepEqual(links('[a](docs/x.md#part) [b](https://example.com) [c](#here)'), ['docs/x.md']);
  assert.equal(existsSync(join(REPO, 'hub-core/storage/no-such-file.ts')), false);
});
