// The desktop's portal routes over HTTP: the real hub (host routes, real OS keychain) in front of the
// spec-shaped portal server, with a second hub process as the subscription's remote instance.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { AsyncEntry } from '@napi-rs/keyring';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';
import { startPortal, defaultPortalSeed, type PortalServer, type PortalUser } from '../../helpers/portal-server.js';
import { PortalClient } from '../../../main/remote/portal-client.js';

let hub: HubProcess;
let remote: HubProcess;
let portal: PortalServer;
let ada: PortalUser;
let bob: PortalUser;
let conn = '';
const created: string[] = [];

const keychain = (id: string): AsyncEntry => new AsyncEntry('datahub-desktop', `connection:${id}`, { linux: { store: 'secret-service' } });

async function desk<T = unknown>(path: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: T; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${hub.token}` };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${hub.url}/desktop${path}`, { method: init.method ?? 'GET', headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T, text };
}

interface Conn {
  id: string;
  kind: string;
  label: string;
  url: string;
  subscription?: string;
  portal?: string;
}
type Rec = Record<string, unknown>;

before(async () => {
  remote = await startHub();
  const seed = defaultPortalSeed(remote.api, { mintJwt: () => remote.token });
  ada = seed.ada;
  bob = seed.bob;
  portal = await startPortal(seed);
  hub = await startHub({ args: ['--log'] });
});

after(async () => {
  for (const id of created) await keychain(id).deletePassword().catch(() => false);
  await portal?.close();
  await hub?.stop();
  await remote?.stop();
  if (hub) removeDir(hub.dataDir);
  if (remote) removeDir(remote.dataDir);
});

test('a portal token is verified, kept only in the OS keychain, and never answered back', async () => {
  const refused = await desk('/connections', { method: 'POST', json: { kind: 'portal', label: 'Portal', url: portal.url, token: 'not-a-real-token' } });
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.text, /portal refused the token/);
  assert.deepEqual((await desk<Conn[]>('/connections')).body, [], 'a refused token is not saved');

  const res = await desk<Conn>('/connections', { method: 'POST', json: { kind: 'portal', label: 'Our portal', url: portal.url, token: ada.token } });
  assert.equal(res.status, 201, res.text);
  conn = res.body.id;
  created.push(conn);
  assert.equal(res.body.url, portal.api, 'the address is normalised to the API root');
  assert.ok(!res.text.includes(ada.token));

  const listed = await desk<Conn[]>('/connections');
  assert.deepEqual(listed.body.map((c) => c.label), ['Our portal']);
  assert.ok(!listed.text.includes(ada.token), 'the list never carries a token');
  const file = readFileSync(join(hub.dataDir, 'connections.json'), 'utf8');
  assert.ok(!file.includes(ada.token), 'connections.json never holds the token');
  assert.equal(await keychain(conn).getPassword(), ada.token, 'the token is in the OS keychain');
  assert.ok(portal.seenAuthorization.includes(`Bearer ${ada.token}`), 'the portal received the token as a Bearer header');

  const bad = await desk('/connections', { method: 'POST', json: { kind: 'portal', label: 'x', url: 'ftp://example.com', token: 't' } });
  assert.equal(bad.status, 400, bad.text);
  const missing = await desk('/connections', { method: 'POST', json: { kind: 'portal', label: 'x', url: portal.url } });
  assert.equal(missing.status, 400);
});

test('portal info lists the login providers; the profile is readable and editable', async () => {
  const info = await desk<{ authentication_providers: { id: string }[] }>(`/portal/${conn}/info`);
  assert.equal(info.status, 200, info.text);
  assert.deepEqual(info.body.authentication_providers.map((p) => p.id), ['internal', 'example-sso']);
  const changed = await desk<{ userInfo: { profile: { name: string; email: string } } }>(`/portal/${conn}/profile`, { method: 'PUT', json: { name: 'Ada King' } });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.userInfo.profile.name, 'Ada King');
  assert.equal(changed.body.userInfo.profile.email, 'ada@example.com');
  assert.equal((await desk(`/portal/nope/profile`)).status, 404);
});

