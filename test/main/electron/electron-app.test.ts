// The desktop app itself, driven through Playwright's Electron support. It needs the Electron binary
// (node_modules/electron/dist) and a display; where either is missing every test is skipped and says why.
// The same workbench flows run in Chromium against the hub in the ui-*.test.ts files.
//
// Most tests run the development tree the way `npm start` does (--hub-node: the hub on this Node). One
// runs it without --hub-node, in Electron's utility process as the installed app does (better-sqlite3 13 is a
// Node-API build that loads there too); and one starts an app packaged by `npm run dist` (dist/*-unpacked) if
// there is one.
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { REPO, removeDir, tempDir } from '../../helpers/hub-process.js';
import { findElectron, SHELL_MAIN } from '../../../main/cli/start.js';
import { CONTENT_SECURITY_POLICY } from '../../../main/server/csp.js';

const lookup = findElectron();
const noDisplay = process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY'];
const skipReason = !lookup.found ? `no Electron binary: ${lookup.reason}` : noDisplay ? 'no display for the Electron window (run under xvfb-run)' : null;
const shots = join(REPO, 'test-results', 'screenshots');
const SAMPLE = join(REPO, 'resources', 'sample-workspace');
// Chromium refuses to run as root with its OS sandbox on; the renderer's own sandbox option stays on.
const rootFlags = process.getuid?.() === 0 ? ['--no-sandbox'] : [];

/** What the tests read of the page's globals (the test code compiles without DOM types). */
interface PageGlobals {
  datahubDesktop?: { hubUrl: string; token: string; updateStatus(): Promise<{ state: string; reason?: string; message?: string }> };
  open(url: string): unknown;
  location: { href: string };
  document: { createElement(tag: string): { href: string; target: string; textContent: string; click(): void }; body: { append(node: unknown): void } };
}

interface Launch {
  userData: string;
  hubData: string;
  workspace?: string;
  /** Run the hub on this Node (as `npm start` does); false: in Electron's utility process. */
  hubOnNode?: boolean;
}

/** Arguments of the development app, as `datahub start` passes them. */
function appArgs(launch: Launch): string[] {
  return [
    SHELL_MAIN,
    ...rootFlags,
    '--user-data', launch.userData,
    '--hub-data', launch.hubData,
    ...(launch.workspace ? ['--workspace', launch.workspace] : []),
    ...(launch.hubOnNode === false ? [] : ['--hub-node', process.execPath]),
  ];
}

async function launchApp(launch: Launch): Promise<{ app: ElectronApplication; page: Page }> {
  if (!lookup.found) throw new Error('no Electron binary');
  const app = await _electron.launch({ executablePath: lookup.binary, args: appArgs(launch), timeout: 60_000 });
  const page = await app.firstWindow();
  await page.waitForURL((url) => url.protocol === 'http:' && url.hostname === '127.0.0.1', { timeout: 60_000 });
  return { app, page };
}

/** A copy of the sample workspace in a temp folder, optionally with one more pipe. */
function workspaceCopy(extraPipe?: string): string {
  const folder = join(tempDir('datahub-electron-ws-'), 'project');
  cpSync(SAMPLE, folder, { recursive: true });
  if (extraPipe) {
    const pipe = { _id: extraPipe, type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'x' }] }, sink: { type: 'dataset', dataset: extraPipe } };
    writeFileSync(join(folder, 'node', 'pipes', `${extraPipe}.conf.json`), JSON.stringify(pipe, null, 2));
  }
  return folder;
}

/** The first window's bounds and the primary display's work area, from the main process. */
function windowGeometry(app: ElectronApplication): Promise<{ bounds: { x: number; y: number; width: number; height: number }; area: { x: number; y: number; width: number; height: number } }> {
  return app.evaluate(({ BrowserWindow, screen }) => ({
    bounds: BrowserWindow.getAllWindows()[0]!.getNormalBounds(),
    area: screen.getPrimaryDisplay().workArea,
  }));
}

