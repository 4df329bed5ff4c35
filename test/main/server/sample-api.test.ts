// The route behind the workbench's "Pull sample…" (POST /desktop/workspace/sample): a second hub plays the remote
// instance holding the pipe's source dataset, saved as a connection of the local hub (token in the OS keychain). The
// route pins a scrubbed sample in the workspace's pipe file as its conditional source's "test" alternative — the same
// writing as `datahub sample pull` — and the local hub holds the new source at once. Bad input is a 4xx in words.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { forgetConnections, stopAndRemove } from '../../helpers/connections.js';

// Real-looking people on the remote: their e-mails and phone numbers must never reach the project folder.
const PEOPLE = [
  { _id: 'c1', name: 'Astrid Holm', email: 'astrid.holm@example.no', phone: '+47 912 34 567', country: 'NO' },
  { _id: 'c2', name: 'Per Dahl', email: 'per.dahl@example.no', phone: '+47 934 56 789', country: 'NO' },
  { _id: 'c3', name: 'Lena Ek', email: 'lena.ek@example.se', phone: '+46 70 123 45 67', country: 'SE' },
];
const PIPE_TEXT = `{
  "_id": "customer",
  "type": "pipe",
  "source": {"type": "dataset", "dataset": "crm-customer"},
  "transform": {"type": "dtl", "rules": {"default": [["copy", "*"]]}}
}
`;

let local: HubProcess;
let remote: HubProcess;
let dir: string;
let conn: string;
const pipeFile = (): string => readFileSync(join(dir, 'node', 'pipes', 'customer.conf.json'), 'utf8');

