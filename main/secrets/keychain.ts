// SecretStore on the OS keychain through @napi-rs/keyring. On Linux the entries are pinned to the
// Secret Service: the kernel keyring would lose every token at logout, so it is never a silent fallback.
// Secrets are stored as UTF-8 bytes (setSecret): the password API would store UTF-16 on Windows, which
// halves what fits in a Credential Manager entry.
import { AsyncEntry, type EntryOptions } from '@napi-rs/keyring';
import { SecretRejected, SecretStoreError, SecretStoreUnavailable, type SecretStore } from './secret-store.js';

export const KEYCHAIN_SERVICE = 'datahub-desktop';

const BACKENDS: Record<string, string> = { darwin: 'macOS Keychain', win32: 'Windows Credential Manager', linux: 'Secret Service' };

/** CRED_MAX_CREDENTIAL_BLOB_SIZE (5 × 512 bytes): the most one Windows Credential Manager entry holds. */
export const WINDOWS_SECRET_LIMIT = 2560;

/** Bytes a secret may take in the platform's keychain; null where the store sets no small limit. */
export function secretByteLimit(platform: NodeJS.Platform): number | null {
  return platform === 'win32' ? WINDOWS_SECRET_LIMIT : null;
}

/** Refuse, before the keychain is touched, a secret the platform cannot hold, with a message that says why. */
export function checkSecret(secret: string, platform: NodeJS.Platform = process.platform): Buffer {
  if (typeof secret !== 'string' || secret === '') throw new SecretRejected('an empty secret cannot be stored');
  // Tokens never contain NUL; refusing it keeps stored bytes distinguishable from UTF-16 (see decodeSecret).
  if (secret.includes('\0')) throw new SecretRejected('a secret cannot contain NUL characters');
  const bytes = Buffer.from(secret, 'utf8');
  const limit = secretByteLimit(platform);
  if (limit !== null && bytes.length > limit) {
    throw new SecretRejected(
      `this secret is too long for the ${BACKENDS[platform] ?? platform}`,
      `it takes ${bytes.length} bytes as UTF-8; one entry holds at most ${limit} bytes. Use a shorter token (an API token with fewer claims).`,
    );
  }
  return bytes;
}

/**
 * The text of stored bytes. Entries written through the password API on Windows are UTF-16LE (every
 * ASCII character followed by a zero byte); UTF-8 text has no zero bytes, so the two cannot be confused.
 */
export function decodeSecret(raw: Uint8Array | readonly number[]): string {
  const bytes = Buffer.from(raw as Uint8Array);
  if (bytes.length % 2 === 0 && bytes.includes(0)) return bytes.toString('utf16le');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SecretStoreError('the keychain entry does not hold text', 'remove the connection and add it again');
  }
}

// Messages of keyring-core and the platform stores that mean "the keychain cannot be used right now"
// (no D-Bus session, no Secret Service, a locked collection, a dismissed unlock prompt, no logon session,
// macOS refusing user interaction) as opposed to a failure of one entry.
const UNAVAILABLE =
  /couldn't access platform|no storage access|DBus|D-Bus|ServiceUnknown|no default (credential|store)|locked|prompt (was )?dismissed|NO_SUCH_LOGON_SESSION|interaction is not allowed|errSecInteractionNotAllowed|errSecNoSuchKeychain|errSecAuthFailed/i;

type Operation = 'read' | 'store' | 'delete';

export class OsKeychain implements SecretStore {
  readonly backend = BACKENDS[process.platform] ?? process.platform;
  private readonly options: EntryOptions = { linux: { store: 'secret-service' } };

  constructor(private readonly service: string = KEYCHAIN_SERVICE) {}

  private entry(account: string): AsyncEntry {
    try {
      return new AsyncEntry(this.service, account, this.options);
    } catch (e) {
      throw this.failure(e, 'read');
    }
  }

  /** Sort a keyring error: the store is unavailable, it refused this secret, or something else went wrong. */
  private failure(e: unknown, operation: Operation): Error {
    if (e instanceof SecretStoreUnavailable || e instanceof SecretRejected || e instanceof SecretStoreError) return e;
    const reason = e instanceof Error ? e.message : String(e);
    if (/longer than platform limit|too long/i.test(reason)) return new SecretRejected(`this secret is too long for the ${this.backend}`, reason);
    if (/matched by \d+ credentials|ambiguous/i.test(reason)) {
      return new SecretStoreError(`several ${this.backend} entries match this secret`, `remove the duplicates of service "${this.service}" in the keychain's own tool (${reason})`);
    }
    if (UNAVAILABLE.test(reason)) {
      const hint = process.platform === 'linux' ? ' (a Secret Service such as gnome-keyring or KWallet must be running and unlocked)' : '';
      return new SecretStoreUnavailable(`the ${this.backend} cannot be reached${hint}: ${reason}`);
    }
    return new SecretStoreError(`the ${this.backend} could not ${operation} the secret`, reason);
  }

  async get(account: string): Promise<string | null> {
    let raw: Uint8Array | number[] | null | undefined;
    try {
      raw = await this.entry(account).getSecret();
    } catch (e) {
      throw this.failure(e, 'read');
    }
    return raw === null || raw === undefined ? null : decodeSecret(raw);
  }

  async set(account: string, secret: string): Promise<void> {
    const bytes = checkSecret(secret);
    try {
      await this.entry(account).setSecret(bytes);
    } catch (e) {
      throw this.failure(e, 'store');
    }
  }

  async delete(account: string): Promise<boolean> {
    try {
      return await this.entry(account).deletePassword();
    } catch (e) {
      throw this.failure(e, 'delete');
    }
  }
}
