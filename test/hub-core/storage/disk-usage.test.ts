// Bytes on disk of a large dataset (GET /datasets/<id>'s "bytes-on-disk") are counted in a worker thread: the answer
// comes at once (an estimate until the count is in) and settles on the count a small dataset gets in place.
// DATAHUB_DISK_COUNT_FROM_VERSIONS lowers "large" to 100 versions here (the default is 100,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removeDir, startHub } from '../../helpers/hub-process.js';
import { pushEntities, waitFor } from '../../helpers/api.js';

test('a large dataset is counted in the background and comes to the same bytes as one counted in place', async () => {
  const inPlace = await startHub();
  const background = await startHub({ env: { DATAHUB_DISK_COUNT_FROM_VERSIONS: '100' } });
  try {
    const filler = 'x'.repeat(500);
    for (let b = 0; b < 4; b++) {
      const batch = Array.from({ length: 500 }, (_, i) => ({ _id: `e${b}-${i}`, filler }));
      await pushEntities(inPlace, 'big', batch);
      await pushEntities(background, 'big', batch);
    }
    const bytes = async (h: typeof inPlace): Promise<number> => (await h.json<{ 'bytes-on-disk': number }>('/datasets/big'))['bytes-on-disk'];
    const exact = await bytes(inPlace);
    assert.ok(exact > 2000 * 500, `2,000 entities of 500 bytes take ${exact} bytes`);
    const first = await bytes(background);
    // Nothing counted yet: the database's used pages (schema tables included) shared out by stored versions.
    assert.ok(first > exact, `an estimate at once: ${first}, more than the ${exact} bytes counted`);
    await waitFor('the background count', async () => ((await bytes(background)) === exact ? true : undefined), 20_000);
    // A small dataset on the same hub is still counted in place.
    await pushEntities(background, 'small', [{ _id: 'a', filler }]);
    assert.ok((await bytes(background)) > 0);
    const small = await background.json<{ 'bytes-on-disk': number }>('/datasets/small');
    assert.ok(small['bytes-on-disk'] > 0 && small['bytes-on-disk'] < exact);
  } finally {
    for (const h of [inPlace, background]) {
      await h.stop();
      removeDir(h.dataDir);
    }
  }
});
