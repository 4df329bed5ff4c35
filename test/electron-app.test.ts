// The desktop app itself, driven through Playwright's Electron support. It needs the Electron binary
// (node_modules/electron/dist) and a display; where either is missing every test is skipped and says why.
// The same workbench flows run in Chromium against the hub in the ui-*.test.ts files.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { REPO, removeDir, tempDir } from './helpers/hub-process.js';
import { findElectron, SHELL_MAIN } from '../main/cli/start.js';

const lookup = findElectron();
const noDisplay = process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY'];
const skipReason = !lookup.found ? `no Electron binary: ${lookup.reason}` : noDisplay ? 'no display for the Electron window (run under xvfb-run)' : null;
const shots = join(REPO, 'test-results', 'screenshots');

/** What the tests read of the page's globals (the test code compiles without DOM types). */
interface PageGlobals {
  datahubDesktop?: { hubUrl: string; token: string };
  open(url: string): unknown;
  location: { href: string };
}

let app: ElectronApplication | undefined;
let page: Page | undefined;
let userData = '';
let hubData = '';
let workspace = '';

before(async () => {
  if (skipReason !== null || !lookup.found) return;
  mkdirSync(shots, { recursive: true });
  userData = tempDir('datahub-electron-user-');
  hubData = tempDir('datahub-electron-hub-');
  workspace = join(tempDir('datahub-electron-ws-'), 'project');
  cpSync(join(REPO, 'resources', 'sample-workspace'), workspace, { recursive: true });
  // Chromium refuses to run as root with its OS sandbox on; the renderer's own sandbox option stays on.
  const rootFlags = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  app = await _electron.launch({
    executablePath: lookup.binary,
    // As `npm start` does in a development tree: the hub runs on this Node, whose ABI better-sqlite3 was built for.
    args: [SHELL_MAIN, ...rootFlags, '--user-data', userData, '--hub-data', hubData, '--workspace', workspace, '--hub-node', process.execPath],
    timeout: 60_000,
  });
  page = await app.firstWindow();
  await page.waitForURL((url) => url.protocol === 'http:' && url.hostname === '127.0.0.1', { timeout: 60_000 });
});

after(async () => {
  await app?.close();
  for (const dir of [userData, hubData, workspace && join(workspace, '..')]) if (dir) removeDir(dir);
});

/** The window, or a skip that prints why there is none. */
function windowOrSkip(t: TestContext): Page | undefined {
  if (skipReason !== null) {
    t.skip(skipReason);
    return undefined;
  }
  assert.ok(page, 'the app opened a window');
  return page;
}

test('the window opens the workbench on the workspace', async (t) => {
  const win = windowOrSkip(t);
  if (!win) return;
  await win.getByTestId('pipes').getByText('people').first().waitFor({ timeout: 30_000 });
  assert.ok(!win.url().includes('code='), 'the one-time login code does not stay in the address bar');
  assert.match(await win.title(), /Datahub Desktop/);
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

test('window.open and navigation to other origins are refused', async (t) => {
  const win = windowOrSkip(t);
  if (!win || !app) return;
  const before = win.url();
  const opened = await win.evaluate(() => (globalThis as unknown as PageGlobals).open('http://example.com/') === null);
  assert.equal(opened, true, 'window.open returned no window');
  assert.equal(app.windows().length, 1, 'no second window');
  await win.evaluate(() => {
    (globalThis as unknown as PageGlobals).location.href = 'file:///etc/passwd';
  });
  await new Promise((r) => setTimeout(r, 500));
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
