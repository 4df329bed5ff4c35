// `datahub start`: open the Electron app when its binary is installed, else say so in one line and let the
// caller run the hub for a browser. The binary is looked up the way electron's own index.js does, but
// without its side effect: requiring 'electron' from Node downloads the binary when it is missing.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
/** The compiled Electron main script (tsconfig.electron.json). */
export const SHELL_MAIN = join(REPO, 'out', 'main', 'electron', 'main.js');

const PLATFORM_PATHS: Partial<Record<NodeJS.Platform, string>> = {
  darwin: 'Electron.app/Contents/MacOS/Electron',
  win32: 'electron.exe',
  linux: 'electron',
  freebsd: 'electron',
  openbsd: 'electron',
};

export type ElectronLookup = { found: true; binary: string } | { found: false; reason: string };

/** Find the Electron executable installed with the electron package, never downloading it. */
export function findElectron(env: NodeJS.ProcessEnv = process.env): ElectronLookup {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return { found: false, reason: 'The electron package is not installed' };
  }
  const pathFile = join(packageDir, 'path.txt');
  const recorded = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const relative = recorded || PLATFORM_PATHS[process.platform];
  if (!relative) return { found: false, reason: `Electron has no build for ${process.platform}` };
  const override = env['ELECTRON_OVERRIDE_DIST_PATH'];
  const binary = override ? join(override, relative) : join(packageDir, 'dist', relative);
  if (!existsSync(binary)) return { found: false, reason: `No Electron binary at ${binary}` };
  return { found: true, binary };
}

export interface LaunchOptions {
  dataDir: string;
  port: number;
  workspace?: string;
}

/** Launch the Electron app and wait until it exits; false (after one line saying why) when it cannot open. */
export async function launchApp(options: LaunchOptions): Promise<boolean> {
  const electron = findElectron();
  const fallBack = (why: string): false => {
    process.stdout.write(`${why}, so the desktop window cannot open; starting the hub for a browser instead.\n`);
    return false;
  };
  if (!electron.found) return fallBack(electron.reason);
  if (!existsSync(SHELL_MAIN)) return fallBack(`The desktop shell ${SHELL_MAIN} is not built (run "npm run build")`);

  // --hub-node: a development tree runs its hub on this Node (the CLI's and the tests' runtime, output in this
  // terminal); an installed app uses an Electron utility process. Both load the same Node-API binaries.
  // Without an explicit folder `datahub start` picks the sample workspace; the app then prefers the folder
  // the user opened last, and opens the sample only on a first start.
  const explicit = options.workspace !== undefined && resolve(options.workspace) !== join(resolve(options.dataDir), 'sample-workspace');
  const args = [
    SHELL_MAIN,
    '--hub-data',
    options.dataDir,
    ...(explicit && options.workspace !== undefined ? ['--workspace', options.workspace] : []),
    '--hub-node',
    process.execPath,
  ];
  const env = { ...process.env };
  delete env['ELECTRON_RUN_AS_NODE']; // would turn the app into a plain Node process
  const child = spawn(electron.binary, args, { stdio: 'inherit', env });
  const outcome = await new Promise<{ code: number | null } | { error: Error }>((resolveOutcome) => {
    child.once('error', (error) => resolveOutcome({ error }));
    child.once('exit', (code) => resolveOutcome({ code }));
  });
  if ('error' in outcome) return fallBack(`Electron at ${electron.binary} could not run (${outcome.error.message})`);
  process.exitCode = outcome.code ?? 1;
  return true;
}