/** The title of the app's window (the page's own document title is not it). */
function windowTitle(app: ElectronApplication): Promise<string> {
  return app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.getTitle() ?? '');
}

/** A skip that prints why, or false when the test can run. */
function skipped(t: TestContext, reason: string | null = skipReason): boolean {
  if (reason === null) return false;
  t.skip(reason);
  return true;
}

/** Wait for a condition a user would see, polling; fails with `what` after the timeout. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A batch of entities bigger than the hub parses inline, so a worker thread of the hub parses it. */
function bigBatch(): string {
  return JSON.stringify(Array.from({ length: 1500 }, (_, i) => ({ _id: `e${i}`, text: 'x'.repeat(200) })));
}

describe('the development app (hub on Node, as npm start runs it)', () => {
  let app: ElectronApplication | undefined;
  let page: Page | undefined;
  const dirs: string[] = [];
  let hubData = '';

  before(async () => {
    if (skipReason !== null) return;
    mkdirSync(shots, { recursive: true });
    const userData = tempDir('datahub-electron-user-');
    hubData = tempDir('datahub-electron-hub-');
    const workspace = workspaceCopy();
    dirs.push(userData, hubData, dirname(workspace));
    ({ app, page } = await launchApp({ userData, hubData, workspace }));
  });

  after(async () => {
    await app?.close();
    for (const dir of dirs) removeDir(dir);
  });

  /** The window, or a skip that prints why there is none. */
  function windowOrSkip(t: TestContext): Page | undefined {
    if (skipped(t)) return undefined;
    assert.ok(page, 'the app opened a window');
    return page;
  }

  test('the window opens the workbench on the workspace', async (t) => {
    const win = windowOrSkip(t);
    if (!win || !app) return;
    await win.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
    assert.ok(!win.url().includes('code='), 'the one-time login code does not stay in the address bar');
    assert.match(await win.title(), /Datahub Desktop/);
    const viewMenu = await app.evaluate(({ Menu }) =>
      Menu.getApplicationMenu()?.items.find((i) => i.label.replace('&', '') === 'View')?.submenu?.items.map((i) => i.role ?? i.label) ?? [],
    );
    assert.ok(viewMenu.map((r) => r.toLowerCase()).includes('toggledevtools'), `a development tree offers DevTools: ${viewMenu.join(', ')}`);
    await win.screenshot({ path: join(shots, 'electron-workbench.png') });
  });

  test('the page gets the narrow desktop API and no Node.js', async (t) => {
    const win = windowOrSkip(t);
    if (!win) return;
    const seen = await win.evaluate(() => {
      const desktop = (globalThis as unknown as PageGlobals).datahubDesktop;
      return {
        bridge: typeof desktop,
        hubUrl: desktop?.hubUrl ?? null,
        hasToken: (desktop?.token ?? '').length > 20,
        require: Reflect.has(globalThis, 'require'),
        process: Reflect.has(globalThis, 'process'),
        module: Reflect.has(globalThis, 'module'),
      };
    });
    assert.deepEqual(seen, { bridge: 'object', hubUrl: new URL(win.url()).origin, hasToken: true, require: false, process: false, module: false });
    const token = readFileSync(join(hubData, 'access-token'), 'utf8').trim();
    assert.equal(await win.evaluate(() => (globalThis as unknown as PageGlobals).datahubDesktop?.token), token, 'the per-launch token the hub wrote');
  });

  test('a development tree never checks for updates: the bridge says why, the automatic checks are off in the Help menu, no notice shows', async (t) => {
    const win = windowOrSkip(t);
    if (!win || !app) return;
    await win.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
    const status = await win.evaluate(() => (globalThis as unknown as PageGlobals).datahubDesktop?.updateStatus());
    assert.equal(status?.state, 'unsupported');
    assert.equal(status?.reason, 'development');
    const items = await app.evaluate(({ Menu }) =>
      Menu.getApplicationMenu()?.items.find((i) => i.label.replace('&', '') === 'Help')?.submenu?.items.map((i) => ({ label: i.label, checked: i.checked, enabled: i.enabled })) ?? [],
    );
    assert.ok(items.some((i) => i.label === 'Check for Updates…'), JSON.stringify(items));
    assert.deepEqual(items.find((i) => i.label === 'Check for Updates Automatically'), { label: 'Check for Updates Automatically', checked: false, enabled: false });
    assert.equal(await win.getByTestId('update-notice').count(), 0);
  });

  test('the page arrives with the CSP header, and the shell sets it on every hub response (the API reference too)', async (t) => {
    const win = windowOrSkip(t);
    if (!win) return;
    const [response] = await Promise.all([win.waitForResponse((r) => r.request().resourceType() === 'document'), win.reload()]);
    assert.equal(response.headers()['content-security-policy'], CONTENT_SECURITY_POLICY);
    const evalBlocked = (): Promise<string> =>
      win.evaluate(() => {
        try {
          return String((0, eval)('1 + 1'));
        } catch (e) {
          return (e as Error).name;
        }
      });
    assert.equal(await evalBlocked(), 'EvalError', 'the policy is in force: no eval');
    // The hub sends no CSP under /api/; in the window the shell's header covers the API reference as well.
    const workbench = win.url();
    await win.goto(`${new URL(workbench).origin}/api/reference/static/index.html`);
    await win.locator('.swagger-ui .info').first().waitFor({ timeout: 30_000 });
    assert.equal(await evalBlocked(), 'EvalError');
    await win.goto(workbench);
    await win.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
  });

  test('window.open and navigation to other origins are refused; https links go to the system browser', async (t) => {
    const win = windowOrSkip(t);
    if (!win || !app) return;
    // Observe shell.openExternal in the main process instead of opening a real browser.
    await app.evaluate(({ shell }) => {
      const opened: string[] = [];
      (globalThis as unknown as { openedExternally: string[] }).openedExternally = opened;
      shell.openExternal = async (url: string) => {
        opened.push(url);
      };
    });
    const openedExternally = (): Promise<string[]> => app!.evaluate(() => (globalThis as unknown as { openedExternally: string[] }).openedExternally);
    const before = win.url();
    const opened = await win.evaluate(() => (globalThis as unknown as PageGlobals).open('http://example.com/') === null);
    assert.equal(opened, true, 'window.open returned no window');
    await win.evaluate(() => {
      (globalThis as unknown as PageGlobals).location.href = 'file:///etc/passwd';
    });
    // A link to documentation, as the workbench renders one.
    await win.evaluate(() => {
      const doc = (globalThis as unknown as PageGlobals).document;
      const link = doc.createElement('a');
      link.href = 'https://docs.example.com/pipes';
      link.target = '_blank';
      link.textContent = 'docs';
      doc.body.append(link);
      link.click();
    });
    await win.evaluate(() => {
      (globalThis as unknown as PageGlobals).location.href = 'https://example.org/elsewhere';
    });
    const seen = await eventually('both https links handed to the system browser', async () => {
      const urls = await openedExternally();
      return urls.length >= 2 ? urls : undefined;
    });
    assert.deepEqual([...seen].sort(), ['https://docs.example.com/pipes', 'https://example.org/elsewhere']);
    assert.equal(app.windows().length, 1, 'no second window');
    assert.equal(win.url(), before, 'the window stayed on the hub');
  });

  test('the hub runs in a process of its own, not in the main process', async (t) => {
    const win = windowOrSkip(t);
    if (!win || !app) return;
    const hubPid = Number(readFileSync(join(hubData, 'hub.lock'), 'utf8').trim());
    const { mainPid, rendererPid } = await app.evaluate(({ BrowserWindow }) => ({
      mainPid: process.pid,
      rendererPid: BrowserWindow.getAllWindows()[0]?.webContents.getOSProcessId() ?? -1,
    }));
    assert.ok(hubPid > 0);
    assert.notEqual(hubPid, mainPid);
    assert.notEqual(hubPid, rendererPid);
    process.kill(hubPid, 0); // alive
    // The window answers while the hub works: the main process is not the one serving requests.
    const health = await win.evaluate(async () => (await fetch('/api/health')).status);
    assert.equal(health, 200);
  });

  test('quitting the app stops the hub cleanly: databases closed, lock released', async (t) => {
    if (skipped(t) || !app) return;
    const hubPid = Number(readFileSync(join(hubData, 'hub.lock'), 'utf8').trim());
    await app.close();
    app = undefined;
    assert.equal(existsSync(join(hubData, 'hub.lock')), false, 'the hub removed its lock');
    assert.throws(() => process.kill(hubPid, 0), 'the hub process is gone');
  });
});

