// Entry of the hub's process: an Electron utility process in the installed app, a Node child process in a
// development tree (--hub-node). A CommonJS file loads the ES-module CLI with import(), whatever the
// process's own module support; the arguments after --datahub-cli go to `datahub`.
//
// Stopping: the shell sends {type: 'datahub:shutdown'} (over parentPort in a utility process, over the IPC
// channel in a Node child) and the hub stops the way SIGTERM stops it, closing its databases and lock.
// That works on Windows too, where a process cannot be sent a signal it can handle. A Node child also stops
// when the app that started it is gone (its IPC channel closes).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Cli {
  main(argv: string[]): Promise<void>;
}

interface SystemCa {
  trustSystemCertificates(): { status: string; added?: number; reason?: string };
}

interface ParentPort {
  on(event: 'message', listener: (message: { data: unknown }) => void): void;
}

// The same string as SHUTDOWN in hub-process.ts (this file is a process entry and exports nothing).
const SHUTDOWN_MESSAGE = 'datahub:shutdown';

const isShutdown = (message: unknown): boolean =>
  message !== null && typeof message === 'object' && (message as { type?: unknown }).type === SHUTDOWN_MESSAGE;

let stopping = false;
function stopGracefully(): void {
  if (stopping) return;
  stopping = true;
  // `datahub serve` installs its SIGTERM handler once the hub is up; a request during start-up waits for it.
  const raise = (): void => {
    if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM');
    else setTimeout(raise, 50);
  };
  raise();
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
parentPort?.on('message', (message) => {
  if (isShutdown(message.data)) stopGracefully();
});
if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (isShutdown(message)) stopGracefully();
  });
  process.on('disconnect', stopGracefully);
}

const marker = process.argv.indexOf('--datahub-cli');
const cliArgs = marker >= 0 ? process.argv.slice(marker + 1) : [];
const cli = pathToFileURL(join(__dirname, '..', 'cli', 'datahub.js')).href;
const systemCa = pathToFileURL(join(__dirname, 'system-ca.js')).href;

(import(systemCa) as Promise<SystemCa>)
  .then((m) => {
    const outcome = m.trustSystemCertificates();
    if (outcome.status === 'added' && outcome.added) process.stdout.write(`TLS: also trusting ${outcome.added} certificates of the OS store\n`);
    else if (outcome.status === 'added') process.stdout.write('TLS: the OS certificate store adds nothing to the certificates Node already trusts\n');
    else if (outcome.status !== 'added') process.stdout.write(`TLS: the OS certificate store is not used (${outcome.reason ?? outcome.status})\n`);
  })
  .then(() => import(cli) as Promise<Cli>)
  .then(
    (m) => m.main(cliArgs),
    (e: unknown) => {
      process.stderr.write(`datahub: the hub could not be loaded: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
