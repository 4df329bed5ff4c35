// `datahub start` with and without an Electron binary, the hub's utility-process entry, the sandboxed
// preload, and the shell's rules (navigation, recent workspaces, window placement) — all in plain Node,
// because no Electron binary can be installed here.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createContext, Script } from 'node:vm';
import { CLI, REPO, removeDir, tempDir } from '../../helpers/hub-process.js';
import { findElectron, SHELL_MAIN } from '../../../main/cli/start.js';
import { classifyNavigation, isHubSender, isHubUrl } from '../../../main/electron/navigation-policy.js';
import { MAX_RECENT, RecentWorkspaces } from '../../../main/electron/recent-workspaces.js';
import { placeOnScreen, loadWindowState, saveWindowState } from '../../../main/electron/window-state.js';
import { parseAppArgs, userArgv } from '../../../main/electron/app-args.js';
import { copySampleWorkspace } from '../../../main/electron/sample-workspace.js';
import { CONTENT_SECURITY_POLICY } from '../../../main/server/csp.js';

const electronDir = dirname(createRequire(join(REPO, 'package.json')).resolve('electron/package.json'));
const SAMPLE = join(REPO, 'resources', 'sample-workspace');

interface Running {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the output once `pattern` shows up; rejects when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}, ipc = false): Running {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}`)), timeoutMs);
        const check = (): void => {
          const m = pattern.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          }
        };
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        void exited.then((code) => {
          clearTimeout(timer);
          const m = pattern.exec(out);
          if (m) resolve(m);
          else reject(new Error(`exited with ${code} before ${pattern}:\n${out}`));
        });
        check();
      }),
  };
}

async function stop(running: Running): Promise<number | null> {
  if (running.child.exitCode === null) running.child.kill('SIGTERM');
  return running.exited;
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

describe('datahub start without an Electron binary', () => {
  test('says so in one line, then serves the UI with a working one-time login link', async () => {
    const data = tempDir();
    const noBinary = tempDir('datahub-no-electron-');
    const downloadedBefore = existsSync(join(electronDir, 'path.txt'));
    const start = run(process.execPath, [CLI, 'start', '--data', data, '--port', '0'], { ELECTRON_OVERRIDE_DIST_PATH: noBinary });
    try {
      const [, link] = await start.waitFor(/one-time link: (\S+)/);
      const out = lines(start.output());
      assert.match(out[0]!, /^No Electron binary at .*, so the desktop window cannot open; starting the hub for a browser instead\.$/);
      assert.equal(out.filter((l) => /Electron/.test(l)).length, 1, `exactly one line about Electron:\n${start.output()}`);
      assert.doesNotMatch(start.output(), /Downloading|download/i, 'nothing tried to download Electron');
      assert.equal(existsSync(join(electronDir, 'path.txt')), downloadedBefore, 'the electron package was left as it was');
      assert.ok(out.some((l) => /^Workspace .*sample-workspace.*: \d+ pipes/.test(l)), 'the sample workspace is open');

      const login = await fetch(link!, { redirect: 'manual' });
      assert.equal(login.status, 303);
      assert.match(login.headers.get('set-cookie') ?? '', /datahub_session_[0-9a-f]{12}=/);
      const ui = await fetch(new URL('/', link!));
      assert.equal(ui.status, 200);
      // The one policy the desktop shell sets as well (main/electron/security.ts uses the same constant).
      assert.equal(ui.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
      for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "script-src 'self'"]) {
        assert.ok(CONTENT_SECURITY_POLICY.includes(directive), directive);
      }
    } finally {
      assert.equal(await stop(start), 0, start.output());
      removeDir(data);
      removeDir(noBinary);
    }
  });

  test('the real lookup answers from the files electron installed and never fetches the binary', () => {
    const distBefore = existsSync(join(electronDir, 'dist')) ? readdirSync(join(electronDir, 'dist')).length : -1;
    const env = { ...process.env };
    delete env['ELECTRON_OVERRIDE_DIST_PATH'];
    const lookup = findElectron(env);
    const distAfter = existsSync(join(electronDir, 'dist')) ? readdirSync(join(electronDir, 'dist')).length : -1;
    assert.equal(distAfter, distBefore, 'dist/ unchanged');
    if (lookup.found) assert.ok(existsSync(lookup.binary));
    else assert.match(lookup.reason, /No Electron binary at .*dist/);
  });

  test('a binary that cannot run also falls back to the browser instead of crashing', { skip: process.platform === 'win32' && 'uses a POSIX file mode' }, async () => {
    const data = tempDir();
    const broken = tempDir('datahub-broken-electron-');
    writeFileSync(join(broken, 'electron'), 'not a program');
    chmodSync(join(broken, 'electron'), 0o644);
    const start = run(process.execPath, [CLI, 'start', '--data', data, '--port', '0'], { ELECTRON_OVERRIDE_DIST_PATH: broken });
    try {
      await start.waitFor(/API listening at http:\/\/127\.0\.0\.1:\d+\/api/);
      assert.match(lines(start.output())[0]!, /^Electron at .* could not run \(.*EACCES.*\), so the desktop window cannot open; starting the hub for a browser instead\.$/);
    } finally {
      assert.equal(await stop(start), 0, start.output());
      removeDir(data);
      removeDir(broken);
    }
  });
});

describe('datahub start with an Electron binary', () => {
  test('launches it on the compiled shell with the data dir and workspace, and passes its exit code on', { skip: process.platform === 'win32' && 'the stand-in binary is a shell script' }, async () => {
    assert.ok(existsSync(SHELL_MAIN), 'the shell is built (npm run build)');
    const data = tempDir();
    const workspace = tempDir('datahub-ws-');
    const dist = tempDir('datahub-fake-electron-');
    const record = join(dist, 'args.txt');
    // A stand-in for the Electron executable: records how it was started and exits with 7.
    writeFileSync(join(dist, 'electron'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${record}"\necho "RUN_AS_NODE=\${ELECTRON_RUN_AS_NODE:-}" >> "${record}"\nexit 7\n`);
    chmodSync(join(dist, 'electron'), 0o755);
    const start = run(process.execPath, [CLI, 'start', '--data', data, '--workspace', workspace], { ELECTRON_OVERRIDE_DIST_PATH: dist, ELECTRON_RUN_AS_NODE: '1' });
    try {
      assert.equal(await start.exited, 7, start.output());
      assert.doesNotMatch(start.output(), /cannot open|listening at/, 'no fallback hub when the app ran');
      assert.deepEqual(lines(readFileSync(record, 'utf8')), [SHELL_MAIN, '--hub-data', data, '--workspace', workspace, '--hub-node', process.execPath, 'RUN_AS_NODE=']);

      // Without --workspace the app chooses (the last folder opened, or the sample on a first start).
      const implicit = run(process.execPath, [CLI, 'start', '--data', data], { ELECTRON_OVERRIDE_DIST_PATH: dist });
      assert.equal(await implicit.exited, 7, implicit.output());
      assert.deepEqual(lines(readFileSync(record, 'utf8')), [SHELL_MAIN, '--hub-data', data, '--hub-node', process.execPath, 'RUN_AS_NODE=']);
    } finally {
      await stop(start);
      removeDir(data);
      removeDir(workspace);
      removeDir(dist);
    }
  });
});