test('subscriptions: list, edit with _updated, a stale _updated gives a clear 409, the VPN key stays masked', async () => {
  const list = await desk<Rec[]>(`/portal/${conn}/subscriptions`);
  assert.deepEqual(list.body.map((s) => s['name']), ['Production', 'Test']);
  const sub = (await desk<Rec>(`/portal/${conn}/subscriptions/sub-prod`)).body;
  const products = sub['products'] as { vpn: { connections: { shared_key: string }[] } };
  assert.equal(products.vpn.connections[0]!.shared_key, '****', 'the shared key is masked');
  assert.ok(!JSON.stringify(sub).includes('vpn-secret-9f2c'));

  const edit = await desk<Rec>(`/portal/${conn}/subscriptions/sub-prod`, { method: 'PUT', json: { _updated: sub['_updated'], name: 'Production EU', products } });
  assert.equal(edit.status, 200, edit.text);
  assert.equal(edit.body['name'], 'Production EU');
  assert.notDeepEqual(edit.body['_updated'], sub['_updated']);
  assert.equal(portal.storedSharedKey('sub-prod'), 'vpn-secret-9f2c', 'sending **** keeps the stored key');

  const stale = await desk<{ error: string }>(`/portal/${conn}/subscriptions/sub-prod`, { method: 'PUT', json: { _updated: sub['_updated'], name: 'Mine' } });
  assert.equal(stale.status, 409, stale.text);
  assert.equal(stale.body.error, 'Someone else changed this subscription since you opened it; reload to see their change');
  assert.equal((await desk<Rec>(`/portal/${conn}/subscriptions/sub-prod`)).body['name'], 'Production EU', 'the stale edit wrote nothing');

  // A new VPN shared key is sent to the portal and never echoed back.
  const current = (await desk<Rec>(`/portal/${conn}/subscriptions/sub-prod`)).body;
  const vpn = structuredClone(current['products']) as { vpn: { connections: { shared_key: string }[] } };
  vpn.vpn.connections[0]!.shared_key = 'rotated-key-77d1';
  const rotated = await desk<Rec>(`/portal/${conn}/subscriptions/sub-prod`, { method: 'PUT', json: { _updated: current['_updated'], products: vpn } });
  assert.equal(rotated.status, 200, rotated.text);
  assert.equal(portal.storedSharedKey('sub-prod'), 'rotated-key-77d1', 'the portal stored the new key');
  assert.ok(!rotated.text.includes('rotated-key-77d1'), 'the answer never carries the new key');
  assert.equal((rotated.body['products'] as typeof vpn).vpn.connections[0]!.shared_key, '****');
  assert.ok(!(await desk(`/portal/${conn}/subscriptions/sub-prod`)).text.includes('rotated-key-77d1'));

  const noVersion = await desk(`/portal/${conn}/subscriptions/sub-prod`, { method: 'PUT', json: { name: 'x' } });
  assert.equal(noVersion.status, 400);
  assert.equal((await desk(`/portal/${conn}/subscriptions/nope`)).status, 404);

  const renewed = await desk<{ licenses: { 'is-active-license': boolean; original: { expires: string } }[] }>(`/portal/${conn}/subscriptions/sub-prod/licenses`, { method: 'POST' });
  assert.equal(renewed.status, 200, renewed.text);
  assert.equal(renewed.body.licenses.length, 2);
  assert.deepEqual(renewed.body.licenses.map((l) => l['is-active-license']), [false, true]);
  assert.ok(Date.parse(renewed.body.licenses[1]!.original.expires) > Date.parse(renewed.body.licenses[0]!.original.expires));
});

