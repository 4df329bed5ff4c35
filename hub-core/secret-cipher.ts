import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'aes256gcm:';

/**
 * Encrypts secret values at rest (AES-256-GCM). The key lives in `<data>/secrets-key` (mode 0600), apart from hub.db,
 * so a copy of the database alone does not give the values away.
 */
export class SecretCipher {
  private constructor(private readonly key: Buffer) {}

  static open(dataDir: string): SecretCipher {
    const file = join(dataDir, 'secrets-key');
    if (existsSync(file)) {
      chmodSync(file, 0o600);
      const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key; the secrets it encrypted cannot be read without it`);
      return new SecretCipher(key);
    }
    const key = randomBytes(32);
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return new SecretCipher(key);
  }

  static isEncrypted(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  encrypt(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
  }

  /** The value; a value stored before encryption (no prefix) is returned as it is. */
  decrypt(stored: string): string {
    if (!SecretCipher.isEncrypted(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
