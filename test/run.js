#!/usr/bin/env node
// Runs every compiled test file with node's test runner; the closing lines report pass/fail counts.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'out', 'test');
const files = [];
const walk = (d) => {
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'helpers' && name !== 'bench') walk(p);
    } else if (name.endsWith('.test.js')) files.push(p);
  }
};
walk(dir);
const filter = process.argv[2];
const selected = filter ? files.filter((f) => f.includes(filter)) : files;
if (selected.length === 0) {
  console.error('no test files found under out/test; run "npm run build" first');
  process.exit(1);
}
const res = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', ...selected], { stdio: 'inherit', cwd: root });
process.exit(res.status ?? 1);