test('members page by page, invite, roles; a member of nothing is refused', async () => {
  const first = await desk<{ user: { email: string } }[]>(`/portal/${conn}/subscriptions/sub-prod/members?start=0&limit=5`);
  const second = await desk<{ user: { email: string } }[]>(`/portal/${conn}/subscriptions/sub-prod/members?start=5&limit=5`);
  assert.equal(first.body.length, 5);
  assert.equal(second.body.length, 5);
  assert.equal(first.body[0]!.user.email, 'ada@example.com');
  assert.ok(!first.body.some((m) => second.body.some((n) => n.user.email === m.user.email)), 'pages do not overlap');

  const roles = await desk<{ id: string }[]>(`/portal/${conn}/subscriptions/sub-prod/roles`);
  assert.ok(roles.body.some((r) => r.id === 'group:Developer'));
  const custom = await desk<{ id: string }>(`/portal/${conn}/subscriptions/sub-prod/roles`, { method: 'POST', json: { name: 'Auditor', description: 'Reads logs', 'child-roles': ['group:Viewer'] } });
  assert.equal(custom.status, 200, custom.text);

  const invited = await desk<{ user: { email: string }; roles: string[] }>(`/portal/${conn}/subscriptions/sub-prod/members`, {
    method: 'POST',
    json: { email: 'grace@example.com', roles: ['group:Developer', custom.body.id] },
  });
  assert.equal(invited.status, 200, invited.text);
  const all = await desk<{ user: { email: string } }[]>(`/portal/${conn}/subscriptions/sub-prod/members`);
  assert.ok(all.body.some((m) => m.user.email === 'grace@example.com'));
  const again = await desk<{ error: string }>(`/portal/${conn}/subscriptions/sub-prod/members`, { method: 'POST', json: { email: 'grace@example.com', roles: [] } });
  assert.equal(again.status, 409);
  assert.equal((await desk(`/portal/${conn}/subscriptions/sub-prod/members`, { method: 'POST', json: { email: 'not-an-address', roles: [] } })).status, 400);

  // A role change carries the member's _updated; a stale one is a clear conflict, a missing one a 400.
  type M = { _updated: unknown; user: { user_id: string }; roles: string[] };
  const member = (await desk<M>(`/portal/${conn}/subscriptions/sub-prod/members/${encodeURIComponent('member01@example.com')}`)).body;
  assert.deepEqual(member.roles, ['group:Viewer']);
  const memberUrl = `/portal/${conn}/subscriptions/sub-prod/members/${encodeURIComponent(member.user.user_id)}`;
  const noMemberVersion = await desk<{ detail: string }>(memberUrl, { method: 'PUT', json: { roles: ['group:Developer'] } });
  assert.equal(noMemberVersion.status, 400, noMemberVersion.text);
  assert.match(noMemberVersion.body.detail, /_updated/);
  const promoted = await desk<M>(memberUrl, { method: 'PUT', json: { _updated: member._updated, roles: ['group:Developer', custom.body.id] } });
  assert.equal(promoted.status, 200, promoted.text);
  assert.deepEqual(promoted.body.roles, ['group:Developer', custom.body.id]);
  assert.notDeepEqual(promoted.body._updated, member._updated);
  const staleMember = await desk<{ error: string }>(memberUrl, { method: 'PUT', json: { _updated: member._updated, roles: ['group:Admin'] } });
  assert.equal(staleMember.status, 409, staleMember.text);
  assert.equal(staleMember.body.error, 'Someone else changed this member since you opened it; reload to see their change');
  assert.deepEqual(portal.memberRoles('sub-prod', member.user.user_id), ['group:Developer', custom.body.id], 'the stale change wrote nothing');

  const bobConn = await desk<Conn>('/connections', { method: 'POST', json: { kind: 'portal', label: 'Bob', url: portal.api, token: bob.token } });
  assert.equal(bobConn.status, 201);
  created.push(bobConn.body.id);
  const refused = await desk<{ error: string }>(`/portal/${bobConn.body.id}/subscriptions/sub-prod`);
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /does not allow/);
  assert.equal((await desk(`/connections/${bobConn.body.id}`, { method: 'DELETE' })).status, 204);
});

test('an API token is shown once, can be stored as an instance connection, and deleted', async () => {
  const exp = Math.floor(Date.now() / 1000) + 30 * 86400;
  const noRoles = await desk<{ detail: string }>(`/portal/${conn}/subscriptions/sub-prod/api-tokens`, { method: 'POST', json: { name: 'ci', exp } });
  assert.equal(noRoles.status, 400, 'a token names the roles it acts with; no server default is relied on');
  const made = await desk<{ id: string; jwt_string: string; payload: { principals: Record<string, string[]> } }>(`/portal/${conn}/subscriptions/sub-prod/api-tokens`, {
    method: 'POST',
    json: { name: 'ci', description: 'for CI', exp, principals: ['group:Developer'] },
  });
  assert.equal(made.status, 200, made.text);
  assert.equal(made.body.jwt_string, remote.token);
  assert.deepEqual(made.body.payload.principals, { 'sub-prod': ['group:Developer'] });
  const list = await desk<Rec[]>(`/portal/${conn}/subscriptions/sub-prod/api-tokens`);
  assert.equal(list.body.length, 1);
  assert.ok(!list.text.includes(made.body.jwt_string), 'the list never carries the signed token');

  const refreshing = await desk<{ id: string; client_id: string; client_secret: string; refresh_interval: number; payload: { exp: number; iat: number } }>(
    `/portal/${conn}/subscriptions/sub-prod/api-tokens`,
    { method: 'POST', json: { name: 'short-lived', exp, principals: ['group:Viewer'], refresh_interval: 600 } },
  );
  assert.equal(refreshing.status, 200, refreshing.text);
  assert.equal(refreshing.body.refresh_interval, 600);
  assert.match(refreshing.body.client_id, /\S/);
  assert.match(refreshing.body.client_secret, /\S{16}/, 'the client secret comes with the creation');
  assert.equal(refreshing.body.payload.exp - refreshing.body.payload.iat, 600, 'the JWT lives one refresh interval');
  const listed = await desk<{ id: string; client_id?: string }[]>(`/portal/${conn}/subscriptions/sub-prod/api-tokens`);
  assert.equal(listed.body.find((t) => t.id === refreshing.body.id)?.client_id, refreshing.body.client_id, 'the client id stays visible');
  assert.ok(!listed.text.includes(refreshing.body.client_secret), 'the client secret is shown only once');
  assert.equal((await desk(`/portal/${conn}/subscriptions/sub-prod/api-tokens/${refreshing.body.id}`, { method: 'DELETE' })).status, 204);
  const badRole = await desk(`/portal/${conn}/subscriptions/sub-prod/api-tokens`, { method: 'POST', json: { exp, principals: ['group:Nobody'] } });
  assert.equal(badRole.status, 400, 'an unknown role is refused by the portal');

  const stored = await desk<Conn>(`/portal/${conn}/subscriptions/sub-prod/api-tokens/${made.body.id}/store`, { method: 'POST', json: { label: 'Production instance' } });
  assert.equal(stored.status, 201, stored.text);
  created.push(stored.body.id);
  assert.equal(stored.body.kind, 'instance');
  assert.equal(stored.body.url, remote.api);
  assert.equal(stored.body.subscription, 'sub-prod');
  assert.equal(stored.body.portal, conn);
  assert.ok(!stored.text.includes(made.body.jwt_string));
  assert.equal(await keychain(stored.body.id).getPassword(), made.body.jwt_string);
  const twice = await desk(`/portal/${conn}/subscriptions/sub-prod/api-tokens/${made.body.id}/store`, { method: 'POST', json: {} });
  assert.equal(twice.status, 404, 'a token is handed over once');

  const past = await desk(`/portal/${conn}/subscriptions/sub-prod/api-tokens`, { method: 'POST', json: { exp: 1000, principals: ['group:Viewer'] } });
  assert.equal(past.status, 400);
  assert.equal((await desk(`/portal/${conn}/subscriptions/sub-prod/api-tokens/${made.body.id}`, { method: 'DELETE' })).status, 204);
  assert.deepEqual((await desk<Rec[]>(`/portal/${conn}/subscriptions/sub-prod/api-tokens`)).body, []);
  assert.equal((await desk(`/portal/${conn}/subscriptions/sub-prod/api-tokens/${made.body.id}`, { method: 'DELETE' })).status, 404);
});

