import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, textMatches } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
const shots = join(REPO, 'test-results', 'screenshots');

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'people', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'people' } }],
  });
  await hub.json('/receivers/people/entities', { method: 'POST', json: [{ _id: 'ada', name: 'Ada Lovelace' }, { _id: 'alan', name: 'Alan Turing' }] });
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

function loginLink(): string {
  const m = /one-time link: (\S+)/.exec(hub.output());
  assert.ok(m, `serve printed a login link:\n${hub.output()}`);
  return m[1]!;
}

test('the one-time login link opens the UI, which lists pipes and datasets from the hub', async () => {
  const page = await browser.newPage();
  await page.goto(loginLink());
  assert.equal(new URL(page.url()).pathname, '/', 'the link redirects to the app');
  assert.ok(!page.url().includes('code='), 'the code does not stay in the address bar');
  await page.getByTestId('pipes').getByText('people').first().waitFor();
  await page.screenshot({ path: join(shots, 'pipes.png') });
  await page.getByRole('button', { name: /Datasets/ }).click();
  await page.getByRole('button', { name: 'people', exact: true }).click();
  await page.getByTestId('entities').filter({ hasText: 'Ada Lovelace' }).waitFor();
  const entities = await page.getByTestId('entities').textContent();
  assert.match(entities ?? '', /Alan Turing/);
  // A plain browser has no desktop bridge: the workbench works without it and shows no update notice.
  assert.equal(await page.evaluate(() => 'datahubDesktop' in globalThis), false);
  assert.equal(await page.getByTestId('update-notice').count(), 0);
  await page.screenshot({ path: join(shots, 'datasets.png') });
  await page.close();
});

test('a used login link does not sign in a second browser', async () => {
  const first = await browser.newContext();
  const { url: link } = await hub.json<{ url: string }>('/login-url', { method: 'POST' });
  const p1 = await first.newPage();
  const ok = await p1.goto(link);
  assert.equal(ok?.status(), 200);
  const second = await browser.newContext();
  const p2 = await second.newPage();
  const again = await p2.goto(link);
  assert.equal(again?.status(), 401);
  const api = await p2.goto(hub.url + '/api/pipes');
  assert.equal(api?.status(), 401, 'without the session cookie the API refuses');
  await first.close();
  await second.close();
});

test('two hubs on this host keep separate browser sessions; a signed-out page says how to get a new link', async () => {
  const second = await startHub();
  const context = await browser.newContext();
  try {
    await second.json('/pipes', {
      method: 'POST',
      json: [{ _id: 'orders', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'orders' } }],
    });
    const page = await context.newPage();
    const signInTo = async (h: HubProcess): Promise<void> => {
      const { url } = await h.json<{ url: string }>('/login-url', { method: 'POST' });
      await page.goto(url);
    };
    await signInTo(hub);
    await page.getByTestId('pipes').getByText('people').first().waitFor();
    await signInTo(second);
    await page.getByTestId('pipes').getByText('orders').first().waitFor();
    // Cookies ignore the port: with one cookie name the second sign-in replaced the first hub's session.
    const names = (await context.cookies()).map((c) => c.name);
    assert.equal(new Set(names).size, 2, `one session cookie per hub: ${names.join(', ')}`);
    await page.goto(hub.url + '/');
    await page.getByTestId('pipes').getByText('people').first().waitFor();
    assert.equal(await page.getByTestId('signed-out').count(), 0, 'the first hub still has its session');
    const api = await page.goto(hub.url + '/api/pipes');
    assert.equal(api?.status(), 200, 'the first hub still accepts its session after signing in to the second');

    // Signed out of the second hub, its page tells the user how to get back in.
    await page.goto(second.url + '/');
    await page.getByTestId('pipes').getByText('orders').first().waitFor();
    const out = await page.evaluate(async () => (await fetch('/logout', { method: 'POST' })).status);
    assert.equal(out, 204);
    await page.reload();
    await page.getByTestId('signed-out').waitFor();
    await textMatches(page.getByTestId('signed-out'), /datahub login-url/);
    // Signing out of one hub leaves the other's session alone.
    assert.equal((await page.goto(hub.url + '/api/pipes'))?.status(), 200);
  } finally {
    await context.close();
    await second.stop();
    removeDir(second.dataDir);
  }
});

test('the UI pages carry a Content-Security-Policy', async () => {
  const res = await fetch(hub.url + '/');
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/);
});
