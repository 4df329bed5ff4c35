// The bench's hub: the real CLI (`datahub serve --port 0`) as a child process, and a small HTTP client for it.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pullCount, type PullCount } from './pull-count.js';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(REPO, 'bin', 'datahub.js');

export class BenchError extends Error {}

export interface Hub {
  child: ChildProcess;
  api: string;
  token: string;
  output(): string;
  exited: Promise<number | null>;
}

export async function startHub(dataDir: string): Promise<Hub> {
  const nodeArgs = (process.env['BENCH_HUB_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--data', dataDir, '--port', '0'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer): void => {
    out += d.toString();
    if (out.length > 64_000) out = out.slice(-32_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchError(`the hub did not start within 30 s:\n${out}`)), 30_000);
    const check = (): void => {
      const m = /Datahub hub API listening at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new BenchError(`the hub exited with ${code} before it listened:\n${out}`));
    });
  });
  const token = readFileSync(join(dataDir, 'access-token'), 'utf8').trim();
  return { child, api: `${url}/api`, token, output: () => out, exited };
}

export async function stopHub(hub: Hub): Promise<number | null> {
  if (hub.child.exitCode !== null || hub.child.signalCode !== null) return hub.child.exitCode;
  hub.child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref());
  const result = await Promise.race([hub.exited, timeout]);
  if (result === 'timeout') {
    hub.child.kill('SIGKILL');
    await hub.exited;
    throw new BenchError('the hub did not stop within 30 s of SIGTERM (killed it)');
  }
  return result;
}


export function client(hub: Hub) {
  const headers = { authorization: `Bearer ${hub.token}` };
  return {
    async json<T>(method: string, path: string, body?: string | Uint8Array): Promise<T> {
      const res = await fetch(hub.api + path, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body !== undefined ? { body } : {}),
      });
      const text = await res.text();
      if (!res.ok) throw new BenchError(`${method} ${path} -> HTTP ${res.status}: ${text.slice(0, 2000)}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
    async pull(path: string): Promise<PullCount> {
      return pullCount(hub.api + path, headers);
    },
  };
}