test('notification rules are checked against their type schema and raise alerts in the summary', async () => {
  const types = await desk<{ type: string; schema: Rec }[]>(`/portal/${conn}/subscriptions/sub-prod/pipes/orders/rule-types`);
  const pattern = types.body.find((t) => t.type === 'pattern_match');
  assert.ok(pattern && pattern.schema['type'] === 'object');

  const invalid = await desk<{ detail: string }>(`/portal/${conn}/subscriptions/sub-prod/pipes/orders/notification-rules`, {
    method: 'POST',
    json: { type: 'pattern_match', name: 'Timeouts', extra_rule_info: { metric: 'Reason why stopped' } },
  });
  assert.equal(invalid.status, 400, invalid.text);
  assert.match(invalid.body.detail, /patterns/);

  const rule = await desk<{ id: string; pipe_id: string }>(`/portal/${conn}/subscriptions/sub-prod/pipes/orders/notification-rules`, {
    method: 'POST',
    json: { type: 'pattern_match', name: 'Timeouts', extra_rule_info: { metric: 'Reason why stopped', patterns: ['*timed out*'] }, recipients: [{ id: 'ada@example.com', type: 'email', methods: ['email'] }] },
  });
  assert.equal(rule.status, 200, rule.text);
  assert.equal(rule.body.pipe_id, 'orders');

  let summary = await desk<{ pipes: Record<string, number>; entries: Rec[] }>(`/portal/${conn}/notification-summary?subscription=sub-prod`);
  assert.equal(summary.status, 200, summary.text);
  assert.deepEqual(summary.body.pipes, { orders: 0 });
  assert.ok(summary.body.entries.some((e) => e['_id'] === 'sub-prod'), 'one entry per subscription');

  portal.trigger('sub-prod', rule.body.id, 'read from crm timed out after 30 s');
  summary = await desk(`/portal/${conn}/notification-summary?subscription=sub-prod`);
  assert.deepEqual(summary.body.pipes, { orders: 1 });
  const instance = (await desk<Conn[]>('/connections')).body.find((c) => c.kind === 'instance');
  assert.ok(instance);
  const badges = await desk<{ pipes: Record<string, number> }>(`/portal-alerts/${instance.id}`);
  assert.deepEqual(badges.body.pipes, { orders: 1 }, 'an instance opened from the portal gets its pipe alerts');

  const notes = await desk<{ msg: string }[]>(`/portal/${conn}/notifications`);
  assert.deepEqual(notes.body.map((n) => n.msg), ['read from crm timed out after 30 s']);
  const perRule = await desk<Rec[]>(`/portal/${conn}/subscriptions/sub-prod/pipes/orders/notification-rules/${rule.body.id}/notifications?limit=5`);
  assert.equal(perRule.body.length, 1);

  portal.resolve('sub-prod', 'orders');
  summary = await desk(`/portal/${conn}/notification-summary?subscription=sub-prod`);
  assert.deepEqual(summary.body.pipes, { orders: 0 }, 'a cleared pipe is back to ok');

  const monitoring = await desk<Rec>(`/portal/${conn}/monitoring/sub-prod?pipe=orders`);
  assert.equal(monitoring.body['pipe_id'], 'orders');
});

