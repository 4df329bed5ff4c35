// The OS keychain behind remote tokens, against the real Secret Service (test/run.js starts gnome-keyring in
// a private D-Bus session): what is stored is in the OS store, visible to another process, and gone after
// delete; without a Secret Service the store refuses loudly instead of keeping secrets somewhere else.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { REPO } from './helpers/hub-process.js';
import { OsKeychain } from '../main/secrets/keychain.js';
import { SecretStoreUnavailable } from '../main/secrets/secret-store.js';

// A service name of its own per run, so parallel runs and a developer's real entries never meet.
const SERVICE = `datahub-desktop-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const ACCOUNTS = ['conn-a', 'conn-b'];
const keychain = new OsKeychain(SERVICE);

after(async () => {
  for (const account of ACCOUNTS) await keychain.delete(account).catch(() => false);
});

/** Run a script in a fresh Node process; resolves with its stdout (and stderr on failure). */
function node(script: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Read an entry straight from the OS store in another process, with @napi-rs/keyring and no code of ours. */
async function readElsewhere(account: string): Promise<string | null> {
  const script = `
    import { AsyncEntry } from '@napi-rs/keyring';
    const entry = new AsyncEntry(${JSON.stringify(SERVICE)}, ${JSON.stringify(account)}, { linux: { store: 'secret-service' } });
    process.stdout.write(JSON.stringify(await entry.getPassword()));`;
  const res = await node(script);
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout) as string | null;
}

test('a secret is stored in the OS keychain, read back by another process, and deleted', async () => {
  const secret = `token-${randomBytes(12).toString('base64url')}`;
  assert.equal(await keychain.get('conn-a'), null, 'nothing before set');
  await keychain.set('conn-a', secret);
  assert.equal(await keychain.get('conn-a'), secret);
  assert.equal(await readElsewhere('conn-a'), secret, 'the secret lives in the OS store, not in this process');

  await keychain.set('conn-a', `${secret}-renewed`);
  assert.equal(await readElsewhere('conn-a'), `${secret}-renewed`, 'set replaces the secret');

  assert.equal(await keychain.delete('conn-a'), true);
  assert.equal(await keychain.get('conn-a'), null, 'read after delete');
  assert.equal(await readElsewhere('conn-a'), null, 'deleted from the OS store too');
  assert.equal(await keychain.delete('conn-a'), false, 'a second delete finds nothing');
});

test('secrets of different accounts do not overwrite each other', async () => {
  await keychain.set('conn-a', 'first');
  await keychain.set('conn-b', 'second');
  assert.equal(await keychain.get('conn-a'), 'first');
  assert.equal(await keychain.get('conn-b'), 'second');
  await keychain.delete('conn-a');
  assert.equal(await keychain.get('conn-b'), 'second');
  await keychain.delete('conn-b');
});

test('without a Secret Service the store fails with SecretStoreUnavailable and a clear message, never a fallback', { skip: process.platform !== 'linux' && 'the Secret Service is the Linux keychain' }, async () => {
  const moduleUrl = (file: string): string => JSON.stringify(new URL(`file://${join(REPO, 'out', 'main', 'secrets', file)}`).href);
  const script = `
    import { OsKeychain } from ${moduleUrl('keychain.js')};
    import { SecretStoreUnavailable } from ${moduleUrl('secret-store.js')};
    const store = new OsKeychain(${JSON.stringify(SERVICE)});
    const results = [];
    for (const attempt of [() => store.set('conn-a', 'x'), () => store.get('conn-a'), () => store.delete('conn-a')]) {
      try {
        results.push({ ok: true, value: await attempt() });
      } catch (e) {
        results.push({ ok: false, unavailable: e instanceof SecretStoreUnavailable, name: e.name, message: e.message });
      }
    }
    process.stdout.write(JSON.stringify(results));`;
  const res = await node(script, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/datahub-no-bus' });
  assert.equal(res.code, 0, res.stderr);
  const results = JSON.parse(res.stdout) as { ok: boolean; unavailable?: boolean; name?: string; message?: string }[];
  assert.equal(results.length, 3);
  for (const r of results) {
    assert.equal(r.ok, false, `every operation fails: ${res.stdout}`);
    assert.equal(r.unavailable, true);
    assert.equal(r.name, 'SecretStoreUnavailable');
    assert.match(r.message ?? '', /Secret Service cannot be reached/);
    assert.match(r.message ?? '', /gnome-keyring or KWallet must be running and unlocked/);
  }
  // The failed set left nothing behind in the real store either.
  assert.equal(await keychain.get('conn-a'), null);
  assert.equal(new SecretStoreUnavailable('x').name, 'SecretStoreUnavailable');
});
