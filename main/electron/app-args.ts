// Command-line options of the desktop app (`datahub start` passes --hub-data, --workspace and --hub-node).
// A workspace folder may also be given as a bare path (`Datahub Desktop ~/projects/crm`), which is how the
// OS and a second launch hand one over.
import { parseArgs } from 'node:util';
import { HUB_MALLOC_ENV } from '../cli/malloc-env.js';

export interface AppArgs {
  /** The hub's data directory; default <userData>/hub. */
  hubData?: string;
  /** A workspace folder to open instead of the most recent one. */
  workspace?: string;
  /** Another userData folder (tests, a second profile). */
  userData?: string;
  /** Run the hub with this Node binary instead of a utility process (a development tree, see hub-process.ts). */
  hubNode?: string;
}

/**
 * The `datahub serve` arguments the app starts its hub with. A workspace opens calm, as with `serve --workspace`: the
 * scheduler paused (said outright, not left to the CLI's default), the top bar's toggle runs it. The key of stored
 * secret values lives in the OS keychain (a file where none works).
 */
export function hubServeArgs(dataDir: string, port: number, workspace: string): string[] {
  return ['serve', '--data', dataDir, '--port', String(port), '--workspace', workspace, '--scheduler', 'off', '--secrets-key', 'keychain'];
}

/** glibc's malloc settings for the hub's process (main/cli/malloc-env.ts): the app sets them for the hub it starts. */
export { HUB_MALLOC_ENV } from '../cli/malloc-env.js';

/** The hub process's environment: the app's, without what would change how Node runs, with the malloc settings (unless set). */
export function hubEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...HUB_MALLOC_ENV, ...base };
  delete env['ELECTRON_RUN_AS_NODE'];
  delete env['NODE_OPTIONS'];
  return env;
}

/**
 * The user's arguments in an Electron process's argv: after the executable, and also after the app path
 * when Electron runs an unpackaged app (`electron out/main/electron/main.js ...`, process.defaultApp).
 */
export function userArgv(argv: readonly string[], defaultApp: boolean): string[] {
  return argv.slice(defaultApp ? 2 : 1);
}

/**
 * Read our options. `isFolder` decides which bare arguments are workspace folders: Electron's argv can
 * also hold the app's own script and switches of Chromium and of tools that launched it.
 */
export function parseAppArgs(argv: readonly string[], isFolder: (path: string) => boolean = () => true): AppArgs {
  // Electron and Chromium add switches of their own, so unknown options are ignored.
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { 'hub-data': { type: 'string' }, workspace: { type: 'string' }, 'user-data': { type: 'string' }, 'hub-node': { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const args: AppArgs = {};
  const hubData = text(values['hub-data']);
  // macOS adds -psn_... to apps started from the Finder; it is not a folder.
  const workspace = text(values['workspace']) ?? positionals.find((p) => p !== '' && !p.startsWith('-psn_') && isFolder(p));
  const userData = text(values['user-data']);
  const hubNode = text(values['hub-node']);
  if (hubData) args.hubData = hubData;
  if (workspace) args.workspace = workspace;
  if (userData) args.userData = userData;
  if (hubNode) args.hubNode = hubNode;
  return args;
}