test('the notification summary is read page by page, each page continuing from the last _updated', async () => {
  for (const pipe of ['p1', 'p2', 'p3', 'p4', 'p5']) {
    const r = await desk(`/portal/${conn}/subscriptions/sub-test/pipes/${pipe}/notification-rules`, { method: 'POST', json: { type: 'pump_failed', name: `fails ${pipe}` } });
    assert.equal(r.status, 200, r.text);
  }
  const first = portal.summaryQueries.length;
  const client = PortalClient.withToken(portal.api, ada.token);
  const entries = await client.notificationSummary({ pageSize: 2 });
  const queries = portal.summaryQueries.slice(first).map((q) => new URLSearchParams(q));
  assert.ok(queries.length >= 5, `${queries.length} pages of two`);
  assert.equal(queries[0]!.get('since'), null, 'the first page starts from the beginning');
  const sinces = queries.slice(1).map((q) => Number(q.get('since')));
  assert.ok(sinces.every((v, i) => i === 0 || v > sinces[i - 1]!), `each page continues after the previous one: ${sinces.join(', ')}`);
  assert.ok(queries.every((q) => q.get('limit') === '2'));
  const ids = entries.map((e) => e._id);
  assert.equal(new Set(ids).size, ids.length, 'no entry twice');
  for (const id of ['sub-prod', 'sub-test', 'sub-prod_orders', 'sub-test_p1', 'sub-test_p5']) assert.ok(ids.includes(id), `${id} is in the summary`);
  const whole = await client.notificationSummary();
  assert.deepEqual(new Set(whole.map((e) => e._id)), new Set(ids), 'small pages give the same summary as one big page');
});

