// The Remote view's portal pages in Chromium against the real hub, with the spec-shaped portal server
// and a second hub as the subscription's instance: connect, edit (and a conflict), members, API tokens,
// a notification rule from its schema form, removing the connection.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { AsyncEntry } from '@napi-rs/keyring';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import { startPortal, defaultPortalSeed, type PortalServer, type PortalUser } from '../helpers/portal-server.js';

let hub: HubProcess;
let remote: HubProcess;
let portal: PortalServer;
let ada: PortalUser;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');
const keychain = (id: string): AsyncEntry => new AsyncEntry('datahub-desktop', `connection:${id}`, { linux: { store: 'secret-service' } });

interface Conn {
  id: string;
  kind: string;
  label: string;
}
async function savedConnections(): Promise<Conn[]> {
  const res = await fetch(`${hub.url}/desktop/connections`, { headers: { authorization: `Bearer ${hub.token}` } });
  return (await res.json()) as Conn[];
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  remote = await startHub();
  // The subscription's instance runs two pipes; the portal's alerts name one of them.
  await remote.json('/pipes', {
    method: 'POST',
    json: ['orders', 'quiet'].map((id) => ({ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, pump: { mode: 'manual' } })),
  });
  const seed = defaultPortalSeed(remote.api, { mintJwt: () => remote.token });
  ada = seed.ada;
  portal = await startPortal(seed);
  hub = await startHub();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // The machine running the suite is shared; give slow moments room without hiding real failures.
  page.setDefaultTimeout(60_000);
  page.on('dialog', (d) => void d.accept());
  await signIn(page, hub);
  await page.waitForLoadState('networkidle');
  await page.goto(`${hub.url}/#/remote`);
  await page.getByTestId('portal-connections').waitFor();
});

after(async () => {
  for (const c of hub ? await savedConnections().catch(() => []) : []) await keychain(c.id).deletePassword().catch(() => false);
  await browser?.close();
  await portal?.close();
  await hub?.stop();
  await remote?.stop();
  if (hub) removeDir(hub.dataDir);
  if (remote) removeDir(remote.dataDir);
});

test('adding a portal checks the token, keeps it in the keychain and lists the subscriptions', async () => {
  await page.getByTestId('portal-add-toggle').click();
  // A plain http:// address off this computer: a clear warning, and no connection without confirming it.
  await page.getByTestId('portal-url').fill('http://portal.example.invalid');
  await page.getByTestId('portal-insecure-warning').filter({ hasText: 'travel over plain http://' }).waitFor();
  await page.getByTestId('portal-token').fill(ada.token);
  await page.getByTestId('portal-connect').click();
  await page.getByTestId('portal-connections-error').filter({ hasText: 'not encrypted' }).waitFor();
  await page.screenshot({ path: join(shots, 'portal-insecure-warning.png'), fullPage: true });
  assert.deepEqual(await savedConnections(), []);
  await page.getByTestId('portal-url').fill(portal.url);
  assert.equal(await page.getByTestId('portal-insecure-warning').count(), 0, 'an address on this computer needs no warning');
  await page.getByTestId('portal-label').fill('Company portal');
  await page.getByTestId('portal-token').fill('wrong-token');
  await page.getByTestId('portal-connect').click();
  await page.getByTestId('portal-connections-error').filter({ hasText: 'portal refused the token' }).waitFor();

  await page.getByTestId('portal-token').fill(ada.token);
  await page.getByTestId('portal-connect').click();
  await page.getByTestId('portal-connection-Company portal').waitFor();
  await page.getByTestId('subscriptions').getByText('Production').waitFor();
  const saved = await savedConnections();
  assert.equal(saved.length, 1);
  assert.equal(await keychain(saved[0]!.id).getPassword(), ada.token, 'the token went to the OS keychain');
  assert.equal(await page.getByTestId('portal-token').count(), 0, 'the form with the token is gone');
  await page.screenshot({ path: join(shots, 'portal-subscriptions.png'), fullPage: true });

  await page.getByTestId('portal-section-portal').click();
  await page.getByTestId('portal-providers').getByText('Sign in with Example SSO').waitFor();
  await page.getByTestId('profile-nickname').fill('Countess');
  await page.getByTestId('profile-save').click();
  await page.getByTestId('profile-saved').waitFor();
  assert.equal(await page.getByTestId('profile-nickname').inputValue(), 'Countess', 'the portal keeps the nickname');
  await page.getByTestId('tos-approve').filter({ hasText: 'Approve version 4' }).click();
  await page.getByTestId('tos-approved').filter({ hasText: 'You approved version 4' }).waitFor();
  assert.equal(portal.approvedTos('ada'), 4, 'the approval reached the portal');
  await page.screenshot({ path: join(shots, 'portal-overview.png'), fullPage: true });
  await page.getByTestId('portal-section-subscriptions').click();
});