describe('starting, restarting and launching again', () => {
  test('a first start without --workspace opens the sample workspace (a copy the user can edit)', async (t) => {
    if (skipped(t)) return;
    const userData = tempDir('datahub-electron-user-');
    const hubData = tempDir('datahub-electron-hub-');
    const { app, page } = await launchApp({ userData, hubData });
    try {
      await page.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
      const copy = join(hubData, 'sample-workspace');
      assert.ok(existsSync(join(copy, 'node', 'pipes', 'people.conf.json')), 'copied into the hub data folder');
      assert.equal(await windowTitle(app), `Datahub Desktop — ${copy}`, 'the window names the open workspace');
      const recent = JSON.parse(readFileSync(join(userData, 'recent-workspaces.json'), 'utf8')) as string[];
      assert.deepEqual(recent, [copy]);
    } finally {
      await app.close();
      removeDir(userData);
      removeDir(hubData);
    }
  });

  test('the window comes back where it was and as big; one saved bigger than the display is shrunk to fit', async (t) => {
    if (skipped(t)) return;
    const userData = tempDir('datahub-electron-user-');
    const hubData = tempDir('datahub-electron-hub-');
    const workspace = workspaceCopy();
    try {
      let { app } = await launchApp({ userData, hubData, workspace });
      const { area } = await windowGeometry(app);
      const wanted = { x: area.x + 40, y: area.y + 30, width: Math.min(900, area.width - 80), height: Math.min(620, area.height - 60) };
      await app.evaluate(({ BrowserWindow }, bounds) => BrowserWindow.getAllWindows()[0]!.setBounds(bounds), wanted);
      await eventually('the window at its new bounds', async () => {
        const { bounds } = await windowGeometry(app);
        return bounds.width === wanted.width && bounds.height === wanted.height;
      });
      await app.close();
      const saved = JSON.parse(readFileSync(join(userData, 'window-state.json'), 'utf8')) as { bounds: typeof wanted; maximized: boolean };
      assert.deepEqual({ width: saved.bounds.width, height: saved.bounds.height }, { width: wanted.width, height: wanted.height });

      ({ app } = await launchApp({ userData, hubData, workspace }));
      const reopened = await windowGeometry(app);
      assert.deepEqual({ width: reopened.bounds.width, height: reopened.bounds.height }, { width: wanted.width, height: wanted.height }, 'the same size');
      assert.deepEqual({ x: reopened.bounds.x, y: reopened.bounds.y }, { x: saved.bounds.x, y: saved.bounds.y }, 'the same place');
      await app.close();

      // Saved on a bigger monitor than this one.
      writeFileSync(join(userData, 'window-state.json'), JSON.stringify({ bounds: { x: area.x, y: area.y, width: area.width + 1500, height: area.height + 900 }, maximized: false }));
      ({ app } = await launchApp({ userData, hubData, workspace }));
      const shrunk = await windowGeometry(app);
      assert.ok(shrunk.bounds.width <= area.width && shrunk.bounds.height <= area.height, `fits the display: ${JSON.stringify(shrunk)}`);
      await app.close();
    } finally {
      removeDir(userData);
      removeDir(hubData);
      removeDir(dirname(workspace));
    }
  });

  test('a second launch hands its workspace folder to the running app, which comes to the front and opens it', async (t) => {
    if (skipped(t) || !lookup.found) return;
    const userData = tempDir('datahub-electron-user-');
    const hubData = tempDir('datahub-electron-hub-');
    const first = workspaceCopy();
    const second = workspaceCopy('second-only');
    const { app, page } = await launchApp({ userData, hubData, workspace: first });
    try {
      await page.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
      await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.minimize());
      const again = spawn(lookup.binary, appArgs({ userData, hubData, workspace: second }), { stdio: 'ignore' });
      const code = await new Promise<number | null>((resolve) => again.once('exit', resolve));
      assert.equal(code, 0, 'the second launch quits at once');
      await page.getByTestId('pipes').getByText('second-only').first().waitFor({ timeout: 60_000 });
      assert.equal(await windowTitle(app), `Datahub Desktop — ${second}`);
      const state = await app.evaluate(({ BrowserWindow }) => ({ windows: BrowserWindow.getAllWindows().length, minimized: BrowserWindow.getAllWindows()[0]!.isMinimized() }));
      assert.deepEqual(state, { windows: 1, minimized: false }, 'one window, restored');
      const recent = JSON.parse(readFileSync(join(userData, 'recent-workspaces.json'), 'utf8')) as string[];
      assert.deepEqual(recent, [second, first]);
    } finally {
      await app.close();
      for (const dir of [userData, hubData, dirname(first), dirname(second)]) removeDir(dir);
    }
  });
});

