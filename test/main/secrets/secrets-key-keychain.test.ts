// The key of secret values at rest in the OS keychain (issue 16.11): `serve --secrets-key keychain` (the desktop
// app's way) moves the key file into the keychain, keeps using it across restarts, and falls back to the 0600 file
// where no keychain works. Against the real Secret Service that test/run.js starts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir } from '../../helpers/hub-process.js';
import { Hub } from '../../../hub-core/hub.js';
import { OsKeychain } from '../../../main/secrets/keychain.js';
import { secretsKeyAccount } from '../../../main/secrets/secrets-key.js';
import { HubError } from '../../../hub-core/base/index.js';

const keychain = new OsKeychain();
const folders: string[] = [];

after(async () => {
  for (const dir of folders) {
    await keychain.delete(secretsKeyAccount(dir)).catch(() => false);
    removeDir(dir);
  }
});

test('the key file moves into the keychain, the values stay readable, and a keyless process refuses in words', async () => {
  const data = tempDir('datahub-keychain-');
  folders.push(data);
  // First a hub with the key in the file (the CLI's default), holding a secret.
  let hub = await startHub({ dataDir: data });
  await hub.json('/secrets', { method: 'PUT', json: { DB_PASSWORD: 'kept-across-the-move' } });
  await hub.stop();
  const fileKey = readFileSync(join(data, 'secrets-key'), 'utf8').trim();

  hub = await startHub({ dataDir: data, args: ['--secrets-key', 'keychain'] });
  await hub.json('/secrets', { method: 'POST', json: { API_TOKEN: 'set-after-the-move' } });
  assert.deepEqual((await hub.json<string[]>('/secrets')).sort(), ['API_TOKEN', 'DB_PASSWORD']);
  await hub.stop();

  assert.ok(!existsSync(join(data, 'secrets-key')), 'the key file is gone');
  assert.equal(await keychain.get(secretsKeyAccount(data)), fileKey, 'the keychain holds the same key');
  assert.ok(existsSync(join(data, 'secrets-key.keychain')), 'the folder says where its key is');
  if (process.platform !== 'win32') assert.equal(statSync(join(data, 'secrets-key.keychain')).mode & 0o777, 0o600);

  // The engine reads both values with the keychain's key.
  const withKey = new Hub(data, { secretsKey: Buffer.from(fileKey, 'base64') });
  try {
    assert.equal(withKey.secrets.value('DB_PASSWORD'), 'kept-across-the-move');
    assert.equal(withKey.secrets.value('API_TOKEN'), 'set-after-the-move');
  } finally {
    withKey.close();
  }
  // A process without the key never makes a new one: it says where the key is.
  const without = new Hub(data);
  try {
    assert.throws(
      () => without.secrets.value('DB_PASSWORD'),
      (e: unknown) => e instanceof HubError && /OS keychain/.test(e.message) && /--secrets-key keychain/.test(e.detail ?? ''),
    );
    assert.ok(!existsSync(join(data, 'secrets-key')), 'no new key file');
  } finally {
    without.close();
  }

  // A restart with the keychain keeps working (the key is read, not made again).
  hub = await startHub({ dataDir: data, args: ['--secrets-key', 'keychain'] });
  assert.deepEqual((await hub.json<string[]>('/secrets')).sort(), ['API_TOKEN', 'DB_PASSWORD']);
  await hub.stop();
  assert.equal(await keychain.get(secretsKeyAccount(data)), fileKey);
});

test('without a working keychain the key stays in the 0600 file', async () => {
  const data = tempDir('datahub-keychain-');
  folders.push(data);
  // No D-Bus session: the Secret Service cannot be reached.
  const hub = await startHub({ dataDir: data, args: ['--secrets-key', 'keychain'], env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
  await hub.json('/secrets', { method: 'PUT', json: { S: 'in-the-file' } });
  await hub.stop();
  assert.ok(existsSync(join(data, 'secrets-key')), 'the key file is used');
  assert.ok(!existsSync(join(data, 'secrets-key.keychain')));
  if (process.platform !== 'win32') assert.equal(statSync(join(data, 'secrets-key')).mode & 0o777, 0o600);
  const local = new Hub(data);
  try {
    assert.equal(local.secrets.value('S'), 'in-the-file');
  } finally {
    local.close();
  }
});
