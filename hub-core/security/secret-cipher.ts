import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HubError } from '../base/index.js';

const PREFIX = 'aes256gcm:';
/** In a data folder whose key was moved to the OS keychain: names the keychain entry (main/secrets/secrets-key.ts). */
export const KEYCHAIN_MARKER = 'secrets-key.keychain';

/**
 * Encrypts secret values at rest (AES-256-GCM). The key lives in the OS keychain when the host gives it (the desktop
 * app: `serve --secrets-key keychain`), else in `<data>/secrets-key` (mode 0600), apart from hub.db either way, so a
 * copy of the database alone does not give the values away.
 */
export class SecretCipher {
  private constructor(
    private readonly key: Buffer | undefined,
    /** Where the key is when this process was not given it (a keychain entry). */
    private readonly elsewhere?: string,
  ) {}

  /** `key`: the key as the host read it from the OS keychain; without it, the key file (made on first use). */
  static open(dataDir: string, key?: Buffer): SecretCipher {
    if (key !== undefined) {
      if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
      return new SecretCipher(key);
    }
    const marker = join(dataDir, KEYCHAIN_MARKER);
    // The key was moved to the keychain: never make a new file key (the stored values would be lost to it).
    if (existsSync(marker)) return new SecretCipher(undefined, readFileSync(marker, 'utf8').trim().split('\n').join(', '));
    const file = join(dataDir, 'secrets-key');
    if (existsSync(file)) {
      chmodSync(file, 0o600);
      const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      if (stored.length !== 32) throw new Error(`${file} does not hold a 32-byte key; the secrets it encrypted cannot be read without it`);
      return new SecretCipher(stored);
    }
    const made = randomBytes(32);
    writeFileSync(file, made.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return new SecretCipher(made);
  }

  static isEncrypted(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  private keyOrThrow(): Buffer {
    if (this.key) return this.key;
    throw new HubError(
      503,
      'the secrets key of this data folder is in the OS keychain',
      `it is the keychain entry ${this.elsewhere ?? ''}; start the hub with "datahub serve --secrets-key keychain" (the desktop app does) to use secrets`,
    );
  }

  encrypt(value: string): string {
    const key = this.keyOrThrow();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
  }

  /** The value; a value stored before encryption (no prefix) is returned as it is. */
  decrypt(stored: string): string {
    if (!SecretCipher.isEncrypted(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.keyOrThrow(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
