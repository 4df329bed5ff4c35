// The hub runs in a process of its own (the compiled `datahub serve` CLI), so a long pump run or a big import
// never blocks the main process and with it the window. The packaged app uses an Electron utility process;
// `npm start` passes --hub-node so a development tree runs its hub on the Node that runs the CLI and the tests
// (its output in the terminal). Both load the same Node-API binaries (better-sqlite3, the keychain binding).
import { utilityProcess } from 'electron';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hubEnv, hubServeArgs } from './app-args.js';

export interface RunningHub {
  url: string;
  token: string;
  workspace: string;
  pid: number | undefined;
}

/** What HubProcess needs of a utility process or a Node child process. */
interface Child {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  /** Ask the hub to stop cleanly (hub-entry.cts turns this into its SIGTERM path, on every OS). */
  requestStop(): void;
  /** End it now: SIGTERM, then SIGKILL, on POSIX; TerminateProcess on Windows. */
  kill(): void;
  onExit(listener: (code: number) => void): void;
}

const START_TIMEOUT_MS = 60_000;
/** How long a hub may take to finish its current batch, close its databases and release its lock. */
const STOP_TIMEOUT_MS = 10_000;
const KILL_TIMEOUT_MS = 3_000;
/** The message hub-entry.cts stops on. */
const SHUTDOWN = { type: 'datahub:shutdown' } as const;

function fork(entry: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, nodeBinary: string | undefined): Child {
  if (nodeBinary) {
    // The IPC channel carries the stop request, and closes by itself if the app dies, which stops the hub too.
    const child = spawn(nodeBinary, [entry, ...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env, cwd });
    return {
      get pid() {
        return child.exitCode === null && child.signalCode === null ? child.pid : undefined;
      },
      stdout: child.stdout,
      stderr: child.stderr,
      requestStop: () => {
        if (child.connected) child.send(SHUTDOWN);
        else child.kill('SIGTERM');
      },
      kill: () => void child.kill('SIGKILL'),
      onExit: (listener) => child.once('exit', (code) => listener(code ?? 1)),
    };
  }
  // cwd must be a real folder: a path inside app.asar makes the utility process fail to start.
  const child = utilityProcess.fork(entry, args, { serviceName: 'Datahub hub', stdio: 'pipe', env, cwd });
  return {
    get pid() {
      return child.pid;
    },
    stdout: child.stdout,
    stderr: child.stderr,
    requestStop: () => child.postMessage(SHUTDOWN),
    kill: () => void child.kill(),
    onExit: (listener) => child.once('exit', listener),
  };
}

export class HubProcess {
  private child: Child | undefined;
  private stopping = false;

  constructor(
    private readonly dataDir: string,
    private readonly nodeBinary: string | undefined,
    /** Called when the hub exits without being asked to. */
    private readonly onUnexpectedExit: (code: number, lastOutput: string) => void,
  ) {}

  /** How the hub is run: 'utility' (Electron utility process) or the Node binary given with --hub-node. */
  get runtime(): string {
    return this.nodeBinary ?? 'utility';
  }

  /**
   * Start the hub on a workspace. The port of the last run is tried first: the page's origin then stays the
   * same between launches, and with it what the browser keeps per origin (local storage, zoom level).
   */
  async start(workspace: string, preferredPort = 0): Promise<RunningHub> {
    if (preferredPort > 0) {
      try {
        return await this.startOn(workspace, preferredPort);
      } catch {
        // taken by another program since; any free port will do
      }
    }
    return this.startOn(workspace, 0);
  }

  private async startOn(workspace: string, port: number): Promise<RunningHub> {
    await this.stop();
    this.stopping = false;
    const entry = fileURLToPath(new URL('./hub-entry.cjs', import.meta.url));
    const args = ['--datahub-cli', ...hubServeArgs(this.dataDir, port, workspace)];
    const env = hubEnv(process.env);
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const child = fork(entry, args, env, this.dataDir, this.nodeBinary);
    this.child = child;
    let output = '';
    let exited = false;
    let ready = false;
    const keep = (chunk: Buffer): void => {
      const text = chunk.toString();
      process.stdout.write(text);
      output = (output + text).slice(-8000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the hub did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`)), START_TIMEOUT_MS);
      const onData = (): void => {
        const match = /API listening at (http:\/\/\S+)\/api/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          ready = true;
          resolve(match[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.onExit((code) => {
        exited = true;
        clearTimeout(timer);
        reject(new Error(explainFailure(output) ?? lastLine(output) ?? `the hub exited with code ${code}`));
        if (this.child === child) this.child = undefined;
        if (ready && !this.stopping && this.child === undefined) this.onUnexpectedExit(code, output);
      });
    }).catch((e: unknown) => {
      if (!exited) child.kill();
      if (this.child === child) this.child = undefined;
      throw e;
    });
    // The hub writes a fresh admin token at every start; it is read here and never put in a URL.
    const token = readFileSync(join(this.dataDir, 'access-token'), 'utf8').trim();
    return { url, token, workspace, pid: child.pid };
  }

  /**
   * Ask the hub to stop and wait until it has closed its databases and removed its lock; a hub that does
   * not finish in time is ended.
   */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
    const within = (ms: number): Promise<boolean> =>
      Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    const pid = child.pid;
    child.requestStop();
    if (!(await within(STOP_TIMEOUT_MS))) {
      process.stderr.write(`the hub did not stop within ${STOP_TIMEOUT_MS / 1000} s; ending it\n`);
      child.kill();
      if (!(await within(KILL_TIMEOUT_MS))) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
    if (this.child === child) this.child = undefined;
  }
}

/** Causes of a failed start that deserve more than the hub's last line. */
function explainFailure(output: string): string | undefined {
  if (/NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(output)) {
    return (
      'a native module in node_modules is built for one runtime ABI, not for this Electron (better-sqlite3 13 and the keychain ' +
      'binding are Node-API builds that load anywhere: run "npm install" again), or run the hub on Node with --hub-node <path to node> ("npm start" does).'
    );
  }
  return undefined;
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .pop();
}