describe("the hub's process entry", () => {
  const entry = join(REPO, 'out', 'main', 'electron', 'hub-entry.cjs');

  /** The hub's entry on a copy of the sample workspace, as the shell starts it; `ipc` as with --hub-node. */
  async function startEntry(ipc: boolean): Promise<{ hub: Running; url: string; data: string; cleanUp(): void }> {
    const data = tempDir();
    const workspace = join(tempDir('datahub-ws-'), 'project');
    cpSync(SAMPLE, workspace, { recursive: true });
    const hub = run(process.execPath, [entry, '--ignored', '--datahub-cli', 'serve', '--data', data, '--port', '0', '--workspace', workspace], {}, ipc);
    const [, url] = await hub.waitFor(/API listening at (http:\/\/\S+)\/api/);
    return {
      hub,
      url: url!,
      data,
      cleanUp: () => {
        if (hub.child.exitCode === null) hub.child.kill('SIGKILL');
        removeDir(data);
        removeDir(dirname(workspace));
      },
    };
  }

  test('runs `datahub serve` on a workspace and stops cleanly on SIGTERM', async () => {
    const { hub, url, data, cleanUp } = await startEntry(false);
    try {
      const token = readFileSync(join(data, 'access-token'), 'utf8').trim();
      const pipes = (await (await fetch(`${url}/api/pipes`, { headers: { authorization: `Bearer ${token}` } })).json()) as { _id: string }[];
      assert.ok(pipes.some((p) => p._id === 'people'), `the workspace's pipes are served: ${JSON.stringify(pipes.map((p) => p._id))}`);
      assert.equal(readFileSync(join(data, 'hub.lock'), 'utf8').trim(), String(hub.child.pid), 'the hub runs in its own process');
      assert.match(hub.output(), /TLS: (also trusting \d+ certificates of the OS store|the OS certificate store adds nothing to the certificates Node already trusts|the OS certificate store is not used \(.+\))/, 'says whether the OS certificates are trusted');
      assert.equal(await stop(hub), 0, hub.output());
      assert.equal(existsSync(join(data, 'hub.lock')), false, 'the lock is released');
    } finally {
      cleanUp();
    }
  });

  test('stops cleanly on the shutdown message, the way the shell stops it on every OS (Windows has no SIGTERM)', async () => {
    const { hub, data, cleanUp } = await startEntry(true);
    try {
      hub.child.send({ type: 'datahub:shutdown' });
      await hub.waitFor(/Received SIGTERM; stopping the hub/, 15_000);
      assert.equal(await hub.exited, 0, hub.output());
      assert.equal(existsSync(join(data, 'hub.lock')), false, 'databases closed and the lock released');
      assert.equal(existsSync(join(data, 'hub.url')), false);
    } finally {
      cleanUp();
    }
  });

  test('stops cleanly when the app that started it is gone (its IPC channel closes)', async () => {
    const { hub, data, cleanUp } = await startEntry(true);
    try {
      hub.child.disconnect();
      await hub.waitFor(/Received SIGTERM; stopping the hub/, 15_000);
      assert.equal(await hub.exited, 0, hub.output());
      assert.equal(existsSync(join(data, 'hub.lock')), false, 'no stale lock for the next start');
    } finally {
      cleanUp();
    }
  });

  test('adds the OS certificate store to what the hub trusts where Node can, and says so where it cannot', async () => {
    const url = JSON.stringify(new URL(`file://${join(REPO, 'out', 'main', 'electron', 'system-ca.js')}`).href);
    const script = `
      import tls from 'node:tls';
      const { trustSystemCertificates } = await import(${url});
      const outcome = trustSystemCertificates();
      const after = typeof tls.getCACertificates === 'function' ? new Set(tls.getCACertificates('default')) : null;
      const system = typeof tls.getCACertificates === 'function' ? tls.getCACertificates('system') : [];
      process.stdout.write(JSON.stringify({ outcome, allSystemTrusted: after ? system.every((c) => after.has(c)) : null, bundledKept: after ? tls.rootCertificates.every((c) => after.has(c)) : null }));`;
    const child = run(process.execPath, ['--input-type=module', '-e', script]);
    assert.equal(await child.exited, 0, child.output());
    const seen = JSON.parse(child.output()) as { outcome: { status: string; reason?: string }; allSystemTrusted: boolean | null; bundledKept: boolean | null };
    const tls = await import('node:tls');
    const supported = typeof (tls as unknown as { setDefaultCACertificates?: unknown }).setDefaultCACertificates === 'function';
    if (supported) {
      assert.equal(seen.outcome.status, 'added', JSON.stringify(seen));
      assert.equal(seen.allSystemTrusted, true, 'every certificate of the OS store is trusted');
      assert.equal(seen.bundledKept, true, "Node's bundled CAs stay trusted");
    } else {
      assert.deepEqual(seen.outcome, { status: 'unsupported', reason: `Node ${process.versions.node} cannot add CA certificates at run time (tls.setDefaultCACertificates)` });
    }
  });
});

