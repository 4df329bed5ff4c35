// The one place remote tokens are kept: the OS keychain (macOS Keychain, Windows Credential Manager,
// the Secret Service on Linux). Callers name a secret by an account string; values never leave main/.
import { HubError } from '../../hub-core/base/index.js';

export interface SecretStore {
  /** Human-readable name of the backend, for diagnostics ("Secret Service", "macOS Keychain", ...). */
  readonly backend: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** True when a secret existed and was removed. */
  delete(account: string): Promise<boolean>;
}

/** Thrown when the OS keychain cannot be reached; the message says what to install or unlock. */
export class SecretStoreUnavailable extends Error {
  override readonly name = 'SecretStoreUnavailable';
}

/**
 * The keychain cannot hold this secret (too long for the platform, empty, ...). Nothing was stored; the
 * user can fix it, so it is a 400 wherever it reaches the API.
 */
export class SecretRejected extends HubError {
  constructor(message: string, detail?: string) {
    super(400, message, detail);
    this.name = 'SecretRejected';
  }
}

/** The keychain answered, but with an error that is neither of the above (an ambiguous entry, bad data). */
export class SecretStoreError extends HubError {
  constructor(message: string, detail?: string) {
    super(502, message, detail);
    this.name = 'SecretStoreError';
  }
}
