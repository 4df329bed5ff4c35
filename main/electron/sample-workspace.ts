// The first start opens the sample project. It is copied, once, to the same place `datahub start` uses
// (<hub data>/sample-workspace, see sampleWorkspace() in main/cli/serve.ts), so the user edits a copy.
// The packaged app reads the original from its resources folder, outside the asar archive.
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export function copySampleWorkspace(shipped: string, hubDataDir: string): string {
  const target = join(resolve(hubDataDir), 'sample-workspace');
  if (!existsSync(target)) {
    mkdirSync(resolve(hubDataDir), { recursive: true, mode: 0o700 });
    cpSync(shipped, target, { recursive: true });
  }
  return target;
}
