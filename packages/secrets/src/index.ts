export * from './secret-box.js';
export * from './transit.js';
export * from './secrets-key-env.js';
export * from './url-credentials.js';