async function desktop(method: string, path: string, body?: unknown, token: string | null = local.token): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${local.url}/desktop${path}`, { method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

before(async () => {
  dir = tempDir('sample-api-');
  mkdirSync(join(dir, 'node', 'pipes'), { recursive: true });
  writeFileSync(join(dir, 'node', 'pipes', 'customer.conf.json'), PIPE_TEXT);
  [local, remote] = await Promise.all([startHub({ args: ['--workspace', dir] }), startHub()]);
  await remote.json('/datasets/crm-customer/entities', { method: 'POST', json: PEOPLE });
  const saved = await desktop('POST', '/connections', { kind: 'instance', label: 'Staging', url: remote.api, token: remote.token });
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  conn = saved.body['id'] as string;
});

after(async () => {
  await forgetConnections(local);
  await stopAndRemove(local, remote);
  if (dir) removeDir(dir);
});

test('the route wants the token, and bad input is a 4xx in words that writes nothing', async () => {
  assert.equal((await desktop('POST', '/workspace/sample', { pipe: 'customer', conn }, null)).status, 401);
  const cases: [unknown, number, RegExp][] = [
    [{ conn }, 400, /pipe/],
    [{ pipe: 'customer', conn, count: 0 }, 400, /count|>= 1/],
    [{ pipe: 'customer', conn, extra: 1 }, 400, /extra|additional/],
    [{ pipe: 'nobody', conn }, 404, /no pipe "nobody".*its pipes: customer/],
    [{ pipe: 'customer', conn: 'no-such-connection' }, 404, /instance connection "no-such-connection"/],
    [{ pipe: 'customer', conn, filter: '["eq", ' }, 400, /filter/],
    [{ pipe: 'customer', conn, scrub: ' , ' }, 400, /scrub patterns/],
  ];
  for (const [body, status, words] of cases) {
    const r = await desktop('POST', '/workspace/sample', body);
    assert.equal(r.status, status, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.match(`${String(r.body['error'])} ${String(r.body['detail'] ?? '')}`, words, JSON.stringify(r.body));
  }
  assert.equal(pipeFile(), PIPE_TEXT);
});

test('a pipe whose source the remote does not have is refused in words, and nothing is written', async () => {
  writeFileSync(join(dir, 'node', 'pipes', 'orphan.conf.json'), '{"_id": "orphan", "type": "pipe", "source": {"type": "dataset", "dataset": "gone"}}\n');
  const r = await desktop('POST', '/workspace/sample', { pipe: 'orphan', conn });
  assert.equal(r.status, 404, JSON.stringify(r.body));
  assert.match(String(r.body['error']), /Staging has no dataset "gone"/);
  assert.equal(readFileSync(join(dir, 'node', 'pipes', 'orphan.conf.json'), 'utf8'), '{"_id": "orphan", "type": "pipe", "source": {"type": "dataset", "dataset": "gone"}}\n');
});

test('a source whose real alternative is not clear, and a filter nothing matches, are refused in words; nothing is written', async () => {
  const unclear = '{"_id": "unclear", "type": "pipe", "source": {"type": "conditional", "condition": "$ENV(x)", "alternatives": {"a": {"type": "dataset", "dataset": "crm-customer"}, "b": {"type": "dataset", "dataset": "crm-customer"}}}}\n';
  writeFileSync(join(dir, 'node', 'pipes', 'unclear.conf.json'), unclear);
  const r = await desktop('POST', '/workspace/sample', { pipe: 'unclear', conn });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.match(String(r.body['error']), /real alternative is not clear/);
  assert.equal(readFileSync(join(dir, 'node', 'pipes', 'unclear.conf.json'), 'utf8'), unclear);
  const none = await desktop('POST', '/workspace/sample', { pipe: 'customer', conn, filter: '["eq", "_S.country", "DK"]' });
  assert.equal(none.status, 422, JSON.stringify(none.body));
  assert.match(String(none.body['error']), /gave no entities matching the filter \(of 3 read\)/);
  assert.equal(pipeFile(), PIPE_TEXT);
});

test('a filtered sample is pinned scrubbed as the test alternative, and the hub holds the new source at once', async () => {
  const r = await desktop('POST', '/workspace/sample', { pipe: 'customer', conn, count: 5, filter: '["eq", "_S.country", "NO"]', scrub: '*EMAIL*, *phone*' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // Two Norwegians, each with an e-mail and a phone scrubbed: 4 properties.
  assert.equal(r.body['count'], 2);
  assert.equal(r.body['scrubbed'], 4);
  assert.equal(r.body['instance'], 'Staging');
  assert.equal(r.body['file'], 'pipes/customer.conf.json');
  assert.deepEqual(r.body['patterns'], ['*EMAIL*', '*phone*']);
  const text = pipeFile();
  for (const p of PEOPLE) {
    assert.ok(!text.includes(p.email), `the file holds ${p.email}`);
    assert.ok(!text.includes(p.phone), `the file holds ${p.phone}`);
  }
  const written = JSON.parse(text) as { source: { type: string; condition: string; alternatives: Record<string, { type: string; dataset?: string; entities?: Record<string, unknown>[] }> } };
  assert.equal(written.source.type, 'conditional');
  assert.equal(written.source.condition, '$ENV(node-env)');
  assert.deepEqual(written.source.alternatives['prod'], { type: 'dataset', dataset: 'crm-customer' });
  const entities = written.source.alternatives['test']!.entities!;
  assert.deepEqual(entities.map((e) => e['_id']).sort(), ['c1', 'c2']);
  for (const e of entities) {
    const real = PEOPLE.find((p) => p._id === e['_id'])!;
    assert.equal(e['name'], real.name, 'a property no pattern names is kept');
    assert.notEqual(e['email'], real.email);
    assert.equal((e['email'] as string).indexOf('@'), real.email.indexOf('@'), 'a fake e-mail keeps its shape');
    assert.notEqual(e['phone'], real.phone);
    assert.equal((e['phone'] as string).length, real.phone.length);
  }
  // test-env.json gets "node-env": "test", so the project's tests run on the sample.
  assert.ok(existsSync(join(dir, 'node', 'test-env.json')));
  assert.equal((JSON.parse(readFileSync(join(dir, 'node', 'test-env.json'), 'utf8')) as Record<string, unknown>)['node-env'], 'test');
  assert.match(String(r.body['envNote']), /node-env/);
  // The hub reloaded the file: the pipe's stored source is the conditional one.
  const config = await local.json<{ source: { type: string } }>('/pipes/customer/config');
  assert.equal(config.source.type, 'conditional');

  // Pulled again (the file now has a conditional source), the real alternative is read again and the fakes are stable.
  const again = await desktop('POST', '/workspace/sample', { pipe: 'customer', conn, count: 5, filter: '["eq", "_S.country", "NO"]', scrub: '*EMAIL*, *phone*' });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(pipeFile(), text, 'the same sample with the same key writes the same file');
});
