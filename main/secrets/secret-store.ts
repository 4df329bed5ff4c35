// The one place remote tokens are kept: the OS keychain (macOS Keychain, Windows Credential Manager,
// the Secret Service on Linux). Callers name a secret by an account string; values never leave main/.
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
