import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Launch the Electron app when a binary is installed; answer false (with the reason) when not. */
export async function launchApp(options: { dataDir: string; port: number }): Promise<boolean> {
  const require = createRequire(import.meta.url);
  let binary: string | undefined;
  try {
    const exported: unknown = require('electron');
    binary = typeof exported === 'string' ? exported : undefined;
  } catch {
    binary = undefined;
  }
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  const shell = join(root, 'out', 'main', 'electron', 'main.js');
  if (!binary || !existsSync(binary) || !existsSync(shell)) {
    process.stdout.write('No Electron binary is installed here, so the desktop window cannot open; starting the hub for a browser instead.\n');
    return false;
  }
  const child = spawn(binary, [shell, '--data', options.dataDir], { stdio: 'inherit' });
  await new Promise<void>((resolveExit) => child.on('exit', () => resolveExit()));
  return true;
}