test('the stand-in follows the spec: rule types and metrics, built-in subscription and heartbeat rules, deleted entries only for their members', async () => {
  const ops: PortalUser = { user_id: 'ops', email: 'ops@example.com', name: 'Ops', token: `portal-ops-${Date.now()}` };
  const other: PortalUser = { user_id: 'other', email: 'other@example.com', name: 'Other', token: `portal-other-${Date.now()}` };
  const second = await startPortal({
    users: [ops, other],
    subscriptions: [
      { id: 'eu_north', name: 'EU north', instanceUrl: remote.api, members: [{ user_id: 'ops', roles: ['group:Admin'] }], licenseExpiresInDays: 10 },
      { id: 'gone', name: 'Soon gone', instanceUrl: remote.api, members: [{ user_id: 'ops', roles: ['group:Admin'] }] },
      { id: 'others', name: 'Not yours', instanceUrl: remote.api, members: [{ user_id: 'other', roles: ['group:Admin'] }] },
    ],
    staleStatus: 400,
  });
  try {
    const c = await desk<Conn>('/connections', { method: 'POST', json: { kind: 'portal', label: 'Second', url: second.url, token: ops.token } });
    assert.equal(c.status, 201, c.text);
    created.push(c.body.id);
    const base = `/portal/${c.body.id}`;

    const info = await desk<{ status: Rec }>(`${base}/info`);
    for (const field of ['build-date', 'git-revision', 'ci-buildnumber', 'revision', 'start_time', 'uptime', 'version']) assert.equal(typeof info.body.status[field], 'string', `status.${field}`);

    const types = (await desk<{ type: string; name: string; schema: Rec }[]>(`${base}/subscriptions/eu_north/pipes/my_pipe/rule-types`)).body;
    assert.deepEqual(types.map((t) => t.name), [
      'Value too low',
      'Value too high',
      'Value too low over time',
      'Value too high over time',
      'Pump started overdue',
      'Pump finished overdue',
      'Pump failed',
      'Restore completed',
      'Pump offset set',
      'Pattern match',
    ], 'every rule type of the spec but the built-in heartbeat is offered');
    const metrics = ((types[0]!.schema['properties'] as Rec)['metric'] as { enum: string[] }).enum;
    for (const m of ['Failed retried entities', 'Successfully retried entities', 'Dead entities', 'Transform time']) assert.ok(metrics.includes(m), m);

    // A pipe id and a subscription id with underscores: the summary keeps both intact.
    const rule = await desk<{ id: string }>(`${base}/subscriptions/eu_north/pipes/my_pipe/notification-rules`, {
      method: 'POST',
      json: { type: 'pattern_match', name: 'Exact', extra_rule_info: { metric: 'Reason why stopped', patterns: ['*Timeout*'], case_sensitive: true } },
    });
    assert.equal(rule.status, 200, rule.text);
    assert.throws(() => second.trigger('eu_north', rule.body.id, 'socket timeout'), /does not match/, 'case_sensitive is honoured');
    assert.throws(() => second.trigger('eu_north', rule.body.id, ''), /does not match/, 'an empty value never matches');
    second.trigger('eu_north', rule.body.id, 'read Timeout after 30 s');

    // The license expires in 10 days: the built-in rule alerts on the subscription entry, not on a pipe.
    let sum = await desk<{ entries: Rec[]; pipes: Record<string, number>; subscriptions: Record<string, number> }>(`${base}/notification-summary?subscription=eu_north`);
    assert.equal(sum.status, 200, sum.text);
    assert.deepEqual(sum.body.pipes, { my_pipe: 1 });
    assert.deepEqual(sum.body.subscriptions, { eu_north: 1 });
    const subEntry = sum.body.entries.find((e) => e['_id'] === 'eu_north')!;
    assert.equal(subEntry['status'], 'failed');
    assert.deepEqual((subEntry['notifications'] as Rec[]).map((n) => n['notification_rule_type']), ['license_expiration_date']);
    const pipeEntry = sum.body.entries.find((e) => e['_id'] === 'eu_north_my_pipe')!;
    assert.equal(pipeEntry['subscription_id'], 'eu_north');
    assert.equal(pipeEntry['pipe_id'], 'my_pipe');

    second.raiseSubscriptionAlert('eu_north', 'store_disk_usage_upper_limit', 'the store uses 95 % of its disk');
    sum = await desk(`${base}/notification-summary?subscription=eu_north`);
    assert.deepEqual(sum.body.subscriptions, { eu_north: 2 });
    assert.equal((await desk(`${base}/subscriptions/eu_north/licenses`, { method: 'POST' })).status, 200);
    second.clearSubscriptionAlert('eu_north', 'store_disk_usage_upper_limit');
    sum = await desk(`${base}/notification-summary?subscription=eu_north`);
    assert.deepEqual(sum.body.subscriptions, { eu_north: 0 }, 'renewing the license clears its alert');

    // The heartbeat rule alerts in the alert list only: the pipe's summary status is unchanged.
    second.resolve('eu_north', 'my_pipe');
    second.heartbeatOverdue('eu_north');
    sum = await desk(`${base}/notification-summary?subscription=eu_north`);
    assert.deepEqual(sum.body.pipes, { my_pipe: 0 });
    const alertList = await desk<{ notification_rule_type: string; pipe_id: string }[]>(`${base}/notifications`);
    assert.ok(alertList.body.some((n) => n.notification_rule_type === 'node_heartbeat_overdue' && n.pipe_id === 'my_pipe'));

    // Removing the pipe's last rule, and a whole subscription, reports them deleted; to their members only.
    assert.equal((await desk(`${base}/subscriptions/eu_north/pipes/my_pipe/notification-rules/${rule.body.id}`, { method: 'DELETE' })).status, 204);
    const del = await fetch(`${second.api}/subscriptions/gone`, { method: 'DELETE', headers: { authorization: `Bearer ${ops.token}` } });
    assert.equal(del.status, 200);
    const pull = async (who: PortalUser): Promise<Rec[]> =>
      (await (await fetch(`${second.api}/notifications-summary?deleted=true`, { headers: { authorization: `Bearer ${who.token}` } })).json()) as Rec[];
    const mine = await pull(ops);
    const deleted = mine.filter((e) => e['_deleted'] === true);
    assert.deepEqual(deleted.map((e) => [e['_id'], e['subscription_id'], e['pipe_id']]).sort(), [
      ['eu_north_my_pipe', 'eu_north', 'my_pipe'],
      ['gone', 'gone', undefined],
    ]);
    assert.ok(deleted.every((e) => !('status' in e)), 'a deleted entry has no status');
    const theirs = await pull(other);
    assert.deepEqual(theirs.map((e) => e['_id']), ['others'], "another user sees neither the deleted subscription nor the other's pipes");
    sum = await desk(`${base}/notification-summary`);
    assert.deepEqual(sum.body.entries.map((e) => e['_id']).sort(), ['eu_north'], 'the host drops deleted entries from what it keeps');

    // Profile: nickname and a Terms of Service approval; portal-admin powers are not for everyone.
    const nick = await desk<{ userInfo: { profile: { nickname: string } } }>(`${base}/profile`, { method: 'PUT', json: { nickname: 'opsy', approvedTos: 4 } });
    assert.equal(nick.status, 200, nick.text);
    assert.equal(nick.body.userInfo.profile.nickname, 'opsy');
    assert.equal(second.approvedTos('ops'), 4);
    assert.equal((await desk(`${base}/profile`, { method: 'PUT', json: { approvedTos: 99 } })).status, 400);
    assert.equal((await desk(`${base}/profile`, { method: 'PUT', json: {} })).status, 400, 'an empty change is refused');
    const admin = await fetch(`${second.api}/profile`, { method: 'PUT', headers: { authorization: `Bearer ${ops.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ userInfo: { isPortalAdmin: true } }) });
    assert.equal(admin.status, 403);
    await admin.text();

    // This portal reports a stale _updated as a 400 naming the field: the desktop still calls it a conflict.
    const before = (await desk<Rec>(`${base}/subscriptions/eu_north`)).body;
    second.touch('eu_north', { description: 'by someone else' });
    const stale = await desk<{ error: string }>(`${base}/subscriptions/eu_north`, { method: 'PUT', json: { _updated: before['_updated'], name: 'Mine' } });
    assert.equal(stale.status, 409, stale.text);
    assert.equal(stale.body.error, 'Someone else changed this subscription since you opened it; reload to see their change');
    assert.equal((await desk(`/connections/${c.body.id}`, { method: 'DELETE' })).status, 204);
  } finally {
    await second.close();
  }
});

test('an instance connection is checked against the instance API before it is saved', async () => {
  const wrong = await desk<{ error: string }>('/connections', { method: 'POST', json: { kind: 'instance', label: 'Remote', url: remote.url, token: 'nope' } });
  assert.equal(wrong.status, 403, wrong.text);
  assert.match(wrong.body.error, /instance refused the token/);
  const unreachable = await desk<{ error: string }>('/connections', { method: 'POST', json: { kind: 'instance', label: 'Gone', url: 'http://127.0.0.1:9/api', token: 'x' } });
  assert.equal(unreachable.status, 502, unreachable.text);
  const ok = await desk<Conn>('/connections', { method: 'POST', json: { kind: 'instance', label: 'Remote', url: remote.url, token: remote.token } });
  assert.equal(ok.status, 201, ok.text);
  created.push(ok.body.id);
  assert.equal(ok.body.url, remote.api);
  const noPortal = await desk<Conn>(`/portal/${ok.body.id}/subscriptions`);
  assert.equal(noPortal.status, 400, 'an instance connection is not a portal');
  assert.deepEqual((await desk<{ pipes: Record<string, number> }>(`/portal-alerts/${ok.body.id}`)).body.pipes, {}, 'no portal, no alerts');
});

test('a plain http:// address off this computer is refused unless the user confirms sending the token unencrypted', async () => {
  const refused = await desk<{ error: string; detail: string }>('/connections', { method: 'POST', json: { kind: 'portal', label: 'x', url: 'http://portal.example.invalid', token: ada.token } });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.body.error, /plain http:\/\/, so its token would travel unencrypted/);
  assert.ok(!portal.seenAuthorization.some((h) => h.includes('example.invalid')));
  const confirmed = await desk<{ error: string }>('/connections', {
    method: 'POST',
    json: { kind: 'instance', label: 'x', url: 'http://instance.example.invalid/api', token: 'tok', allowInsecure: true },
  });
  assert.equal(confirmed.status, 502, 'once confirmed, the address is tried (and here cannot be reached)');
  const https = await desk('/connections', { method: 'POST', json: { kind: 'instance', label: 'x', url: 'https://instance.example.invalid/api', token: 'tok' } });
  assert.equal(https.status, 502, 'https:// needs no confirmation');
  const loopback = await desk('/connections', { method: 'POST', json: { kind: 'instance', label: 'x', url: 'http://localhost:9/api', token: 'tok' } });
  assert.equal(loopback.status, 502, 'http:// on this computer needs no confirmation');
});

test("a subscription's instance is connected in one step: a new API token goes from the portal into the keychain", async () => {
  const none = await desk(`/portal/${conn}/subscriptions/sub-test/instance-connection`, { method: 'POST', json: { days: 30 } });
  assert.equal(none.status, 400, 'the roles of the token are required');
  portal.setInstanceUrl('sub-test', 'http://instance.example.invalid/api');
  const insecure = await desk<{ error: string }>(`/portal/${conn}/subscriptions/sub-test/instance-connection`, { method: 'POST', json: { principals: ['group:Viewer'], days: 30 } });
  assert.equal(insecure.status, 400, insecure.text);
  assert.match(insecure.body.error, /unencrypted/);
  assert.deepEqual((await desk<Rec[]>(`/portal/${conn}/subscriptions/sub-test/api-tokens`)).body, [], 'no token was created for an address it cannot safely go to');
  portal.setInstanceUrl('sub-test', remote.api);
  const res = await desk<Conn>(`/portal/${conn}/subscriptions/sub-test/instance-connection`, { method: 'POST', json: { principals: ['group:Developer'], days: 30, label: 'Test instance' } });
  assert.equal(res.status, 201, res.text);
  created.push(res.body.id);
  assert.deepEqual([res.body.kind, res.body.label, res.body.subscription, res.body.portal, res.body.url], ['instance', 'Test instance', 'sub-test', conn, remote.api]);
  assert.ok(!res.text.includes(remote.token), 'the new token is not in the answer');
  assert.equal(await keychain(res.body.id).getPassword(), remote.token, 'the token went to the keychain');
  const tokens = await desk<{ name: string; payload: { principals: Record<string, string[]> } }[]>(`/portal/${conn}/subscriptions/sub-test/api-tokens`);
  assert.deepEqual(tokens.body.map((t) => [t.name, t.payload.principals['sub-test']]), [['Datahub Desktop', ['group:Developer']]]);
  const pipes = await fetch(`${hub.url}/desktop/remote/${res.body.id}/api/pipes`, { headers: { authorization: `Bearer ${hub.token}` } });
  assert.equal(pipes.status, 200, 'the instance opens through the host');
  await pipes.text();
});

test('a manually added instance can be linked to a subscription for its alert badges, and unlinked', async () => {
  const manual = await desk<Conn>('/connections', { method: 'POST', json: { kind: 'instance', label: 'Manual', url: remote.api, token: remote.token } });
  assert.equal(manual.status, 201, manual.text);
  created.push(manual.body.id);
  assert.deepEqual((await desk<{ pipes: Record<string, number> }>(`/portal-alerts/${manual.body.id}`)).body.pipes, {});

  const unknownSub = await desk(`/connections/${manual.body.id}`, { method: 'PATCH', json: { portal: conn, subscription: 'nope' } });
  assert.equal(unknownSub.status, 404, 'the subscription must exist on the portal');
  const half = await desk(`/connections/${manual.body.id}`, { method: 'PATCH', json: { portal: conn, subscription: null } });
  assert.equal(half.status, 400);
  const notPortal = await desk(`/connections/${manual.body.id}`, { method: 'PATCH', json: { portal: manual.body.id, subscription: 'sub-prod' } });
  assert.equal(notPortal.status, 400);
  const linked = await desk<Conn>(`/connections/${manual.body.id}`, { method: 'PATCH', json: { portal: conn, subscription: 'sub-prod' } });
  assert.equal(linked.status, 200, linked.text);
  assert.deepEqual([linked.body.portal, linked.body.subscription], [conn, 'sub-prod']);

  const rules = await desk<{ id: string; name: string }[]>(`/portal/${conn}/subscriptions/sub-prod/pipes/orders/notification-rules`);
  portal.trigger('sub-prod', rules.body.find((r) => r.name === 'Timeouts')!.id, 'crm timed out again');
  assert.deepEqual((await desk<{ pipes: Record<string, number> }>(`/portal-alerts/${manual.body.id}`)).body.pipes, { orders: 1 }, 'the linked instance gets the badges');

  const unlinked = await desk<Conn>(`/connections/${manual.body.id}`, { method: 'PATCH', json: { portal: null, subscription: null } });
  assert.equal(unlinked.status, 200);
  assert.equal(unlinked.body.subscription, undefined);
  assert.deepEqual((await desk<{ pipes: Record<string, number> }>(`/portal-alerts/${manual.body.id}`)).body.pipes, {});
  portal.resolve('sub-prod', 'orders');
});

test('removing a connection deletes its secret; no token ever reached the log', async () => {
  const instances = (await desk<Conn[]>('/connections')).body.filter((c) => c.kind === 'instance');
  for (const c of [...instances.map((i) => i.id), conn]) {
    assert.equal((await desk(`/connections/${c}`, { method: 'DELETE' })).status, 204);
    assert.equal(await keychain(c).getPassword(), null, 'the keychain entry is gone');
  }
  assert.deepEqual((await desk<Conn[]>('/connections')).body, []);
  assert.equal((await desk(`/connections/${conn}`, { method: 'DELETE' })).status, 404);
  assert.ok(existsSync(join(hub.dataDir, 'connections.json')));
  const log = hub.output();
  assert.match(log, /desktop\/connections/, 'the log was on');
  for (const secret of [ada.token, bob.token, remote.token]) assert.ok(!log.includes(secret), 'no token in the hub log');
});
