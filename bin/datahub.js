#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const nodeCheck = createRequire(import.meta.url)('../scripts/check-node.cjs');
if (nodeCheck.tooOld(process.version)) {
  process.stderr.write(`datahub: ${nodeCheck.message(process.version)}\n`);
  process.exit(2);
}

const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'out', 'main', 'cli', 'datahub.js');
if (!existsSync(entry)) {
  process.stderr.write('datahub: the project is not built yet; run "npm install" (or "npm run build") first\n');
  process.exit(2);
}
if (process.argv[2] === 'serve') {
  // A hub started from a terminal gets the allocator settings the desktop app gives its hub (main/cli/malloc-env.ts).
  const mallocEnv = join(dirname(entry), 'malloc-env.js');
  if (existsSync(mallocEnv)) (await import(pathToFileURL(mallocEnv).href)).reexecWithHubMallocEnv();
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv.slice(2));
