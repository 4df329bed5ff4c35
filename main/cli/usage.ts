// Usage texts of the `datahub` command line: one per command (`datahub <command> --help`) and the whole list.
import { readFileSync } from 'node:fs';
import { DEFAULT_PORT, defaultDataDir, SAMPLE_DEFAULT_COUNT, TOKEN_ENV } from './cli-settings.js';
import { SCRUB_KEY_ENV } from '../remote/sample-env.js';

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
export const DTL_USAGE = `  datahub dtl eval '<expression JSON>' [--source '<entity JSON>']
  datahub dtl eval --batch
      Evaluate a DTL expression; with --batch, read JSON lines {"expr": ..., "source": ...} from stdin and
      write one JSON result (or {"error": "..."}) per line.
  datahub dtl run --rules <file> --input <file> [--lookup <file>] [--trace]
      Run a DTL transform (a transform object, a list of them, or a "rules" object) on a JSON array of entities;
      --lookup gives datasets for joins as {"<dataset>": [entities...]}. --trace prints, per entity, how each
      output property came to be (steps, values, branches, look-ups) in words, then the output.
  datahub dtl functions [<word>] [--json]
      The DTL function reference in words: every function in one line, or in full (signature, parameters,
      examples) those whose name or description holds <word>; --json prints the catalogue as JSON.
`;
export const PROJECT_TEST_USAGE = `  datahub test [<project dir>] [--update] [--max-rounds <n>] [--pipe <id>]... [--filter <name>]
               [--json] [--junit <file>] [--workers <n>] [--changed <git-ref>]
  datahub test --watch [<project dir>] [--pipe <id>]... [--filter <name>]
  datahub test --accept <test> [--entity <id>] [<project dir>]
      Run the project's pipes (from its node/ folder, the folder itself, or a single-file export: a JSON list of
      components as the service's "download config" gives) in a temporary hub of its own until
      nothing changes, then check every node/expected/<name>.test.json against its expected file. --update rewrites
      the expected files from the actual output instead. --pipe (repeatable) checks only the tests of those pipes
      and runs only them and the pipes upstream of them; --filter checks only the tests whose name contains the
      text (or matches it, with * and ?). --json prints the results as one JSON document instead of lines;
      --junit writes a JUnit XML report for CI systems as well. Exit code 1 when a test fails, 2 when the project
      cannot be loaded or nothing matches --pipe/--filter. --workers sets how many worker threads run pipes side by
      side (default 1: one pipe at a time on the hub's thread, quicker on test data than starting workers; give the
      machine's cores for large test data).
      --changed checks only the tests the files that differ from that git commit can affect (changed pipes and the
      pipes downstream of them through sources, hops and lookups, changed expected and .test.json files; every test
      when test-env.json or the node metadata changed), says why each one is in, and runs only the pipes they need.
      Tests whose pipes share no pipe or dataset run apart, in groups side by side, each group in a hub of its own
      that loads only the group's pipes; --json and --junit say per test which pipes it ran and how long each took.
      --watch runs the tests, then after every saved change re-runs only the tests it affects (Ctrl+C ends it), in
      one hub it keeps warm between saves (the affected pipes start afresh; their pipes run on its own thread
      unless --workers is given).
      --accept writes the test's actual output (or, with --entity, that one entity of it) into its expected file,
      keeping the file's own layout; nothing else is written.
`;
export const PROJECT_RUN_USAGE = `  datahub run [<project dir>] [--max-rounds <n>] [--pipe <id>]... [--workers <n>]
      Run the project's pipes the same way and print what each pipe did, without verifying anything; --pipe runs
      only those pipes and the pipes upstream of them.
`;
export const SAMPLE_USAGE = `  datahub sample pull <pipe> [<project dir>] --from <instance> [--count <n>] [--filter <DTL predicate>]
               [--scrub '<pattern>,...'] [--data <dir>]
      Read a sample of the pipe's input from a remote instance — the dataset its source reads (the latest, not
      deleted entities), or for any other source the remote pipe's own source stage — and write it into the pipe's
      file as its conditional source's "test" alternative (embedded entities). A pipe without a conditional source
      gets one: its source becomes the "prod" alternative, picked by "$ENV(node-env)"; test-env.json gets
      "node-env": "test" when it does not set it, so "datahub test" then runs the pipe offline on the sample. Only
      the source changes; the file keeps its layout. --count: how many entities (default ${SAMPLE_DEFAULT_COUNT}); --filter: only
      entities the DTL predicate is true for (on each entity as _S, e.g. '["eq", "_S.country", "NO"]').
      --scrub: properties whose name or dotted path matches a pattern (* and ?, any case) get stable fake values of
      the same type and shape before anything is written; a scrubbed value is replaced wherever else it occurs too.
      The fakes are keyed hashes: the key is $${SCRUB_KEY_ENV}, else <data>/sample-scrub-key (made once).
      --from: a remote instance connection of the app (its label or id; the token comes from the OS keychain, the
      list from --data, default ${defaultDataDir()}), or an instance API address (https://…/api) with its token in
      $${TOKEN_ENV} — for CI, or where the keychain cannot be reached.
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