test('a subscription is edited; a concurrent change gives a clear conflict message and a reload', async () => {
  await page.getByTestId('subscription-sub-prod').click();
  const form = page.getByTestId('subscription-form');
  await form.waitFor();
  const key = page.getByTestId('vpn-shared-key');
  assert.equal(await key.getAttribute('type'), 'password');
  assert.equal(await key.inputValue(), '', 'the stored key is never shown');
  await page.getByTestId('subscription-name').fill('Production EU');
  await page.getByTestId('subscription-save').click();
  await page.getByTestId('subscription-saved').waitFor();
  await page.getByTestId('subscription-view').getByRole('heading', { name: 'Production EU' }).waitFor();
  assert.equal(portal.storedSharedKey('sub-prod'), 'vpn-secret-9f2c', 'saving without typing a key keeps it');

  portal.touch('sub-prod', { description: 'Changed by a colleague' });
  await page.getByTestId('subscription-name').fill('Production (mine)');
  await page.getByTestId('subscription-save').click();
  const conflict = page.getByTestId('subscription-conflict');
  await conflict.waitFor();
  await textMatches(conflict, /Someone else changed this subscription since you opened it; reload to see their change/);
  await page.screenshot({ path: join(shots, 'portal-subscription-conflict.png'), fullPage: true });
  await page.getByTestId('subscription-reload').click();
  const description = page.getByTestId('subscription-description');
  for (let i = 0; i < 100 && (await description.inputValue()) !== 'Changed by a colleague'; i++) await page.waitForTimeout(100);
  assert.equal(await description.inputValue(), 'Changed by a colleague', "the reload shows the colleague's change");
  assert.equal(await page.getByTestId('subscription-conflict').count(), 0, 'the conflict message is gone after the reload');
  assert.equal(await page.getByTestId('subscription-name').inputValue(), 'Production EU');

  // Replacing the VPN shared key: the new key goes to the portal and is never shown back.
  await page.getByTestId('vpn-shared-key').fill('ui-rotated-key-3a9');
  await page.getByTestId('subscription-save').click();
  await page.getByTestId('subscription-saved').waitFor();
  assert.equal(portal.storedSharedKey('sub-prod'), 'ui-rotated-key-3a9', 'the portal stored the typed key');
  assert.equal(await page.getByTestId('vpn-shared-key').inputValue(), '', 'the key field is empty again');
  assert.ok(!(await page.content()).includes('ui-rotated-key-3a9'), 'the page does not show the key');

  // A new VPN connection cannot be saved without its shared key.
  await page.getByTestId('vpn').getByRole('button', { name: 'Add VPN connection' }).click();
  await page.getByTestId('vpn').getByLabel('Gateway').nth(1).fill('198.51.100.99');
  await page.getByTestId('subscription-save').click();
  await page.getByTestId('subscription-error').filter({ hasText: 'A new VPN connection needs a shared key (gateway 198.51.100.99)' }).waitFor();
  await page.screenshot({ path: join(shots, 'portal-vpn-key-required.png'), fullPage: true });
  await page.getByTestId('vpn-shared-key').nth(1).fill('second-site-key-51');
  await page.getByTestId('subscription-save').click();
  await page.getByTestId('subscription-saved').waitFor();
  await page.getByTestId('vpn-shared-key').nth(1).waitFor();
  assert.ok(!(await page.content()).includes('second-site-key-51'), 'the new key is not shown back');
});

