// A `$ENV` that the environment does not set is a warning on the pipes that name it (their runs stop until it is
// set); the warning goes once it is set, and no other pipe is touched.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { removeDir, startHub, type HubProcess } from '../../helpers/hub-process.js';

interface Info {
  runtime: { 'is-valid-config': boolean; 'config-errors': { elements: string; level: string; msg: string }[] };
}

let hub: HubProcess;
before(async () => {
  hub = await startHub();
});
after(async () => {
  await hub.stop();
  removeDir(hub.dataDir);
});

test('an unset $ENV warns on the pipe that needs it, until it is set', async () => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'pick', type: 'pipe', source: { type: 'conditional', condition: '$ENV(people-source)', alternatives: { test: { type: 'embedded', entities: [{ _id: 'a' }] } } } },
      { _id: 'plain', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] } },
    ],
  });
  const pick = await hub.json<Info>('/pipes/pick');
  assert.equal(pick.runtime['is-valid-config'], true, 'a warning, not an error');
  assert.deepEqual(
    pick.runtime['config-errors'].map((e) => [e.elements, e.level, e.msg.split(':')[0]]),
    [['$.source.condition', 'warning', '$ENV(people-source) is not set']],
  );
  assert.deepEqual((await hub.json<Info>('/pipes/plain')).runtime['config-errors'], []);
  await hub.json('/env', { method: 'PUT', json: { 'people-source': 'test' } });
  assert.deepEqual((await hub.json<Info>('/pipes/pick')).runtime['config-errors'], []);
});
