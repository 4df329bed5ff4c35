import { mkdirSync, readFileSync, writeFileSync, rmSync, existsSync, chmodSync, cpSync, linkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Hub } from '../../hub-core/hub.js';
import type { Workspace } from '../../hub-core/project/index.js';
import { WorkspaceHost } from '../server/desktop/workspace-host.js';
import { TokenService } from '../server/auth.js';
import { buildServer } from '../server/app.js';
import { ConnectionStore } from '../remote/connections.js';
import { OsKeychain } from '../secrets/keychain.js';
import { keychainSecretsKey } from '../secrets/secrets-key.js';
import { LoginCodes } from '../server/ui.js';

export { DEFAULT_PORT, defaultDataDir } from './cli-settings.js';

/** The sample project shipped in resources/, copied into the data dir once so the user can edit it. */
export function sampleWorkspace(dataDir: string): string {
  const target = join(resolve(dataDir), 'sample-workspace');
  if (!existsSync(target)) {
    const shipped = fileURLToPath(new URL('../../../resources/sample-workspace', import.meta.url));
    mkdirSync(resolve(dataDir), { recursive: true, mode: 0o700 });
    cpSync(shipped, target, { recursive: true });
  }
  return target;
}

export interface ServeOptions {
  dataDir: string;
  /** A project folder to load, watch and write config edits back to. */
  workspace?: string;
  host: string;
  port: number;
  bodyLimit?: number;
  /** Largest streamed JSON Push body in bytes. */
  pushLimit?: number;
  /** Milliseconds a client has to send a whole request. */
  requestTimeout?: number;
  logger?: boolean;
  /**
   * Whether pumps start by themselves (schedules, run_at_startup) once the hub serves. Default: off (paused, the
   * top bar can resume it) when a workspace is opened, so a project opens calm; on for a hub on a data folder alone.
   */
  scheduler?: 'on' | 'off';
  /** Where the key of secret values at rest is kept: the OS keychain where one works (the desktop app), or a file. */
  secretsKey?: 'keychain' | 'file';
}

export interface RunningHub {
  hub: Hub;
  app: FastifyInstance;
  url: string;
  token: string;
  /** The workspace open now (the workbench may open another folder: see `workspaces`). */
  readonly workspace: Workspace | undefined;
  workspaces: WorkspaceHost;
  /** A one-time URL that signs a browser in to the UI. */
  loginUrl(): string;
  close(): Promise<void>;
}

/**
 * One hub per data directory: a second process on the same directory is refused. The lock file is made in one step
 * (a hard link of a file that already holds our pid; or an exclusive create where links are not supported), so two
 * hubs started at the same moment cannot both find the directory free. A lock left by a process that has died is
 * taken over.
 */
function takeLock(dataDir: string): () => void {
  const file = join(dataDir, 'hub.lock');
  const unlock = (): void => rmSync(file, { force: true });
  const mine = `${file}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createLock(mine, file)) return unlock;
      let text: string;
      try {
        text = readFileSync(file, 'utf8').trim();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const pid = Number(text);
      if (pid === process.pid) return unlock;
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        throw new Error(`another hub (pid ${pid}) is using ${dataDir}; stop it or choose another --data directory`);
      }
      rmSync(file, { force: true });
    }
    throw new Error(`could not take the lock ${file}: other processes keep taking it`);
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Create the lock file holding our pid in one step; false when it exists already. */
function createLock(mine: string, file: string): boolean {
  try {
    linkSync(mine, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e;
  }
  try {
    writeFileSync(file, readFileSync(mine), { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function startHub(options: ServeOptions): Promise<RunningHub> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const unlock = takeLock(dataDir);
  let hub: Hub | undefined;
  try {
    const secretsKey = options.secretsKey === 'keychain' ? await keychainSecretsKey(dataDir, new OsKeychain()) : undefined;
    hub = new Hub(dataDir, secretsKey !== undefined ? { secretsKey } : {});
    const workspaces = new WorkspaceHost(hub);
    if (options.workspace !== undefined) workspaces.start(options.workspace);
    const tokens = TokenService.open(dataDir, hub.nodeId);
    const token = await tokens.writeAccessToken(dataDir);
    const loginCodes = new LoginCodes();
    const app = await buildServer({
      hub,
      tokens,
      loginCodes,
      host: options.host,
      desktop: { dataDir, connections: new ConnectionStore(dataDir, new OsKeychain()), workspaces },
      logger: options.logger ?? false,
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      ...(options.pushLimit !== undefined ? { pushLimit: options.pushLimit } : {}),
      ...(options.requestTimeout !== undefined ? { requestTimeout: options.requestTimeout } : {}),
    });
    await app.listen({ host: options.host, port: options.port });
    // The serving hub runs its pumps (schedules, run_at_startup); one-off commands that open the same Hub do not. A
    // workspace opens with them paused unless asked otherwise (--scheduler on).
    hub.startPumps({ paused: (options.scheduler ?? (options.workspace !== undefined ? 'off' : 'on')) === 'off' });
    const addr = app.server.address();
    const port = addr && typeof addr === 'object' ? addr.port : options.port;
    const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
    const running = hub;
    writeFileSync(join(dataDir, 'hub.url'), `http://${shownHost}:${port}\n`);
    return {
      hub: running,
      app,
      token,
      get workspace() {
        return workspaces.workspace;
      },
      workspaces,
      url: `http://${shownHost}:${port}`,
      loginUrl: () => `http://${shownHost === '0.0.0.0' || shownHost === '[::]' ? '127.0.0.1' : shownHost}:${port}/login?code=${loginCodes.create()}`,
      async close() {
        workspaces.close();
        await running.stopPumps();
        await app.close();
        running.close();
        rmSync(join(dataDir, 'hub.url'), { force: true });
        unlock();
      },
    };
  } catch (e) {
    hub?.close();
    unlock();
    throw e;
  }
}
