// A pipe that names a $SECRET runs in a pipe worker, so a stop ends its runaway run (issue 32.1): a pipe's own
// $SECRET(...) is never replaced (secrets belong to systems), so only a transform that takes a secret as the key of
// encrypt/decrypt needs secret values, and its worker is handed exactly those (secret-keyed-worker.test.ts). Before,
// any "$SECRET(" in a pipe kept its run on the hub's thread, where a runaway evaluation could not be ended and
// blocked /api/health.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { runPump } from '../../helpers/api.js';
import { stopRunawayInWorker } from '../../helpers/runaway.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

/** Far more than the 10 s the hub allows one entity: only the stop can end it early. */
const SPIN = ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]];
const ENTITIES = Array.from({ length: 20 }, (_, i) => ({ _id: `e${i}` }));
const PASSWORD = 'pw-value-that-must-not-leak-7c1e';
const KEY = 'a-long-passphrase-1234';


test('a runaway pipe naming a system with a $SECRET runs in a worker, and stop ends it while /api/health answers', async (t) => {
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'secured', type: 'system:url', base_url: 'http://127.0.0.1:9/', username: 'u', password: '$SECRET(pw)' }] });
  await hub.json('/systems/secured/secrets', { method: 'PUT', json: { pw: PASSWORD } });
  await hub.json('/secrets', { method: 'POST', json: { 'fernet-pass': KEY } });
  const names = { comment: 'reads what the "secured" system (user u, password $SECRET(pw)) delivered' };
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'spin-secret',
        type: 'pipe',
        ...names,
        source: { type: 'embedded', entities: ENTITIES },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'auth', '$SECRET(pw)'], SPIN] } },
        pump: { mode: 'manual' },
      },
      {
        _id: 'plain-secret',
        type: 'pipe',
        ...names,
        source: { type: 'embedded', entities: ENTITIES },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'auth', '$SECRET(pw)']] } },
        pump: { mode: 'manual' },
      },
      {
        // The key of encrypt/decrypt is the secret's value: this run needs it, and its worker is handed it.
        _id: 'keyed',
        type: 'pipe',
        source: { type: 'embedded', entities: ENTITIES },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'round-trip', ['decrypt', '$SECRET(fernet-pass)', ['encrypt', '$SECRET(fernet-pass)', 'hello']]]] } },
        pump: { mode: 'manual' },
      },
    ],
  });

  await stopRunawayInWorker(hub, 'spin-secret', t, 'the run of a pipe naming a $SECRET is in a worker');

  // In a worker the pipe's $SECRET stays the text it is, as on the hub's thread: no secret value in the output.
  assert.equal((await runPump<{ status: string }>(hub, 'plain-secret', 'start', 30_000)).status, 'completed');
  const plain = await hub.json<Json[]>('/datasets/plain-secret/entities');
  assert.equal(plain.length, 20);
  assert.ok(plain.every((e) => e['auth'] === '$SECRET(pw)'), 'the value stays as written');
  assert.ok(!JSON.stringify(plain).includes(PASSWORD));

  // A transform that needs a secret value (the key of encrypt/decrypt) gets it, in its worker.
  assert.equal((await runPump<{ status: string }>(hub, 'keyed', 'start', 30_000)).status, 'completed');
  const keyed = await hub.json<Json[]>('/datasets/keyed/entities');
  assert.equal(keyed.length, 20);
  assert.ok(keyed.every((e) => e['round-trip'] === 'hello'), 'the key is the secret value');
  assert.ok(!JSON.stringify(keyed).includes(KEY));
});
