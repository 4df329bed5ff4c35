import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServeOptions } from './serve.js';
import { DEFAULT_PORT, defaultDataDir } from './cli-settings.js';
import { commandUsage, fullUsage, isCommand, version, wantsHelp } from './usage.js';

// Each command loads what it needs when it runs: help, a version or a usage error answer without loading the hub
// (2.5 s on a busy machine before, as long as node's own start after).

class UsageError extends Error {}

function port(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  // Digits only: Number() would also take "" (0, a random port), "0x10", "1e3" and " 80 ".
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, not ${JSON.stringify(value)}`);
  return n;
}

async function serve(args: string[], mode: 'serve' | 'start'): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      data: { type: 'string' },
      workspace: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'body-limit': { type: 'string' },
      'push-limit': { type: 'string' },
      'request-timeout': { type: 'string' },
      'secrets-key': { type: 'string' },
      log: { type: 'boolean' },
      workers: { type: 'string' },
      scheduler: { type: 'string' },
    },
    strict: true,
  });
  if (values.workers !== undefined) {
    const { setPipeWorkers } = await import('./pipe-workers-option.js');
    try {
      setPipeWorkers(values.workers);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
  }
  const bodyLimit = values['body-limit'] !== undefined ? Number(values['body-limit']) : undefined;
  if (bodyLimit !== undefined && (!Number.isInteger(bodyLimit) || bodyLimit < 1024)) throw new UsageError('--body-limit must be an integer of at least 1024 bytes');
  const pushLimit = values['push-limit'] !== undefined ? Number(values['push-limit']) : undefined;
  if (pushLimit !== undefined && (!Number.isInteger(pushLimit) || pushLimit < 1024)) throw new UsageError('--push-limit must be an integer of at least 1024 bytes');
  const timeoutText = values['request-timeout'];
  const requestTimeout = timeoutText !== undefined ? Number(timeoutText) : undefined;
  if (requestTimeout !== undefined && !(/^\d+(\.\d+)?$/.test(timeoutText ?? '') && requestTimeout >= 1)) {
    throw new UsageError('--request-timeout must be a number of seconds, at least 1');
  }
  const scheduler = values.scheduler;
  if (scheduler !== undefined && scheduler !== 'on' && scheduler !== 'off') throw new UsageError('--scheduler is "on" or "off"');
  const secretsKey = values['secrets-key'];
  if (secretsKey !== undefined && secretsKey !== 'keychain' && secretsKey !== 'file') throw new UsageError('--secrets-key is "keychain" or "file"');
  const options: ServeOptions = {
    dataDir: values.data ?? defaultDataDir(),
    ...(secretsKey !== undefined ? { secretsKey } : {}),
    ...(scheduler !== undefined ? { scheduler } : {}),
    ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
    host: values.host ?? '127.0.0.1',
    port: port(values.port, DEFAULT_PORT),
    logger: values.log === true,
    ...(bodyLimit !== undefined ? { bodyLimit } : {}),
    ...(pushLimit !== undefined ? { pushLimit } : {}),
    ...(requestTimeout !== undefined ? { requestTimeout: Math.round(requestTimeout * 1000) } : {}),
  };
  const { sampleWorkspace, startHub } = await import('./serve.js');
  if (mode === 'start' && options.workspace === undefined) options.workspace = sampleWorkspace(options.dataDir);
  if (mode === 'start' && (await (await import('./start.js')).launchApp(options))) return;
  const running = await startHub(options);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Received ${signal}; stopping the hub\n`);
    running.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`error while stopping: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Announce readiness only once the handlers are in place: a supervisor may signal as soon as it
  // reads this line, and before process.on() a signal kills the hub uncleanly (lock left behind).
  const load = running.workspace?.lastLoad;
  if (running.workspace && load) {
    process.stdout.write(
      `Workspace ${running.workspace.nodeDir}: ${load.pipes} pipes, ${load.systems} systems, ${load.env} env variables` +
        `${load.problems.length ? `, ${load.problems.length} problem(s)` : ''}; watching for changes\n`,
    );
    for (const p of load.problems) process.stdout.write(`  ${p.file}: ${p.msg}\n`);
  }
  running.workspaces.onReload = (reloaded) => {
    for (const p of reloaded.problems) process.stdout.write(`Workspace reload: ${p.file}: ${p.msg}\n`);
  };
  running.workspaces.onSwitch = (workspace, opened) => {
    process.stdout.write(`Workspace ${workspace.nodeDir} opened from the workbench: ${opened.pipes} pipes, ${opened.systems} systems${opened.problems.length ? `, ${opened.problems.length} problem(s)` : ''}\n`);
  };
  process.stdout.write(`Datahub hub API listening at ${running.url}/api (data: ${running.hub.dataDir}; token: ${running.hub.dataDir}/access-token)\n`);
  process.stdout.write(`Open the UI with this one-time link: ${running.loginUrl()}\n`);
}

/** Ask the running hub of a data dir for a fresh one-time UI login link. */
async function loginUrl(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { data: { type: 'string' } }, strict: true });
  const dir = values.data ?? defaultDataDir();
  let base: string;
  let token: string;
  try {
    base = readFileSync(join(dir, 'hub.url'), 'utf8').trim();
    token = readFileSync(join(dir, 'access-token'), 'utf8').trim();
  } catch {
    throw new Error(`no hub is running on ${dir}; start one with "datahub serve --data ${dir}"`);
  }
  const res = await fetch(`${base}/api/login-url`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`the hub at ${base} answered ${res.status}: ${await res.text()}`);
  process.stdout.write(`${((await res.json()) as { url: string }).url}\n`);
}

async function user(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, password: { type: 'string' }, principal: { type: 'string', multiple: true }, data: { type: 'string' } },
    strict: true,
  });
  if (!values.email) throw new UsageError('--email is required');
  const { Hub } = await import('../../hub-core/hub.js');
  const hub = new Hub(values.data ?? defaultDataDir());
  try {
    if (action === 'add') {
      if (!values.password) throw new UsageError('--password is required');
      const u = hub.users.set(values.email, values.password, values.principal ?? ['group:Developer']);
      process.stdout.write(`user ${u.email} saved with principals ${u.principals.join(', ')}\n`);
    } else if (action === 'remove') {
      hub.users.delete(values.email);
      process.stdout.write(`user ${values.email} removed\n`);
    } else throw new UsageError('datahub user add|remove ...');
  } finally {
    hub.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  try {
    if (isCommand(command) && command !== 'help' && wantsHelp(args)) {
      process.stdout.write(commandUsage(command));
      return;
    }
    switch (command) {
      case 'serve':
        return await serve(args, 'serve');
      case 'start':
        return await serve(args, 'start');
      case 'user':
        return await user(args);
      case 'dtl':
        return await (await import('./dtl.js')).dtlCommand(args);
      case 'login-url':
        return await loginUrl(args);
      case 'sample':
        process.exitCode = await (await import('./sample.js')).sampleCommand(args);
        return;
      case 'test':
      case 'run':
        process.exitCode = await (await import('./project.js')).projectCommand(command, args);
        return;
      case '--version':
      case '-v':
      case 'version':
        process.stdout.write(`datahub ${version()}\n`);
        return;
      case 'help': {
        const [topic] = args;
        if (topic === undefined) process.stdout.write(fullUsage());
        else if (isCommand(topic)) process.stdout.write(commandUsage(topic));
        else throw new UsageError(`no help for ${JSON.stringify(topic)}: not a command`);
        return;
      }
      case undefined:
      case '--help':
      case '-h':
        process.stdout.write(fullUsage());
        return;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (e) {
    const usage = e instanceof UsageError || (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
    const err = e as NodeJS.ErrnoException;
    const message = err.code === 'EADDRINUSE' ? `the port is already in use (${err.message}); choose another with --port` : err.message ?? String(e);
    // One line, so scripts and logs show the whole reason.
    process.stderr.write(`datahub: ${message.replace(/\s*\n\s*/g, ' ')}${usage ? ` (run "datahub ${isCommand(command) ? `${command} ` : ''}--help" for usage)` : ''}\n`);
    process.exit(usage ? 2 : 1);
  }
}