test('the license is renewed from its tab', async () => {
  await page.getByRole('tab', { name: 'License' }).click();
  const expires = page.getByTestId('license-expires');
  const before = (await expires.textContent()) ?? '';
  await page.getByTestId('license-renew').click();
  await page.getByTestId('licenses').locator('tbody tr').nth(1).waitFor();
  assert.equal(await page.getByTestId('licenses').locator('tbody tr').count(), 2, 'a renewal adds a license');
  assert.notEqual(await expires.textContent(), before, 'the current license expires later');
  await page.screenshot({ path: join(shots, 'portal-license.png'), fullPage: true });
});

test('members page by page and an invitation', async () => {
  await page.getByRole('tab', { name: 'Members' }).click();
  const members = page.getByTestId('members');
  await members.getByText('Ada Lovelace').waitFor();
  assert.equal(await page.getByTestId('members-range').textContent(), '1–10');
  await page.getByTestId('members-next').click();
  await page.getByTestId('members-range').filter({ hasText: '11–13' }).waitFor();
  assert.equal(await page.getByTestId('members-next').isDisabled(), true);

  await page.getByTestId('invite-email').fill('grace@example.com');
  await page.getByTestId('invite-form').getByLabel('Developer').check();
  await page.getByTestId('invite-send').click();
  await page.getByTestId('members-message').filter({ hasText: 'Invited grace@example.com' }).waitFor();
  await members.getByText('grace@example.com').waitFor();
  await page.screenshot({ path: join(shots, 'portal-members.png'), fullPage: true });
});

test("a member's roles are changed; a concurrent change gives a clear conflict and a reload", async () => {
  await page.getByTestId('members-prev').click();
  await page.getByTestId('members-range').filter({ hasText: '1–10' }).waitFor();
  const first = page.locator('[data-testid="member-row"][data-user="member01@example.com"]');
  await first.getByTestId('member-roles-edit').click();
  await first.getByLabel('Developer').check();
  await first.getByTestId('member-roles-save').click();
  await page.getByTestId('members-message').filter({ hasText: 'Roles of member01@example.com saved' }).waitFor();
  await first.filter({ hasText: 'Developer' }).waitFor();
  assert.deepEqual(portal.memberRoles('sub-prod', 'member01@example.com').sort(), ['group:Developer', 'group:Viewer']);

  const second = page.locator('[data-testid="member-row"][data-user="member02@example.com"]');
  await second.getByTestId('member-roles-edit').click();
  portal.touchMember('sub-prod', 'member02@example.com', ['group:Admin']);
  await second.getByLabel('Developer').check();
  await second.getByTestId('member-roles-save').click();
  await page.getByTestId('member-conflict').filter({ hasText: 'Someone else changed this member since you opened it; reload to see their change' }).waitFor();
  assert.deepEqual(portal.memberRoles('sub-prod', 'member02@example.com'), ['group:Admin'], "the colleague's change stays");
  await page.screenshot({ path: join(shots, 'portal-member-conflict.png'), fullPage: true });
  await page.getByTestId('member-reload').click();
  await page.getByTestId('member-conflict').waitFor({ state: 'detached' });
  await second.filter({ hasText: 'Administrator' }).waitFor();
});

