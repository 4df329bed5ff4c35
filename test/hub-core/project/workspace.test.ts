import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';

const pipe = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  _id: id,
  type: 'pipe',
  source: { type: 'http_endpoint' },
  sink: { type: 'dataset', dataset: id },
  ...extra,
});

function write(dir: string, file: string, value: unknown): void {
  mkdirSync(join(dir, file, '..'), { recursive: true });
  writeFileSync(join(dir, file), typeof value === 'string' ? value : JSON.stringify(value, null, 2) + '\n');
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('serve --workspace', () => {
  let hub: HubProcess;
  let project: string;
  let node: string;

  before(async () => {
    project = tempDir('datahub-ws-');
    node = join(project, 'node');
    write(node, 'pipes/orders.conf.json', pipe('orders'));
    write(node, 'pipes/renamed-file.conf.json', pipe('customers'));
    write(node, 'pipes/broken.conf.json', '{ "_id": "broken", ');
    write(node, 'systems/crm.conf.json', { _id: 'crm', type: 'system:url', base_url: 'http://127.0.0.1:1/' });
    write(node, 'node-metadata.conf.json', { _id: 'node', type: 'metadata', namespaced_identifiers: false });
    write(node, 'test-env.json', { 'node-env': 'test', limit: 5 });
    hub = await startHub({ args: ['--workspace', project] });
  });

  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
    removeDir(project);
  });

  test('loads pipes, systems, metadata and the test env, and reports files it cannot read', async () => {
    const pipes = await hub.json<{ _id: string }[]>('/pipes');
    assert.deepEqual(pipes.map((p) => p._id).sort(), ['customers', 'orders']);
    assert.deepEqual((await hub.json<{ _id: string }[]>('/systems')).map((s) => s._id), ['crm']);
    assert.equal((await hub.json<Record<string, unknown>>('/metadata'))['namespaced_identifiers'], false);
    assert.deepEqual(await hub.json('/env'), { limit: '5', 'node-env': 'test' });
    assert.match(hub.output(), /2 pipes, 1 systems, 2 env variables, 1 problem/);
    assert.match(hub.output(), /pipes\/broken\.conf\.json: not valid JSON/);
  });

  test('a changed, added or removed file is reloaded', async () => {
    write(node, 'pipes/orders.conf.json', pipe('orders', { sink: { type: 'dataset', dataset: 'orders-v2' } }));
    await eventually('the edited pipe', async () => {
      const c = await hub.json<{ sink: { dataset: string } }>('/pipes/orders/config');
      return c.sink.dataset === 'orders-v2' ? c : undefined;
    });
    write(node, 'pipes/invoices.conf.json', pipe('invoices'));
    await eventually('the new pipe', async () => ((await hub.fetch('/pipes/invoices')).status === 200 ? true : undefined));
    rmSync(join(node, 'pipes/invoices.conf.json'));
    await eventually('the removed pipe', async () => ((await hub.fetch('/pipes/invoices')).status === 404 ? true : undefined));
  });

  test('a briefly invalid file keeps its last good pipe (and pump state) and says why', async () => {
    const stays = (extra: Record<string, unknown> = {}): Record<string, unknown> => pipe('stays', { source: { type: 'dataset', dataset: 'stays-src' }, ...extra });
    write(node, 'pipes/stays.conf.json', stays());
    await eventually('the new pipe', async () => ((await hub.fetch('/pipes/stays')).status === 200 ? true : undefined));
    await hub.json('/pipes/stays/pump', { method: 'POST', body: new URLSearchParams({ operation: 'disable' }) });
    write(node, 'pipes/stays.conf.json', '{ "_id": "stays", "type": "pi');
    await eventually('the parse error reported', async () => (/Workspace reload: pipes\/stays\.conf\.json: not valid JSON/.test(hub.output()) ? true : undefined));
    assert.equal((await hub.fetch('/pipes/stays')).status, 200, 'the pipe is still there');
    const state = await hub.json<{ 'is-disabled'?: boolean; disabled?: boolean }>('/pipes/stays/pump');
    assert.ok(state['is-disabled'] === true || state.disabled === true, `its pump state is kept: ${JSON.stringify(state)}`);
    write(node, 'pipes/stays.conf.json', stays({ sink: { type: 'dataset', dataset: 'stays-v2' } }));
    await eventually('the fixed file', async () => {
      const c = await hub.json<{ sink: { dataset: string } }>('/pipes/stays/config');
      return c.sink.dataset === 'stays-v2' ? c : undefined;
    });
  });

  test('config edits through the API are written back to the same files, with stable formatting', async () => {
    const edited = pipe('customers', { metadata: { description: 'edited in the API' } });
    assert.equal((await hub.fetch('/pipes/customers/config', { method: 'PUT', json: edited })).status, 200);
    const file = join(node, 'pipes/renamed-file.conf.json');
    assert.equal(readFileSync(file, 'utf8'), JSON.stringify(edited, null, 2) + '\n', 'written to the file it came from');
    assert.ok(!existsSync(join(node, 'pipes/customers.conf.json')));

    const created = await hub.fetch('/pipes', { method: 'POST', json: [pipe('a:b')] });
    assert.equal(created.status, 200, await created.text());
    const newFile = join(node, 'pipes/a%3Ab.conf.json');
    assert.deepEqual(JSON.parse(readFileSync(newFile, 'utf8')), pipe('a:b'));

    assert.equal((await hub.fetch('/pipes/a:b', { method: 'DELETE' })).status, 200);
    assert.ok(!existsSync(newFile), 'deleting the pipe deletes its file');

    await hub.json('/env', { method: 'PATCH', json: { extra: '1' } });
    // Our own writes do not come back as reloads: the edited pipe has exactly one new version.
    await new Promise((r) => setTimeout(r, 600));
    const history = await hub.json<{ _deleted: boolean }[]>('/config-history/entity?entity_id=customers');
    assert.equal(history.length, 2, 'loaded once, edited once');
  });
});
