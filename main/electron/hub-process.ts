// The hub runs in a process of its own (the compiled `datahub serve` CLI), so a long pump run or a big import
// never blocks the main process and with it the window. The packaged app uses an Electron utility process
// (its native modules are rebuilt for Electron); a development tree passes --hub-node, because there
// better-sqlite3 is built for the Node that ran `npm install`, whose ABI differs from Electron's.
import { utilityProcess } from 'electron';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  kill(): void;
  onExit(listener: (code: number) => void): void;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

function fork(entry: string, args: string[], env: NodeJS.ProcessEnv, nodeBinary: string | undefined): Child {
  if (nodeBinary) {
    const child = spawn(nodeBinary, [entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    return {
      get pid() {
        return child.exitCode === null && child.signalCode === null ? child.pid : undefined;
      },
      stdout: child.stdout,
      stderr: child.stderr,
      kill: () => void child.kill('SIGTERM'),
      onExit: (listener) => child.once('exit', (code) => listener(code ?? 1)),
    };
  }
  const child = utilityProcess.fork(entry, args, { serviceName: 'Datahub hub', stdio: 'pipe', env });
  return {
    get pid() {
      return child.pid;
    },
    stdout: child.stdout,
    stderr: child.stderr,
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
    const args = ['--datahub-cli', 'serve', '--data', this.dataDir, '--port', String(port), '--workspace', workspace];
    const env = { ...process.env };
    delete env['ELECTRON_RUN_AS_NODE'];
    delete env['NODE_OPTIONS'];
    const child = fork(entry, args, env, this.nodeBinary);
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
        reject(new Error(lastLine(output) ?? `the hub exited with code ${code}`));
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

  /** Ask the hub to stop (SIGTERM: it closes its databases and removes its lock) and wait for it. */
  async stop(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (!child || pid === undefined) return;
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
    child.kill();
    const timedOut = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), STOP_TIMEOUT_MS))]);
    if (timedOut) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.child = undefined;
  }
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .pop();
}