test('a custom role is created and changed; built-in roles offer no Delete', async () => {
  await page.getByRole('tab', { name: 'Roles' }).click();
  const builtIn = page.locator('[data-testid="role-row"][data-role="group:Admin"]');
  await builtIn.waitFor();
  assert.equal(await page.getByTestId('roles').getByTestId('role-delete').count(), 0, 'no Delete on built-in roles');
  await textMatches(builtIn, /built-in/);

  await page.getByTestId('role-name').fill('Auditor');
  await page.getByTestId('role-description').fill('Reads logs');
  await page.getByTestId('role-form').getByLabel('Viewer').check();
  await page.getByTestId('role-save').click();
  await page.getByTestId('roles-message').filter({ hasText: 'Role Auditor created' }).waitFor();
  const custom = page.getByTestId('role-row').filter({ hasText: 'Auditor' });
  await custom.filter({ hasText: 'Viewer' }).waitFor();
  assert.equal(await custom.getByTestId('role-delete').count(), 1, 'a custom role can be deleted');

  await custom.getByTestId('role-edit').click();
  assert.equal(await page.getByTestId('role-name').inputValue(), 'Auditor', 'the form holds the role');
  await page.getByTestId('role-name').fill('Log auditor');
  await page.getByTestId('role-description').fill('Reads logs and pump history');
  await page.getByTestId('role-save').click();
  await page.getByTestId('roles-message').filter({ hasText: 'Role Log auditor saved' }).waitFor();
  await page.getByTestId('role-row').filter({ hasText: 'Log auditor' }).filter({ hasText: 'Reads logs and pump history' }).waitFor();
  assert.equal(await page.getByTestId('role-row').filter({ hasText: /^Auditor/ }).count(), 0, 'changed, not added');
  await page.screenshot({ path: join(shots, 'portal-roles.png'), fullPage: true });
});

test('an API token is shown once, stored in the keychain as an instance connection, then deleted', async () => {
  await page.getByRole('tab', { name: 'API tokens' }).click();
  await page.getByTestId('api-token-name').fill('deploy');
  assert.ok(await page.getByTestId('api-token-create').isDisabled(), 'a token needs at least one role');
  await page.getByTestId('api-token-principals').getByLabel('Developer').check();
  await page.getByTestId('api-token-create').click();
  const jwt = page.getByTestId('api-token-jwt');
  await jwt.waitFor();
  assert.equal(await jwt.inputValue(), remote.token);
  await page.getByTestId('api-token-store').click();
  await page.getByTestId('api-token-stored').waitFor();
  const instance = (await savedConnections()).find((c) => c.kind === 'instance');
  assert.ok(instance, 'an instance connection was saved');
  assert.equal(await keychain(instance.id).getPassword(), remote.token);
  await page.screenshot({ path: join(shots, 'portal-api-token.png'), fullPage: true });

  await page.getByTestId('api-token-dismiss').click();
  assert.equal(await jwt.count(), 0, 'the token is not shown again');
  await page.getByTestId('api-tokens').getByRole('row', { name: /deploy/ }).filter({ hasText: 'Developer' }).waitFor();

  // A short-lived token: its client id and secret are shown once, next to the JWT.
  await page.getByTestId('api-token-name').fill('refresher');
  await page.getByTestId('api-token-principals').getByLabel('Viewer').check();
  await page.getByTestId('api-token-refreshing').check();
  await page.getByTestId('api-token-refresh').fill('15');
  await page.getByTestId('api-token-create').click();
  const secret = page.getByTestId('api-token-client-secret');
  await secret.waitFor();
  assert.match(await secret.inputValue(), /\S{16}/);
  assert.match(await page.getByTestId('api-token-client-id').inputValue(), /^client-/);
  await page.screenshot({ path: join(shots, 'portal-api-token-refresh.png'), fullPage: true });
  const shownSecret = await secret.inputValue();
  await page.getByTestId('api-token-dismiss').click();
  await page.getByTestId('api-tokens').getByRole('row', { name: /refresher/ }).filter({ hasText: 'refreshed every 15 min' }).waitFor();
  assert.ok(!(await page.content()).includes(shownSecret), 'the client secret is not shown again');

  for (let n = 2; n > 0; n--) {
    await page.getByTestId('api-token-delete').first().click();
    await page.getByTestId('api-token-row').nth(n - 1).waitFor({ state: 'detached' });
  }
  await page.getByTestId('api-tokens').getByText('No API tokens.').waitFor();
});