/** Why better-sqlite3 of this tree cannot run in Electron's utility process, or null when it can (a Node-API build always can). */
function electronAbiProblem(): string | null {
  if (!lookup.found) return `no Electron binary: ${lookup.reason}`;
  const probe = spawnSync(lookup.binary, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: REPO,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (probe.status === 0) return null;
  const why = /NODE_MODULE_VERSION \d+[^.]*\.[^.]*NODE_MODULE_VERSION \d+/.exec(probe.stderr)?.[0] ?? probe.stderr.trim().split('\n')[0] ?? `exit ${probe.status}`;
  return `better-sqlite3 in node_modules does not load in this Electron (${why}); the packaged-app test below covers this path`;
}

describe('the installed-app path: the hub in Electron’s utility process', () => {
  test('without --hub-node the hub runs in a utility process of Electron, parses big batches in its worker threads, and stops cleanly', async (t) => {
    if (skipped(t)) return;
    const problem = electronAbiProblem();
    if (skipped(t, problem)) return;
    const userData = tempDir('datahub-electron-user-');
    const hubData = tempDir('datahub-electron-hub-');
    const workspace = workspaceCopy();
    const { app, page } = await launchApp({ userData, hubData, workspace, hubOnNode: false });
    try {
      await page.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
      const hubPid = Number(readFileSync(join(hubData, 'hub.lock'), 'utf8').trim());
      const mainPid = await app.evaluate(() => process.pid);
      assert.notEqual(hubPid, mainPid);
      if (process.platform === 'linux' && lookup.found) {
        assert.equal(realpathSync(`/proc/${hubPid}/exe`), realpathSync(lookup.binary), 'the hub runs in an Electron process, not in node');
      }
      const status = await page.evaluate(async (body) => {
        const desktop = (globalThis as unknown as PageGlobals).datahubDesktop!;
        const res = await fetch('/api/datasets/utility-batch/entities', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${desktop.token}` }, body });
        return res.status;
      }, bigBatch());
      assert.equal(status, 200, 'a worker thread of the utility process parsed the batch');
    } finally {
      await app.close();
      assert.equal(existsSync(join(hubData, 'hub.lock')), false, 'stopped by the shutdown message: lock released');
      for (const dir of [userData, hubData, dirname(workspace)]) removeDir(dir);
    }
  });
});

/** The executable of an app packaged by `npm run dist` for this platform, if there is one. */
function packagedApp(): string | undefined {
  const candidates: Partial<Record<NodeJS.Platform, string[]>> = {
    linux: [join(REPO, 'dist', 'linux-unpacked', 'datahub-desktop'), join(REPO, 'dist', 'linux-arm64-unpacked', 'datahub-desktop')],
    win32: [join(REPO, 'dist', 'win-unpacked', 'Datahub Desktop.exe'), join(REPO, 'dist', 'win-arm64-unpacked', 'Datahub Desktop.exe')],
    darwin: ['mac', 'mac-arm64'].map((d) => join(REPO, 'dist', d, 'Datahub Desktop.app', 'Contents', 'MacOS', 'Datahub Desktop')),
  };
  return (candidates[process.platform] ?? []).find((f) => existsSync(f));
}

describe('the packaged app (npm run dist)', () => {
  test('starts its hub from app.asar in a utility process, loads the native modules and workers from asar.unpacked, and stops cleanly', async (t) => {
    const executable = packagedApp();
    if (skipped(t, noDisplay ? 'no display for the Electron window (run under xvfb-run)' : executable ? null : 'no packaged app in dist/ (npm run dist:linux -- --dir builds one)')) return;
    // The fuses turn off --inspect, so Playwright cannot drive it: it is started like a user starts it and
    // checked over the hub's HTTP API.
    const userData = tempDir('datahub-packaged-user-');
    const hubData = tempDir('datahub-packaged-hub-');
    const workspace = workspaceCopy();
    const child = spawn(executable!, [...rootFlags, '--user-data', userData, '--hub-data', hubData, '--workspace', workspace], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = await eventually('the packaged hub to listen', async () => /API listening at (http:\/\/\S+)\/api/.exec(out)?.[1], 60_000);
      const token = readFileSync(join(hubData, 'access-token'), 'utf8').trim();
      const auth = { authorization: `Bearer ${token}` };
      const pipes = (await (await fetch(`${url}/api/pipes`, { headers: auth })).json()) as { _id: string }[];
      assert.ok(pipes.some((p) => p._id === 'people'), out);
      const stored = await fetch(`${url}/api/datasets/packaged-batch/entities`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: bigBatch() });
      assert.equal(stored.status, 200, `a worker thread loaded from app.asar parsed the batch: ${await stored.text()}`);
      const page = await fetch(`${url}/`);
      assert.equal(page.status, 200, 'the workbench is served from app.asar');
      // The updater's feed, written by electron-builder from electron-builder.yml's publish section (the
      // workflows pass owner and repo); electron-updater reads it from the app's resources.
      const feedFile = join(executable!, '..', process.platform === 'darwin' ? '../Resources' : 'resources', 'app-update.yml');
      assert.ok(existsSync(feedFile), `${feedFile}: package with "-c.publish.owner=<owner> -c.publish.repo=<repo>" or from a GitHub clone`);
      const feed = readFileSync(feedFile, 'utf8');
      assert.match(feed, /^provider: github$/m);
      assert.match(feed, /^owner: \S+$/m);
      assert.match(feed, /^repo: \S+$/m);
      assert.notEqual(Number(readFileSync(join(hubData, 'hub.lock'), 'utf8').trim()), child.pid, 'the hub is not the main process');
      child.kill('SIGTERM');
      assert.equal(await exited, 0, out);
      assert.equal(existsSync(join(hubData, 'hub.lock')), false, 'the hub stopped cleanly with the app');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const dir of [userData, hubData, dirname(workspace)]) removeDir(dir);
    }
  });
});
