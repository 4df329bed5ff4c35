// The workspace test runner over HTTP: POST /desktop/workspace/test runs a project's tests like `datahub test` and
// answers per-test results with per-entity diffs; "update" rewrites the expected files; without a workspace a 409.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../../helpers/hub-process.js';
import { launchChromium, signIn } from '../../helpers/browser.js';
import type { WorkspaceTestReport } from '../../../main/server/desktop/workspace-test-run.js';

const PROJECTS = join(REPO, 'test', 'fixtures', 'projects');

function copyProject(name: string): string {
  const dir = tempDir(`workspace-${name}-`);
  cpSync(join(PROJECTS, name), dir, { recursive: true });
  return dir;
}

async function desktop(hub: HubProcess, path: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: unknown }> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${hub.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const { json: _json, ...rest } = init;
  const res = await fetch(`${hub.url}/desktop${path}`, { ...rest, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('a passing project (shop)', () => {
  let hub: HubProcess;
  let dir: string;
  before(async () => {
    dir = copyProject('shop');
    hub = await startHub({ args: ['--workspace', dir] });
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
    removeDir(dir);
  });

  test('GET /desktop/workspace lists the tests', async () => {
    const r = await desktop(hub, '/workspace');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const body = r.body as { dir: string; tests: { name: string }[]; running: boolean; problem: string | null };
    assert.equal(body.dir, dir);
    assert.deepEqual(body.tests.map((t) => t.name), ['countries', 'customer-report', 'customers-all', 'customers']);
    assert.equal(body.problem, null);
  });

  test('every test passes; the hub keeps answering while the run goes on', async () => {
    const run = desktop(hub, '/workspace/test', { method: 'POST', json: {} });
    // The run is in a worker: the host answers other requests meanwhile.
    const health = await hub.fetch('/health');
    assert.equal(health.status, 200);
    const r = await run;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const report = r.body as WorkspaceTestReport;
    assert.equal(report.failed, 0, JSON.stringify(report.tests, null, 2));
    assert.equal(report.passed, 4);
    assert.ok(report.tests.every((t) => t.status === 'passed' && t.diffs.length === 0));
    assert.ok(report.pipes.some((p) => p.pipe === 'customer-report' && p.status === 'ok'));
    assert.equal(report.converged, true);
  });

  test('a project that cannot load is a 400 naming the file', async () => {
    const bad = join(dir, 'node', 'pipes', 'zz-broken.conf.json');
    writeFileSync(bad, '{"_id": "zz-broken", ');
    try {
      const r = await desktop(hub, '/workspace/test', { method: 'POST', json: {} });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      const body = r.body as { error: string; detail: string };
      assert.match(body.error, /cannot be loaded/);
      assert.match(body.detail, /zz-broken\.conf\.json/);
    } finally {
      rmSync(bad);
    }
  });

  test('a malformed request is a 400 in words', async () => {
    const r = await desktop(hub, '/workspace/test', { method: 'POST', json: { update: 'yes' } });
    assert.equal(r.status, 400);
    assert.match((r.body as { error: string }).error, /invalid request/);
  });
});

describe('a failing project (broken)', () => {
  let hub: HubProcess;
  let dir: string;
  before(async () => {
    dir = copyProject('broken');
    hub = await startHub({ args: ['--workspace', dir] });
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
    removeDir(dir);
  });

  test('the failing test carries the same per-entity diff as the CLI', async () => {
    const r = await desktop(hub, '/workspace/test', { method: 'POST' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const report = r.body as WorkspaceTestReport;
    assert.deepEqual([report.passed, report.failed, report.ignored], [1, 1, 1]);
    const failing = report.tests.find((t) => t.name === 'items-out')!;
    assert.equal(failing.status, 'failed');
    assert.equal(failing.error, null);
    assert.deepEqual(
      failing.diffs.map((d) => `${d.id} ${d.kind}`),
      ['i1 changed', 'i2 unexpected', 'i3 changed', 'i4 missing'],
    );
    assert.deepEqual(failing.diffs[0]!.changes, [{ path: 'price', keys: ['price'], expected: '~f10.50', actual: '~f10.00' }]);
    assert.deepEqual(failing.diffs[2]!.changes, [{ path: 'in_stock', keys: ['in_stock'], actual: true }]);
    assert.equal(failing.diffText[0], 'i1: differs');
    assert.equal(report.tests.find((t) => t.name === 'skipped')?.status, 'ignored');
  });

  test('a second run while one is going is refused with 409', async () => {
    const first = desktop(hub, '/workspace/test', { method: 'POST', json: {} });
    await new Promise((r) => setTimeout(r, 20));
    const second = await desktop(hub, '/workspace/test', { method: 'POST', json: {} });
    const done = await first;
    assert.equal(done.status, 200);
    // The first may have finished before the second arrived on a fast machine; then both ran.
    if (second.status !== 200) {
      assert.equal(second.status, 409);
      assert.match((second.body as { error: string }).error, /already in progress/);
    }
  });

  test('update rewrites the expected file; the next run passes', async () => {
    const r = await desktop(hub, '/workspace/test', { method: 'POST', json: { update: true } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const file = join(dir, 'node', 'expected', 'items-out.json');
    const written = JSON.parse(readFileSync(file, 'utf8')) as { _id: string; price: string }[];
    assert.deepEqual(written.map((e) => e._id), ['i1', 'i2', 'i3']);
    assert.equal(written[0]!.price, '~f10.00');
    const again = await desktop(hub, '/workspace/test', { method: 'POST', json: {} });
    const report = again.body as WorkspaceTestReport;
    assert.deepEqual([report.passed, report.failed], [2, 0]);
  });
});

test('without a workspace the runner answers 409 in words', async () => {
  const hub = await startHub();
  try {
    for (const [method, path] of [['GET', '/workspace'], ['POST', '/workspace/test']] as const) {
      const r = await desktop(hub, path, { method, ...(method === 'POST' ? { json: {} } : {}) });
      assert.equal(r.status, 409, `${method} ${path}`);
      const body = r.body as { error: string; detail: string };
      assert.equal(body.error, 'no workspace is open');
      assert.match(body.detail, /--workspace/);
    }
  } finally {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

describe('the Tests view', () => {
  let hub: HubProcess;
  let dir: string;
  before(async () => {
    dir = copyProject('broken');
    hub = await startHub({ args: ['--workspace', dir] });
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
    removeDir(dir);
  });

  test('runs the tests, opens a failure into its entity diff, and updates expected files after confirming', async () => {
    const shots = join(REPO, 'test-results', 'screenshots');
    mkdirSync(shots, { recursive: true });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await signIn(page, hub);
      await page.goto(`${hub.url}/#/tests`);
      await page.getByTestId('test-list').getByText('items-out').waitFor();

      await page.getByTestId('run-tests').click();
      await page.getByTestId('tests-running').waitFor();
      const failing = page.locator('[data-testid="test-result"][data-name="items-out"]');
      await failing.waitFor();
      assert.equal(await failing.getAttribute('data-status'), 'failed');
      assert.equal(await page.locator('[data-testid="test-result"][data-name="items"]').getAttribute('data-status'), 'passed');
      assert.match((await page.getByTestId('tests-summary').textContent()) ?? '', /1 passed, 1 failed, 1 ignored/);
      const diffs = failing.getByTestId('entity-diff');
      assert.deepEqual(await diffs.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-id')} ${e.getAttribute('data-kind')}`)), [
        'i1 changed',
        'i2 unexpected',
        'i3 changed',
        'i4 missing',
      ]);
      const i1 = (await failing.locator('[data-id="i1"]').textContent()) ?? '';
      assert.match(i1, /price/);
      assert.match(i1, /"~f10\.50"/);
      assert.match(i1, /"~f10\.00"/);
      await page.screenshot({ path: join(shots, 'test-runner.png'), fullPage: true });

      // Collapsing hides the diff; the toggle is a button, reachable by keyboard.
      const toggle = failing.getByTestId('test-toggle');
      await toggle.focus();
      await page.keyboard.press('Enter');
      assert.equal(await failing.getByTestId('test-diff').count(), 0);
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');

      // Update asks first; cancelling writes nothing.
      const before = readFileSync(join(dir, 'node', 'expected', 'items-out.json'), 'utf8');
      await page.getByTestId('update-expected').click();
      await page.getByTestId('update-confirm').getByRole('button', { name: 'Cancel' }).click();
      assert.equal(readFileSync(join(dir, 'node', 'expected', 'items-out.json'), 'utf8'), before);
      await page.getByTestId('update-expected').click();
      await page.getByTestId('update-confirm-yes').click();
      await page.getByTestId('tests-summary').filter({ hasText: 'Expected files rewritten' }).waitFor();
      assert.notEqual(readFileSync(join(dir, 'node', 'expected', 'items-out.json'), 'utf8'), before);

      await page.getByTestId('run-tests').click();
      await page.getByTestId('tests-summary').filter({ hasText: /2 passed, 0 failed/ }).waitFor();
    } finally {
      await browser.close();
    }
  });
});