test('a notification rule is created from the form generated from its type schema', async () => {
  await page.getByRole('tab', { name: 'Notification rules' }).click();
  await page.getByTestId('rules-pipe').fill('orders');
  await page.getByTestId('rules-open').click();
  await page.getByTestId('rules').getByText('No rules on this pipe.').waitFor();

  // A rule whose parameters include a nested object: its fields are filled and sent as an object.
  await page.getByTestId('rule-type').selectOption('pump_completed_value_too_high_over_time');
  await page.getByTestId('schema-object-period').waitFor();
  await page.getByTestId('schema-field-metric').selectOption('Changed entities');
  await page.getByTestId('schema-field-limit').fill('5000');
  await page.getByTestId('schema-field-period.amount').fill('2');
  await page.getByTestId('schema-field-period.unit').selectOption('hours');
  await page.getByTestId('rule-name').fill('Churn');
  await page.getByTestId('rule-create').click();
  await page.getByTestId('rules-message').filter({ hasText: 'Churn' }).waitFor();
  const churn = page.getByTestId('rules').getByRole('row', { name: /Churn/ });
  await churn.waitFor();
  await textMatches(churn, /"period":\{"amount":2,"unit":"hours"\}/, 'the nested object reached the portal');

  // Changing the rule: the form opens with its values, the type stays, the change reaches the portal.
  await churn.getByTestId('rule-edit').click();
  assert.ok(await page.getByTestId('rule-type').isDisabled(), 'the type of a rule cannot be changed');
  assert.equal(await page.getByTestId('schema-field-period.amount').inputValue(), '2');
  assert.equal(await page.getByTestId('schema-field-period.unit').inputValue(), 'hours');
  assert.equal(await page.getByTestId('schema-field-limit').inputValue(), '5000');
  await page.getByTestId('schema-field-period.amount').fill('3');
  await page.getByTestId('schema-field-period.unit').selectOption('days');
  await page.getByTestId('rule-recipients').fill('data-team@example.com');
  await page.screenshot({ path: join(shots, 'portal-rule-edit.png'), fullPage: true });
  await page.getByTestId('rule-create').click();
  await page.getByTestId('rules-message').filter({ hasText: 'Rule “Churn” saved' }).waitFor();
  await churn.filter({ hasText: '"period":{"amount":3,"unit":"days"}' }).filter({ hasText: 'data-team@example.com' }).waitFor();
  await textMatches(churn, /"limit":5000/, 'untouched parameters are kept');
  assert.equal(await page.getByTestId('rules').getByRole('row', { name: /Churn/ }).count(), 1, 'changed, not added');

  await page.getByTestId('rule-type').selectOption('pattern_match');
  await page.getByTestId('schema-field-metric').selectOption('Reason why stopped');
  await page.getByTestId('rule-name').fill('Timeouts');
  await page.getByTestId('rule-create').click();
  await page.getByTestId('rules-error').filter({ hasText: 'patterns' }).waitFor();

  await page.getByTestId('schema-field-patterns').fill('*timed out*\n*refused*');
  await page.getByTestId('schema-field-case_sensitive').check();
  await page.getByTestId('rule-recipients').fill('ops@example.com');
  await page.screenshot({ path: join(shots, 'portal-rule-form.png'), fullPage: true });
  await page.getByTestId('rule-create').click();
  await page.getByTestId('rules-message').filter({ hasText: 'Timeouts' }).waitFor();
  const row = page.getByTestId('rules').getByRole('row', { name: /Timeouts/ });
  await row.waitFor();
  await textMatches(row, /\["\*timed out\*","\*refused\*"\]/);
  await textMatches(row, /ops@example\.com/);
  await page.screenshot({ path: join(shots, 'portal-notification-rule.png'), fullPage: true });
});