describe('the sandboxed preload', () => {
  interface Loaded {
    required: string[];
    exposed: Map<string, Record<string, unknown>>;
    invoked: [string, unknown][];
    asked: string[];
  }

  /** Run preload.cjs the way Electron's sandbox does: a wrapper function whose `require` knows only 'electron'. */
  function loadPreload(session: unknown): Loaded {
    const loaded: Loaded = { required: [], exposed: new Map(), invoked: [], asked: [] };
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: Record<string, unknown>) => loaded.exposed.set(key, api) },
      ipcRenderer: {
        sendSync: (channel: string) => {
          loaded.asked.push(channel);
          return session;
        },
        invoke: async (channel: string, request: unknown) => {
          loaded.invoked.push([channel, request]);
          return null;
        },
        on: () => undefined,
        removeListener: () => undefined,
      },
    };
    const sandboxRequire = (name: string): unknown => {
      loaded.required.push(name);
      if (name === 'electron') return electron;
      throw new Error(`a sandboxed preload cannot require ${name}`);
    };
    const source = readFileSync(join(REPO, 'out', 'main', 'electron', 'preload.cjs'), 'utf8');
    const wrapper = new Script(`(function (require, process, Buffer, global, setImmediate, clearImmediate, exports, module) {\n${source}\n})`);
    const fn = wrapper.runInContext(createContext({})) as (...args: unknown[]) => void;
    const module = { exports: {} };
    fn(sandboxRequire, {}, undefined, {}, undefined, undefined, module.exports, module);
    return loaded;
  }

  test('exposes only the narrow desktop API, and nothing on pages that are not the hub', async () => {
    const session = { hubUrl: 'http://127.0.0.1:4567', token: 'tok', workspace: '/w', platform: 'linux', appVersion: '0.1.0' };
    const loaded = loadPreload(session);
    assert.deepEqual(loaded.required, ['electron']);
    assert.deepEqual(loaded.asked, ['desktop:session']);
    assert.deepEqual([...loaded.exposed.keys()], ['datahubDesktop']);
    const api = loaded.exposed.get('datahubDesktop')!;
    assert.deepEqual(Object.keys(api).sort(), [
      'appVersion', 'downloadUpdate', 'hubUrl', 'onMenuCommand', 'onUpdateStatus', 'openRecentWorkspace', 'openWorkspace', 'platform', 'recentWorkspaces',
      'restartToUpdate', 'setAutomaticUpdateChecks', 'token', 'updateStatus', 'workspace',
    ]);
    assert.equal(api['token'], 'tok');
    assert.equal(api['hubUrl'], 'http://127.0.0.1:4567');
    await (api['openWorkspace'] as () => Promise<unknown>)();
    await (api['recentWorkspaces'] as () => Promise<unknown>)();
    await (api['openRecentWorkspace'] as (p: unknown) => Promise<unknown>)({ toString: () => '/elsewhere' });
    // The requests were built in the preload's own realm; compare them as JSON.
    assert.deepEqual(JSON.parse(JSON.stringify(loaded.invoked)), [['workspace:open', {}], ['workspace:recent', null], ['workspace:open', { recent: '/elsewhere' }]]);
    loaded.invoked.length = 0;
    await (api['updateStatus'] as () => Promise<unknown>)();
    await (api['downloadUpdate'] as () => Promise<unknown>)();
    await (api['restartToUpdate'] as () => Promise<unknown>)();
    // Only a real true turns checks on; anything else the page passes means off.
    await (api['setAutomaticUpdateChecks'] as (v: unknown) => Promise<unknown>)('yes');
    await (api['setAutomaticUpdateChecks'] as (v: unknown) => Promise<unknown>)(true);
    assert.deepEqual(JSON.parse(JSON.stringify(loaded.invoked)), [
      ['updates:status', null], ['updates:download', null], ['updates:install', null], ['updates:automatic', { enabled: false }], ['updates:automatic', { enabled: true }],
    ]);

    assert.equal(loadPreload(null).exposed.size, 0, 'the loading page gets no API');
  });
});

