// "Sync rules" against the stand-in portal: the subscription's notification rules are made to match those kept with
// this hub's pipes (metadata.notification_rules). A diff first; creating and updating with `apply`; removing and
// replacing only with `confirmRemove` as well.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncEntry } from '@napi-rs/keyring';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { startPortal, defaultPortalSeed, type PortalServer } from '../../helpers/portal-server.js';
import type { RuleSyncResult } from '../../../main/remote/rules-sync.js';
import { launchChromium, signIn } from '../../helpers/browser.js';

let hub: HubProcess;
let portal: PortalServer;
let conn = '';

type Rec = Record<string, unknown>;
const keychain = (id: string): AsyncEntry => new AsyncEntry('datahub-desktop', `connection:${id}`, { linux: { store: 'secret-service' } });

async function desk<T = unknown>(path: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: T; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${hub.token}` };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${hub.url}/desktop${path}`, { method: init.method ?? 'GET', headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T, text };
}

const pipe = (id: string, rules: Rec[]): Rec => ({ _id: id, type: 'pipe', source: { type: 'embedded', entities: [] }, metadata: { notification_rules: rules }, pump: { mode: 'manual' } });
const busy = { name: 'busy', type: 'pump_completed_value_too_high', extra_rule_info: { metric: 'Changed entities', limit: 100 } };
const failed = { name: 'failed', type: 'pump_failed' };

async function portalRules(): Promise<Rec[]> {
  const r = await desk<Rec[]>(`/portal/${conn}/subscriptions/sub-prod/notification-rules`);
  assert.equal(r.status, 200, r.text);
  return r.body.map((x) => ({ pipe: x['pipe_id'], name: x['name'], type: x['type'], extra: x['extra_rule_info'], recipients: x['recipients'] }));
}

const sync = async (body: Rec): Promise<RuleSyncResult> => {
  const r = await desk<RuleSyncResult>(`/portal/${conn}/subscriptions/sub-prod/sync-rules`, { method: 'POST', json: body });
  assert.equal(r.status, 200, r.text);
  return r.body;
};
const summary = (r: RuleSyncResult): string[] => r.changes.map((c) => `${c.pipe}/${c.name} ${c.action}${c.done ? ' done' : ''}`);

before(async () => {
  // The subscription's instance is never reached here: only its rules are.
  const seed = defaultPortalSeed('http://127.0.0.1:9/api');
  portal = await startPortal(seed);
  hub = await startHub();
  const res = await desk<{ id: string }>('/connections', { method: 'POST', json: { kind: 'portal', label: 'Portal', url: portal.url, token: seed.ada.token } });
  assert.equal(res.status, 201, res.text);
  conn = res.body.id;
  await hub.json('/pipes', { method: 'POST', json: [pipe('orders', [busy, failed]), pipe('stock', [])] });
  const add = async (p: string, rule: Rec): Promise<void> => {
    const r = await desk(`/portal/${conn}/subscriptions/sub-prod/pipes/${p}/notification-rules`, { method: 'POST', json: rule });
    assert.equal(r.status, 200, r.text);
  };
  await add('orders', { ...busy, extra_rule_info: { metric: 'Changed entities', limit: 50 }, recipients: [{ id: 'ada@example.com', type: 'email', methods: ['email'] }] });
  await add('orders', { name: 'old', type: 'pump_offset_set' });
  await add('stock', { name: 'stale', type: 'pump_failed' });
  await add('elsewhere', { name: 'x', type: 'pump_failed' });
});