test('a triggered rule shows as an alert on the subscription, its pipe and in the alert list', async () => {
  const portalConn = (await savedConnections()).find((c) => c.kind === 'portal')!;
  const res = await fetch(`${hub.url}/desktop/portal/${portalConn.id}/subscriptions/sub-prod/notification-rules`, { headers: { authorization: `Bearer ${hub.token}` } });
  const rules = (await res.json()) as { id: string; name: string }[];
  const rule = rules.find((r) => r.name === 'Timeouts');
  assert.ok(rule);
  portal.trigger('sub-prod', rule.id, 'reading crm timed out after 30 s');

  await page.getByTestId('subscription-view').getByRole('button', { name: 'Reload' }).click();
  await page.getByTestId('subscription-alerts').filter({ hasText: '1 open alert' }).waitFor();
  await page.getByRole('tab', { name: 'Notification rules' }).click();
  await page.getByTestId('rules-chip-orders').getByTestId('rules-chip-alerts').filter({ hasText: '1' }).waitFor();
  await page.getByTestId('portal-section-alerts').click();
  await page.getByTestId('portal-notifications').getByText('reading crm timed out after 30 s').waitFor();
  await page.screenshot({ path: join(shots, 'portal-alerts.png'), fullPage: true });
  await page.getByTestId('portal-section-subscriptions').click();
});

test("Open instance on the subscription opens its stored instance; its badges follow the portal's alerts while shown", async () => {
  await page.getByTestId('subscription-open-instance').filter({ hasText: /^\s*Open instance\s*$/ }).click();
  await page.getByTestId('instance').filter({ hasText: 'Production EU (deploy)' }).waitFor();
  const orders = page.locator('[data-testid="pipe-row"][data-pipe="orders"]');
  const quiet = page.locator('[data-testid="pipe-row"][data-pipe="quiet"]');
  await orders.getByTestId('pipe-alerts').filter({ hasText: '1' }).waitFor();
  await quiet.waitFor();
  assert.equal(await quiet.getByTestId('pipe-alerts').count(), 0, 'a pipe without alerts has no badge');
  await page.screenshot({ path: join(shots, 'remote-pipe-alert-badge.png'), fullPage: true });

  // While the list is on screen, a new alert on quiet and the end of the one on orders show without a reload.
  const portalConn = (await savedConnections()).find((c) => c.kind === 'portal')!;
  const made = await fetch(`${hub.url}/desktop/portal/${portalConn.id}/subscriptions/sub-prod/pipes/quiet/notification-rules`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'pump_failed', name: 'Quiet fails' }),
  });
  const rule = (await made.json()) as { id: string };
  portal.trigger('sub-prod', rule.id, 'quiet failed');
  portal.resolve('sub-prod', 'orders');
  await quiet.getByTestId('pipe-alerts').filter({ hasText: '1' }).waitFor();
  await orders.getByTestId('pipe-alerts').waitFor({ state: 'detached' });
  const pulls = portal.summaryQueries.slice(-2).map((q) => new URLSearchParams(q));
  assert.ok(pulls.every((q) => q.get('since') !== null), `the refreshes pull only what changed: ${portal.summaryQueries.slice(-2).join(' | ')}`);

  await page.getByTestId('instance').getByRole('button').click(); // back to this computer
  await page.getByRole('button', { name: /^Remote/ }).click();
  await page.getByTestId('portal-connections').waitFor();
});

