import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { HUB_MALLOC_ENV } from '../../main/cli/malloc-env.js';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const CLI = join(REPO, 'bin', 'datahub.js');

export interface HubProcess {
  url: string;
  /** Base URL of the API, ending in /api. */
  api: string;
  token: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /** Fetch an API path (relative to /api) with the admin token. */
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Fetch, expect 2xx, parse JSON. */
  json<T = unknown>(path: string, init?: RequestInit & { json?: unknown }): Promise<T>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill9(): Promise<void>;
}

export function tempDir(prefix = 'datahub-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Start the real hub CLI (`datahub serve --port 0`) on a data dir and wait until it answers. */
export async function startHub(
  options: {
    dataDir?: string;
    args?: string[];
    env?: NodeJS.ProcessEnv;
    /** A command that runs the hub (strace, say). */
    wrap?: string[];
    /** Node's own flags for the hub (--cpu-prof, say). */
    nodeArgs?: string[];
    /**
     * Start it with the allocator settings `datahub serve` would otherwise start itself again to get (default): one
     * node start-up less per test hub. False: as a terminal starts it, without them.
     */
    mallocEnv?: boolean;
  } = {},
): Promise<HubProcess> {
  const dataDir = options.dataDir ?? tempDir();
  const argv = [process.execPath, ...(options.nodeArgs ?? []), CLI, 'serve', '--data', dataDir, '--port', '0', ...(options.args ?? [])];
  const [cmd, ...rest] = [...(options.wrap ?? []), ...argv];
  const child = spawn(cmd!, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...(options.mallocEnv === false ? {} : HUB_MALLOC_ENV), ...process.env, ...options.env },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    // A hub that is slow to start is killed when given up on: left running, it would keep the test file alive for ever.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hub did not start in 60s:\n${out}`));
    }, 60_000);
    const check = (): void => {
      const m = /API listening at (http:\/\/\S+)\/api/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub exited with ${code}:\n${out}`));
    });
  });
  const token = readFileSync(join(dataDir, 'access-token'), 'utf8').trim();
  const api = `${url}/api`;
  const doFetch = (path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const { json: _json, ...rest } = init;
    return fetch(api + path, { ...rest, headers, ...(body !== undefined ? { body } : {}) });
  };
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    url,
    api,
    token,
    dataDir,
    child,
    output: () => out,
    fetch: doFetch,
    async json<T>(path: string, init?: RequestInit & { json?: unknown }): Promise<T> {
      const res = await doFetch(path, init);
      const text = await res.text();
      if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path} -> ${res.status}: ${text}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A hub for the tests of the surrounding file or describe block: started before them, stopped and its data removed
 * after them. The returned object stands for the hub once it has started.
 */
export function useHub(options?: Parameters<typeof startHub>[0]): HubProcess {
  let started: HubProcess | undefined;
  before(async () => {
    started = await startHub(options);
  });
  after(async () => {
    if (!started) return;
    await started.stop();
    removeDir(started.dataDir);
  });
  return new Proxy({} as HubProcess, {
    get(_target, key) {
      if (!started) throw new Error('the hub is used before its before() hook started it');
      return Reflect.get(started, key);
    },
  });
}
