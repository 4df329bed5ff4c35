// SecretStore on the OS keychain through @napi-rs/keyring. On Linux the entries are pinned to the
// Secret Service: the kernel keyring would lose every token at logout, so it is never a silent fallback.
import { AsyncEntry, type EntryOptions } from '@napi-rs/keyring';
import { SecretStoreUnavailable, type SecretStore } from './secret-store.js';

export const KEYCHAIN_SERVICE = 'datahub-desktop';

const BACKENDS: Record<string, string> = { darwin: 'macOS Keychain', win32: 'Windows Credential Manager', linux: 'Secret Service' };

export class OsKeychain implements SecretStore {
  readonly backend = BACKENDS[process.platform] ?? process.platform;
  private readonly options: EntryOptions = { linux: { store: 'secret-service' } };

  constructor(private readonly service: string = KEYCHAIN_SERVICE) {}

  private entry(account: string): AsyncEntry {
    try {
      return new AsyncEntry(this.service, account, this.options);
    } catch (e) {
      throw this.unavailable(e);
    }
  }

  private unavailable(e: unknown): SecretStoreUnavailable {
    const reason = e instanceof Error ? e.message : String(e);
    const hint = process.platform === 'linux' ? ' (a Secret Service such as gnome-keyring or KWallet must be running and unlocked)' : '';
    return new SecretStoreUnavailable(`the ${this.backend} cannot be reached${hint}: ${reason}`);
  }

  async get(account: string): Promise<string | null> {
    try {
      return await this.entry(account).getPassword();
    } catch (e) {
      throw e instanceof SecretStoreUnavailable ? e : this.unavailable(e);
    }
  }

  async set(account: string, secret: string): Promise<void> {
    try {
      await this.entry(account).setPassword(secret);
    } catch (e) {
      throw e instanceof SecretStoreUnavailable ? e : this.unavailable(e);
    }
  }

  async delete(account: string): Promise<boolean> {
    try {
      return await this.entry(account).deletePassword();
    } catch (e) {
      throw e instanceof SecretStoreUnavailable ? e : this.unavailable(e);
    }
  }
}