test('Open instance on a subscription without a stored connection creates a token into the keychain and opens it', async () => {
  await page.getByTestId('portal-connection-Company portal').click();
  await page.getByTestId('subscription-sub-test').click();
  await page.getByTestId('subscription-view').getByRole('heading', { name: 'Test' }).waitFor();
  const before = (await savedConnections()).length;
  await page.getByTestId('subscription-open-instance').click();
  const panel = page.getByTestId('open-instance-panel');
  await panel.waitFor();
  assert.ok(await page.getByTestId('open-instance-create').isDisabled(), 'the token needs a role');
  await panel.getByLabel('Viewer').check();
  await page.screenshot({ path: join(shots, 'portal-open-instance.png'), fullPage: true });
  await page.getByTestId('open-instance-create').click();
  await page.getByTestId('instance').filter({ hasText: 'Test' }).waitFor();
  await page.locator('[data-testid="pipe-row"][data-pipe="orders"]').waitFor();
  const after = await savedConnections();
  assert.equal(after.length, before + 1);
  const made = after.find((c) => c.label === 'Test' && c.kind === 'instance');
  assert.ok(made, 'an instance connection was saved');
  assert.equal(await keychain(made.id).getPassword(), remote.token, 'its token is in the keychain');
  assert.ok(!(await page.content()).includes(remote.token), 'the page never saw the token');
  await page.getByTestId('instance').getByRole('button').click();
  await page.getByRole('button', { name: /^Remote/ }).click();
  await page.getByTestId('portal-connections').waitFor();
});

test('a manually added instance is linked to a subscription and gets its alert badges', async () => {
  const panel = page.getByTestId('instance-connections');
  await panel.getByLabel('Instance name').fill('Manual');
  await panel.getByLabel('Instance API address').fill(remote.api);
  await panel.getByLabel('Instance token').fill(remote.token);
  await panel.getByRole('button', { name: 'Add instance' }).click();
  const row = panel.getByTestId('instance-row').filter({ hasText: 'Manual' });
  await row.waitFor();
  assert.equal(await row.getByTestId('instance-link').count(), 0);
  await row.getByTestId('instance-link-toggle').click();
  await row.getByTestId('instance-link-subscription').locator('option', { hasText: 'sub-prod' }).waitFor({ state: 'attached' });
  await row.getByTestId('instance-link-subscription').selectOption('sub-prod');
  await page.screenshot({ path: join(shots, 'remote-instance-link.png'), fullPage: true });
  await row.getByTestId('instance-link-save').click();
  await row.getByTestId('instance-link').filter({ hasText: 'sub-prod' }).filter({ hasText: 'Company portal' }).waitFor();
  await row.getByTestId('instance-open').click();
  await page.locator('[data-testid="pipe-row"][data-pipe="quiet"]').getByTestId('pipe-alerts').filter({ hasText: '1' }).waitFor();
  await page.getByTestId('instance').getByRole('button').click();
  await page.getByRole('button', { name: /^Remote/ }).click();
  await page.getByTestId('portal-connections').waitFor();
});

test('axe: the portal pages have no critical or serious WCAG A/AA finding, light and dark', async () => {
  const found: string[] = [];
  await page.goto(`${hub.url}/#/remote`);
  await page.getByTestId('portal-connection-Company portal').click();
  await page.getByTestId('portal-section-subscriptions').waitFor();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const section of ['subscriptions', 'alerts', 'portal'] as const) {
      await page.getByTestId(`portal-section-${section}`).click();
      if (section === 'subscriptions') await page.getByTestId('subscriptions').waitFor();
      const f = await axeViolations(page);
      if (f.length > 0) found.push(`${section} (${colorScheme}):\n  ${describeFindings(f)}`);
    }
    await page.getByTestId('portal-section-subscriptions').click();
    await page.getByTestId('subscription-sub-prod').click();
    await page.getByTestId('subscription-view').waitFor();
    const f = await axeViolations(page);
    if (f.length > 0) found.push(`subscription (${colorScheme}):\n  ${describeFindings(f)}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(found.length, 0, found.join('\n'));
});

test('removing the portal deletes its token from the keychain', async () => {
  const before = (await savedConnections()).find((c) => c.kind === 'portal');
  assert.ok(before);
  await page.getByTestId('portal-connections').getByTestId('portal-remove').click();
  await page.getByTestId('portal-connections').getByText('No portal yet.').waitFor();
  assert.equal(await keychain(before.id).getPassword(), null);
  assert.equal((await savedConnections()).filter((c) => c.kind === 'portal').length, 0);
});
