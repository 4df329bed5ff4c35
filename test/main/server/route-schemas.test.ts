// Route schemas are compiled when a route is first called (validators.ts): a hub started with DATAHUB_EAGER_SCHEMAS=1
// compiles every one of them at start, so a schema Ajv or the serializer refuses fails here rather than on a user's
// first call of that route.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';

let eager: HubProcess;

before(async () => {
  eager = await startHub({ env: { DATAHUB_EAGER_SCHEMAS: '1' } });
});

after(async () => {
  await eager.stop();
  removeDir(eager.dataDir);
});

test('with every schema compiled at start the hub starts, and answers as a lazily compiled one does', async () => {
  const doc = await eager.json<{ paths: Record<string, Record<string, unknown>> }>('/reference/json');
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  assert.ok(operations > 150, `the OpenAPI document lists the routes (${operations})`);
  // A query number out of range is refused with the range, as by the lazily compiled validator.
  const res = await eager.fetch('/datasets/none/entities?limit=-1');
  assert.equal(res.status, 400);
  const body = (await res.json()) as { error: string; detail?: string };
  assert.match(JSON.stringify(body), /limit/);
});
