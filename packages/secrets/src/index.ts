export * from './secret-box.js';
export { KEY_BYTES, keyIdOf, parsePreviousSecretsKeys, type SecretKeys } from './secret-keys.js';
export * from './bindings.js';
export * from './transit.js';
export * from './secrets-key-env.js';
