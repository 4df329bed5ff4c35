// Secrets and users: the secret cipher, masking of secret values in text, the environment and secret
// stores, and the hub's users.
export { EnvStore, KvStore, SecretStore } from './kv-stores.js';
export { KEYCHAIN_MARKER, SecretCipher } from './secret-cipher.js';
export { maskJson, secretMask } from './secret-mask.js';
export type { Mask } from './secret-mask.js';
export { UserStore } from './users.js';
