// Command-line options of the desktop app (`datahub start` passes the first two).
import { parseArgs } from 'node:util';

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

export function parseAppArgs(argv: readonly string[]): AppArgs {
  // Electron and Chromium add switches of their own, so unknown options are ignored.
  const { values } = parseArgs({
    args: [...argv],
    options: { 'hub-data': { type: 'string' }, workspace: { type: 'string' }, 'user-data': { type: 'string' }, 'hub-node': { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const args: AppArgs = {};
  const hubData = text(values['hub-data']);
  const workspace = text(values['workspace']);
  const userData = text(values['user-data']);
  const hubNode = text(values['hub-node']);
  if (hubData) args.hubData = hubData;
  if (workspace) args.workspace = workspace;
  if (userData) args.userData = userData;
  if (hubNode) args.hubNode = hubNode;
  return args;
}
