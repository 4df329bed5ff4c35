// Secret values are encrypted in hub.db with a key kept apart from it; the data files are readable by their owner only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir } from '../../helpers/hub-process.js';
import { Hub } from '../../../hub-core/hub.js';

const isWindows = process.platform === 'win32';

test('secret values never reach the data files in plain text; hub.db and the key are mode 0600', async () => {
  const marker = 'pl41n-t3xt-s3cret-' + Date.now();
  const hub = await startHub();
  try {
    await hub.json('/secrets', { method: 'PUT', json: { DB_PASSWORD: marker } });
    await hub.json('/systems', { method: 'POST', json: [{ _id: 'crm', type: 'system:url', url_pattern: 'http://localhost/%s' }] });
    await hub.json('/systems/crm/secrets', { method: 'PUT', json: { token: marker + '-system' } });
    assert.equal(await hub.stop(), 0);
    for (const name of ['hub.db', 'hub.db-wal']) {
      const file = join(hub.dataDir, name);
      if (!existsSync(file)) continue;
      assert.ok(!readFileSync(file).includes(Buffer.from(marker)), `${name} holds the secret value in plain text`);
    }
    if (!isWindows) {
      assert.equal(statSync(join(hub.dataDir, 'hub.db')).mode & 0o777, 0o600, 'hub.db is 0600');
      assert.equal(statSync(join(hub.dataDir, 'secrets-key')).mode & 0o777, 0o600, 'secrets-key is 0600');
    }
    // The engine still reads the values (for $SECRET substitution).
    const local = new Hub(hub.dataDir);
    try {
      assert.equal(local.secrets.value('DB_PASSWORD'), marker);
      assert.equal(local.secrets.value('token', 'crm'), marker + '-system');
    } finally {
      local.close();
    }
  } finally {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});