after(async () => {
  if (conn) await keychain(conn).deletePassword().catch(() => false);
  await portal?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

test('the diff first: nothing is changed', async () => {
  const before = await portalRules();
  const r = await sync({});
  assert.deepEqual(summary(r), ['orders/busy update', 'orders/failed create', 'orders/old remove', 'stock/stale remove']);
  assert.deepEqual(r.changes.find((c) => c.name === 'busy')!.what, ['extra_rule_info']);
  assert.equal(r.elsewhere, 1, 'the rule of a pipe this hub does not have is left alone');
  assert.deepEqual(await portalRules(), before);
});

test('apply creates and updates (recipients kept) but removes nothing without confirmation', async () => {
  const r = await sync({ apply: true });
  assert.deepEqual(summary(r), ['orders/busy update done', 'orders/failed create done', 'orders/old remove', 'stock/stale remove']);
  const rules = await portalRules();
  const b = rules.find((x) => x['name'] === 'busy')!;
  assert.deepEqual(b['extra'], { metric: 'Changed entities', limit: 100 });
  assert.deepEqual(b['recipients'], [{ id: 'ada@example.com', type: 'email', methods: ['email'] }]);
  assert.deepEqual(rules.map((x) => `${String(x['pipe'])}/${String(x['name'])}`).sort(), ['elsewhere/x', 'orders/busy', 'orders/failed', 'orders/old', 'stock/stale']);
});

test('confirmed, the rules the workspace no longer has are removed; a changed type is replaced', async () => {
  const r = await sync({ apply: true, confirmRemove: true });
  assert.deepEqual(summary(r), ['orders/busy same', 'orders/failed same', 'orders/old remove done', 'stock/stale remove done']);
  assert.deepEqual((await portalRules()).map((x) => `${String(x['pipe'])}/${String(x['name'])}`).sort(), ['elsewhere/x', 'orders/busy', 'orders/failed']);

  await hub.json('/pipes/orders/config', { method: 'PUT', json: pipe('orders', [busy, { name: 'failed', type: 'pump_finished_overdue', extra_rule_info: { limit: 60 } }]) });
  const unconfirmed = await sync({ apply: true });
  assert.deepEqual(summary(unconfirmed), ['orders/busy same', 'orders/failed replace']);
  assert.equal((await portalRules()).find((x) => x['name'] === 'failed')!['type'], 'pump_failed');
  const confirmed = await sync({ apply: true, confirmRemove: true });
  assert.deepEqual(summary(confirmed), ['orders/busy same', 'orders/failed replace done']);
  assert.equal((await portalRules()).find((x) => x['name'] === 'failed')!['type'], 'pump_finished_overdue');
  assert.deepEqual(summary(await sync({})), ['orders/busy same', 'orders/failed same']);
});

test('the Notification rules tab compares, applies, and removes only after asking', async () => {
  // Back to a subscription that differs: a rule only in the portal, and one changed in the workspace.
  await hub.json('/pipes/orders/config', { method: 'PUT', json: pipe('orders', [{ ...busy, extra_rule_info: { metric: 'Changed entities', limit: 7 } }]) });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, hub);
    await page.goto(`${hub.url}/#/remote/${conn}/sub-prod`);
    await page.getByRole('tab', { name: 'Notification rules' }).click();
    const panel = page.getByTestId('rules-sync');
    await panel.getByTestId('rules-sync-compare').click();
    const row = (key: string) => panel.locator(`[data-testid="rules-sync-row"][data-key="${key}"]`);
    await row('orders/busy').waitFor();
    assert.equal(await row('orders/busy').getAttribute('data-action'), 'update');
    assert.equal(await row('orders/failed').getAttribute('data-action'), 'remove');
    assert.equal(await panel.getByTestId('rules-sync-apply').textContent(), 'Create and update 1');

    await panel.getByTestId('rules-sync-apply').click();
    await panel.getByTestId('rules-sync-message').filter({ hasText: '1 rule(s) created or updated' }).waitFor();
    await panel.locator('[data-testid="rules-sync-row"][data-key="orders/busy"][data-action="same"]').waitFor();
    assert.deepEqual((await portalRules()).find((x) => x['name'] === 'busy')!['extra'], { metric: 'Changed entities', limit: 7 });

    // Removing asks first; cancelled, nothing goes.
    await panel.getByTestId('rules-sync-remove').click();
    await page.getByTestId('confirm-dialog').getByText(/Remove 1 rule\(s\) from the subscription/).waitFor();
    await page.getByTestId('confirm-cancel').click();
    assert.ok((await portalRules()).some((x) => x['name'] === 'failed'));
    await panel.getByTestId('rules-sync-remove').click();
    await page.getByTestId('confirm-ok').click();
    await panel.locator('[data-testid="rules-sync-row"][data-key="orders/failed"]').waitFor({ state: 'detached' });
    assert.deepEqual((await portalRules()).map((x) => `${String(x['pipe'])}/${String(x['name'])}`).sort(), ['elsewhere/x', 'orders/busy']);
  } finally {
    await browser.close();
  }
});
