// The key that encrypts secret values at rest (hub-core/security/secret-cipher.ts), kept in the OS keychain where there is
// one (the desktop app asks for it: `serve --secrets-key keychain`), else left in `<data>/secrets-key` (mode 0600).
// A key file found is moved into the keychain (stored, read back, then the file removed); `secrets-key.keychain`
// in the data folder then names the entry, so that no process ever makes a new key for that folder by mistake.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { KEYCHAIN_MARKER } from '../../hub-core/security/index.js';
import { SecretStoreUnavailable, type SecretStore } from './secret-store.js';

/** The keychain account of a data folder's key (the folder's absolute path tells two hubs apart). */
export function secretsKeyAccount(dataDir: string): string {
  return `secrets-key:${dataDir}`;
}

function decodeKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${where} does not hold a 32-byte key; the secrets it encrypted cannot be read without it`);
  return key;
}

/**
 * The data folder's secrets key from the OS keychain (moved there from the key file, or made, on first use), or
 * undefined when there is no usable keychain and the folder's key was never moved: the hub then uses the key file.
 * Throws, in words, when the key is in a keychain that cannot be read now or has lost it.
 */
export async function keychainSecretsKey(dataDir: string, store: SecretStore): Promise<Buffer | undefined> {
  const account = secretsKeyAccount(dataDir);
  const file = join(dataDir, 'secrets-key');
  const marker = join(dataDir, KEYCHAIN_MARKER);
  let stored: string | null;
  try {
    stored = await store.get(account);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    if (e instanceof SecretStoreUnavailable && !existsSync(marker)) return undefined;
    throw new Error(`the secrets key of ${dataDir} is kept in the ${store.backend}, which cannot be read now (${reason}); unlock it and start again`);
  }
  if (stored !== null) {
    const key = decodeKey(stored, `the ${store.backend} entry ${account}`);
    if (!existsSync(marker)) writeFileSync(marker, `${store.backend}: ${account}\n`, { mode: 0o600 });
    rmSync(file, { force: true });
    return key;
  }
  if (existsSync(marker)) {
    throw new Error(
      `the secrets key of ${dataDir} was moved to the ${store.backend} (entry ${account}), which no longer has it; ` +
        `restore the entry, or remove ${marker} to start with a new key (the stored secrets must then be set again)`,
    );
  }
  const key = existsSync(file) ? decodeKey(readFileSync(file, 'utf8'), file) : randomBytes(32);
  const text = key.toString('base64');
  try {
    await store.set(account, text);
    if ((await store.get(account)) !== text) return undefined;
  } catch (e) {
    if (e instanceof SecretStoreUnavailable) return undefined;
    throw e;
  }
  // Only once the keychain holds it: the marker first, then the file goes.
  writeFileSync(marker, `${store.backend}: ${account}\n`, { mode: 0o600 });
  rmSync(file, { force: true });
  return key;
}