describe('shell rules', () => {
  test('only the hub stays in the window; https links go to the browser; everything else is dropped', () => {
    const hub = 'http://127.0.0.1:4567';
    assert.equal(classifyNavigation('http://127.0.0.1:4567/#/pipes', hub), 'inside');
    assert.equal(classifyNavigation('https://docs.example.com/x', hub), 'external');
    assert.equal(classifyNavigation('http://127.0.0.1:4568/', hub), 'deny', 'another local port is not the hub');
    assert.equal(classifyNavigation('http://example.com/', hub), 'deny');
    assert.equal(classifyNavigation('file:///etc/passwd', hub), 'deny');
    assert.equal(classifyNavigation('javascript:alert(1)', hub), 'deny');
    assert.equal(classifyNavigation('https://user:pw@example.com/', hub), 'deny');
    assert.equal(classifyNavigation('not a url', hub), 'deny');
    assert.equal(classifyNavigation('http://127.0.0.1:4567/', null), 'deny', 'nothing is inside while no hub runs');
  });

  test('IPC: only the top frame of the running hub may call the main process; with no hub running nobody may', () => {
    const hub = 'http://127.0.0.1:4567';
    assert.equal(isHubSender('http://127.0.0.1:4567/#/pipes', true, hub), true);
    assert.equal(isHubSender('http://127.0.0.1:4567/', false, hub), false, 'a frame inside the page is not the page');
    assert.equal(isHubSender('http://127.0.0.1:4568/', true, hub), false, 'another local port is not the hub');
    assert.equal(isHubSender(undefined, true, hub), false, 'a sender without a frame');
    assert.equal(isHubSender('about:blank', true, hub), false);
    // No hub running: pages without an origin (about:blank, data:, garbage) must not match the missing origin.
    assert.equal(isHubSender('about:blank', true, null), false);
    assert.equal(isHubSender('data:text/html,<p>starting</p>', true, null), false);
    assert.equal(isHubSender('not a url', true, null), false);
    assert.equal(isHubSender('http://127.0.0.1:4567/', true, null), false, 'the hub that stopped is no longer trusted');
    // The same rule for the clipboard permission the hub's page may have.
    assert.equal(isHubUrl('http://127.0.0.1:4567', hub), true);
    assert.equal(isHubUrl('data:text/html,x', null), false);
    assert.equal(isHubUrl('null', null), false);
  });

  test('recent workspaces: most recent first, no duplicates, at most ten, vanished folders dropped', () => {
    const dir = tempDir();
    try {
      const recent = new RecentWorkspaces(join(dir, 'user', 'recent.json'));
      assert.deepEqual(recent.list(), []);
      const folders = Array.from({ length: MAX_RECENT + 2 }, (_, i) => {
        const f = join(dir, `ws${i}`);
        mkdirSync(f);
        return f;
      });
      for (const f of folders) recent.add(f);
      recent.add(folders[5]!);
      const listed = recent.list().map((r) => r.path);
      assert.equal(listed.length, MAX_RECENT);
      assert.equal(listed[0], folders[5]);
      assert.equal(new Set(listed).size, listed.length);
      assert.equal(recent.list()[0]!.name, 'ws5');
      removeDir(folders[5]!);
      assert.equal(recent.list()[0]!.path, folders[MAX_RECENT + 1], 'a deleted folder disappears from the list');
      assert.equal(recent.has(folders[0]!), false, 'the oldest fell off');
      writeFileSync(join(dir, 'user', 'recent.json'), '{not json');
      assert.deepEqual(recent.list(), [], 'a damaged file is an empty list, not a crash');
    } finally {
      removeDir(dir);
    }
  });

  test('the window reopens where it was, unless that place is off every screen', () => {
    const dir = tempDir();
    try {
      const file = join(dir, 'window-state.json');
      assert.deepEqual(loadWindowState(file).bounds, { width: 1280, height: 820 });
      saveWindowState(file, { bounds: { x: 100, y: 50, width: 1000, height: 700 }, maximized: true });
      const state = loadWindowState(file);
      assert.deepEqual(state, { bounds: { x: 100, y: 50, width: 1000, height: 700 }, maximized: true });
      const laptop = [{ x: 0, y: 0, width: 1440, height: 900 }];
      assert.deepEqual(placeOnScreen(state, laptop), state);
      const onUnpluggedMonitor = { ...state, bounds: { x: 2000, y: 100, width: 1000, height: 700 } };
      assert.deepEqual(placeOnScreen(onUnpluggedMonitor, laptop).bounds, { width: 1000, height: 700 }, 'centred instead');
      // Saved on a big monitor, opened on the laptop: shrunk to the work area and moved fully onto it.
      const big = { bounds: { x: 300, y: 200, width: 2400, height: 1300 }, maximized: false };
      assert.deepEqual(placeOnScreen(big, laptop).bounds, { x: 0, y: 0, width: 1440, height: 900 });
      const tallOnly = { bounds: { x: 400, y: 100, width: 800, height: 1200 }, maximized: false };
      assert.deepEqual(placeOnScreen(tallOnly, laptop).bounds, { x: 400, y: 0, width: 800, height: 900 });
      assert.deepEqual(placeOnScreen({ bounds: { x: 5000, y: 0, width: 2400, height: 1300 }, maximized: false }, laptop).bounds, { width: 1440, height: 900 }, 'off-screen and too big: centred and shrunk');
      // Two displays: the window belongs to the one that shows most of it; one that fits keeps its place, even spanning both.
      const twoScreens = [laptop[0]!, { x: 1440, y: 0, width: 2560, height: 1400 }];
      assert.deepEqual(placeOnScreen(big, twoScreens), big, 'fits where it was');
      const wideOnSecond = { bounds: { x: 1600, y: 100, width: 3000, height: 1000 }, maximized: false };
      assert.deepEqual(placeOnScreen(wideOnSecond, twoScreens).bounds, { x: 1440, y: 100, width: 2560, height: 1000 });
      writeFileSync(file, '{"bounds": {"width": "big"}}');
      assert.deepEqual(loadWindowState(file).bounds, { width: 1280, height: 820 });
    } finally {
      removeDir(dir);
    }
  });

  test('app arguments: our options are read, Chromium switches are ignored, a bare folder is a workspace', () => {
    assert.deepEqual(parseAppArgs(['/app/out/main/electron/main.js', '--no-sandbox', '--hub-data', '/d', '--workspace=/w', '--enable-logging', '--hub-node', '/n']), {
      hubData: '/d',
      workspace: '/w',
      hubNode: '/n',
    });
    assert.deepEqual(parseAppArgs([]), {});
    // `Datahub Desktop ~/projects/crm`, or a second launch handing a folder over.
    const dir = tempDir();
    try {
      const isFolder = (p: string): boolean => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
      assert.deepEqual(parseAppArgs(['--remote-debugging-port=0', SHELL_MAIN, dir], isFolder), { workspace: dir }, "the app's script is not a folder");
      assert.deepEqual(parseAppArgs(['-psn_0_12345', dir]), { workspace: dir }, 'the Finder switch is skipped');
      assert.deepEqual(parseAppArgs([dir, '--workspace', '/explicit']), { workspace: '/explicit' }, '--workspace wins');
    } finally {
      removeDir(dir);
    }
    // Unpackaged, Electron's argv is [electron, app path, ...]; packaged, [app, ...].
    assert.deepEqual(userArgv(['/usr/bin/electron', '/repo/out/main/electron/main.js', '--workspace', '/w'], true), ['--workspace', '/w']);
    assert.deepEqual(userArgv(['/opt/Datahub Desktop/datahub-desktop', '/w'], false), ['/w']);
  });

  test('the sample workspace is copied once, so later edits are kept', () => {
    const data = tempDir();
    try {
      const copy = copySampleWorkspace(SAMPLE, data);
      assert.equal(copy, join(data, 'sample-workspace'));
      const readme = join(copy, 'README.md');
      assert.ok(existsSync(join(copy, 'node', 'pipes', 'people.conf.json')));
      writeFileSync(readme, 'my notes');
      copySampleWorkspace(SAMPLE, data);
      assert.equal(readFileSync(readme, 'utf8'), 'my notes');
    } finally {
      removeDir(data);
    }
  });
});
