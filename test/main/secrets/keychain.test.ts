// The OS keychain behind remote tokens, against the real Secret Service (test/run.js starts gnome-keyring in
// a private D-Bus session): what is stored is in the OS store, visible to another process, and gone after
// delete; without a Secret Service the store refuses loudly instead of keeping secrets somewhere else.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, removeDir, tempDir } from '../../helpers/hub-process.js';
import { checkSecret, decodeSecret, OsKeychain, WINDOWS_SECRET_LIMIT } from '../../../main/secrets/keychain.js';
import { SecretRejected, SecretStoreUnavailable, type SecretStore } from '../../../main/secrets/secret-store.js';
import { accountOf, ConnectionStore } from '../../../main/remote/connections.js';

// A service name of its own per run, so parallel runs and a developer's real entries never meet.
const SERVICE = `datahub-desktop-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const ACCOUNTS = ['conn-a', 'conn-b', 'conn-long', 'conn-unicode'];
const keychain = new OsKeychain(SERVICE);

after(async () => {
  for (const account of ACCOUNTS) await keychain.delete(account).catch(() => false);
});

/** Run a script in a fresh Node process; resolves with its stdout (and stderr on failure). */
function node(script: string, env: NodeJS.ProcessEnv = {}, wrapper: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = [...wrapper, process.execPath, '--input-type=module', '-e', script];
    const child = spawn(command!, args, { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Try set, get and delete in a fresh process whose keychain is broken by `env` (and `wrapper`). */
async function attemptsElsewhere(env: NodeJS.ProcessEnv, wrapper: string[] = []): Promise<{ ok: boolean; unavailable?: boolean; name?: string; message?: string }[]> {
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
  const res = await node(script, env, wrapper);
  assert.equal(res.code, 0, res.stderr);
  const results = JSON.parse(res.stdout.slice(res.stdout.indexOf('['))) as { ok: boolean; unavailable?: boolean; name?: string; message?: string }[];
  assert.equal(results.length, 3);
  return results;
}

test('without a Secret Service the store fails with SecretStoreUnavailable and a clear message, never a fallback', { skip: process.platform !== 'linux' && 'the Secret Service is the Linux keychain' }, async () => {
  const results = await attemptsElsewhere({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/datahub-no-bus' });
  for (const r of results) {
    assert.equal(r.ok, false, `every operation fails: ${JSON.stringify(results)}`);
    assert.equal(r.unavailable, true);
    assert.equal(r.name, 'SecretStoreUnavailable');
    assert.match(r.message ?? '', /Secret Service cannot be reached/);
    assert.match(r.message ?? '', /gnome-keyring or KWallet must be running and unlocked/);
  }
  // The failed set left nothing behind in the real store either.
  assert.equal(await keychain.get('conn-a'), null);
  assert.equal(new SecretStoreUnavailable('x').name, 'SecretStoreUnavailable');
});

const hasDbusSession = process.platform === 'linux' && spawnSync('sh', ['-c', 'command -v dbus-run-session'], { stdio: 'ignore' }).status === 0;

test('storing into a Secret Service with no unlocked keyring (a fresh login, a locked collection) is reported as unavailable too', { skip: !hasDbusSession && 'needs dbus-run-session (apt: dbus)' }, async () => {
  // A D-Bus session of its own, where the Secret Service (if one gets activated) has no keyring the test unlocked.
  const home = tempDir('datahub-locked-keyring-');
  try {
    const env = { HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: join(home, 'run'), XDG_CONFIG_HOME: join(home, 'config') };
    mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
    const results = await attemptsElsewhere({ ...env, DBUS_SESSION_BUS_ADDRESS: '' }, ['dbus-run-session', '--']);
    // Storing fails loudly; reading finds nothing (there is no collection to search), which is not an error.
    const [set, get] = results;
    assert.equal(set?.ok, false, `storing fails: ${JSON.stringify(results)}`);
    assert.equal(set?.name, 'SecretStoreUnavailable', JSON.stringify(set));
    assert.match(set?.message ?? '', /Secret Service cannot be reached .*must be running and unlocked\): Couldn't access platform storage/);
    assert.ok(get?.ok === true || get?.name === 'SecretStoreUnavailable', JSON.stringify(get));
  } finally {
    removeDir(home);
  }
});

test('a long token is kept whole as UTF-8; on Windows one that cannot fit is refused up front, naming the limit', async () => {
  // 4 KB: more than a Credential Manager entry holds, which the Secret Service and the macOS Keychain take.
  const long = `eyJ${randomBytes(3100).toString('base64url')}`.slice(0, 4096);
  if (process.platform !== 'win32') {
    await keychain.set('conn-long', long);
    assert.equal(await readElsewhere('conn-long'), long, 'stored whole');
    assert.equal(await keychain.get('conn-long'), long);
  }
  const refused = (() => {
    try {
      checkSecret(long, 'win32');
      return null;
    } catch (e) {
      return e;
    }
  })();
  assert.ok(refused instanceof SecretRejected, 'refused before the keychain is asked');
  assert.equal(refused.status, 400);
  assert.match(refused.message, /too long for the Windows Credential Manager/);
  assert.match(refused.detail ?? '', /4096 bytes as UTF-8; one entry holds at most 2560 bytes/);
  // UTF-8 bytes count, not characters: 2560 ASCII characters fit, 1281 two-byte ones do not.
  assert.equal(checkSecret('a'.repeat(WINDOWS_SECRET_LIMIT), 'win32').length, 2560);
  assert.throws(() => checkSecret('é'.repeat(1281), 'win32'), /too long/);
  assert.throws(() => checkSecret('', 'linux'), /empty secret/);
  assert.throws(() => checkSecret('a\0b', 'darwin'), /NUL/);
});

test('non-ASCII secrets round-trip, and entries written as UTF-16 by the password API still read back', async () => {
  const secret = 'tök€n-✓-秘密';
  await keychain.set('conn-unicode', secret);
  assert.equal(await readElsewhere('conn-unicode'), secret, 'UTF-8 in the OS store: any keyring client reads the same text');
  assert.equal(await keychain.get('conn-unicode'), secret);
  // Windows' password API stores UTF-16LE; such an entry decodes to the same text.
  assert.equal(decodeSecret(Buffer.from('legacy-token', 'utf16le')), 'legacy-token');
  assert.equal(decodeSecret([...Buffer.from(secret, 'utf8')]), secret);
});

test('a connection whose list cannot be written leaves no orphan secret in the keychain', async () => {
  const dir = tempDir('datahub-connections-');
  const setAccounts: string[] = [];
  // The real keychain, noting which accounts were written.
  const recording: SecretStore = {
    backend: keychain.backend,
    get: (a) => keychain.get(a),
    set: async (a, v) => {
      setAccounts.push(a);
      await keychain.set(a, v);
    },
    delete: (a) => keychain.delete(a),
  };
  try {
    const store = new ConnectionStore(dir, recording);
    // connections.json is written through a temp file; a folder in its place makes the write fail.
    mkdirSync(join(dir, 'connections.json.tmp'));
    await assert.rejects(store.add({ kind: 'portal', label: 'P', url: 'https://portal.example/api', token: 'tok-orphan' }), /EISDIR|illegal operation on a directory/);
    assert.equal(setAccounts.length, 1, 'the token was stored first');
    assert.equal(await keychain.get(setAccounts[0]!), null, 'and taken back out when the list could not be saved');
    assert.deepEqual(store.list(), []);
    assert.equal(existsSync(join(dir, 'connections.json')), false);

    removeDir(join(dir, 'connections.json.tmp'));
    const saved = await store.add({ kind: 'portal', label: 'P', url: 'https://portal.example/api/', token: 'tok-kept' });
    assert.equal(await keychain.get(accountOf(saved.id)), 'tok-kept');
    assert.doesNotMatch(readFileSync(join(dir, 'connections.json'), 'utf8'), /tok-kept/, 'the token is not in the file');
    assert.equal(await store.remove(saved.id), true);
    assert.equal(await keychain.get(accountOf(saved.id)), null, 'removing the connection deletes its secret');
  } finally {
    for (const a of setAccounts) await keychain.delete(a).catch(() => false);
    removeDir(dir);
  }
});
