// Usage texts of the `datahub` command line: one per command (`datahub <command> --help`) and the whole list.
import { readFileSync } from 'node:fs';
import { DEFAULT_PORT, defaultDataDir } from './serve.js';
import { DTL_USAGE } from './dtl.js';
import { PROJECT_TEST_USAGE, PROJECT_RUN_USAGE } from './project.js';
import { SAMPLE_USAGE } from './sample.js';

const SERVE = `  datahub serve [--data <dir>] [--workspace <project dir>] [--port <n>] [--host <addr>] [--body-limit <bytes>]
               [--push-limit <bytes>] [--request-timeout <seconds>] [--secrets-key keychain|file] [--log] [--workers <n>]
               [--scheduler on|off]
      Run the hub and its API. Defaults: --data ${defaultDataDir()} (or $DATAHUB_DATA),
      --port ${DEFAULT_PORT} (0 picks a free port), --host 127.0.0.1, --body-limit 67108864 (64 MB; a larger
      JSON Push body is streamed, up to --push-limit 4294967296, 4 GB),
      --request-timeout 120 (a request whose body has not fully arrived by then is answered 408 and closed).
      A token for the API is written to <data>/access-token. With --workspace, the project's node/ folder
      (pipes/, systems/, node-metadata.conf.json, test-env.json) is loaded, watched, and API edits are written back.
      --secrets-key keychain keeps the key of stored secret values in the OS keychain (moved there from
      <data>/secrets-key; the desktop app uses it), falling back to the file where no keychain works.
      --workers: worker threads that run pipe transforms while the hub writes (default: the machine's cores, or
      $DATAHUB_PIPE_WORKERS; 0 or 1 runs every pipe on the hub's own thread).
      --scheduler: whether pumps start by themselves (schedules, run_at_startup). Default: off (paused; the
      workbench's top bar resumes it) with --workspace, on without. Runs by hand work either way.
`;
const START = `  datahub start [--data <dir>] [--workspace <project dir>] [--port <n>]
      Open the desktop app; without an Electron binary, run the hub for a browser. Without --workspace the app
      reopens the folder used last, or the sample workspace on a first start (the browser fallback always opens
      the sample workspace, copied to <data>/sample-workspace on the first start). The project opens with
      its schedules paused; the top bar's toggle runs them.
`;
const USER = `  datahub user add --email <e> --password <p> [--principal <p> ...] [--data <dir>]
      (default principal group:Developer; give --principal group:Admin for an administrator)
  datahub user remove --email <e> [--data <dir>]
      Manage the users who may get tokens with POST /api/jwt.
`;
const LOGIN_URL = `  datahub login-url [--data <dir>]
      Print a new one-time link that signs a browser in to the UI of the hub running on <dir>.
`;
const HELP = `  datahub help [<command>]    datahub <command> --help
      Print this text, or one command's usage.
  datahub --version
      Print the version.
`;
export const EXIT_CODES = `Exit codes:
  0  success
  1  the command failed (a test did not pass, the hub could not start or stop cleanly, a DTL error)
  2  a usage error (unknown command or option, a bad value) or a project that cannot be loaded; nothing was done
`;

export const COMMANDS = {
  serve: SERVE,
  start: START,
  user: USER,
  'login-url': LOGIN_URL,
  dtl: DTL_USAGE,
  test: PROJECT_TEST_USAGE,
  run: PROJECT_RUN_USAGE,
  sample: SAMPLE_USAGE,
  help: HELP,
} as const;
export type CommandName = keyof typeof COMMANDS;

export const isCommand = (name: string | undefined): name is CommandName => name !== undefined && Object.hasOwn(COMMANDS, name);

export function fullUsage(): string {
  return `datahub — the Datahub Desktop hub from the command line\n\nUsage:\n${Object.values(COMMANDS).join('')}\n${EXIT_CODES}`;
}

export function commandUsage(name: CommandName): string {
  return `Usage:\n${COMMANDS[name]}\n${EXIT_CODES}`;
}

/** True when the arguments ask for help: --help or -h before a `--`. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
