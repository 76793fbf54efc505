import { z } from 'zod';
import { parsePreviousSecretsKeys, parseSecretsKey, type SecretKeys } from './secret-keys.js';

function keyEntry<V, T>(parse: (value: V) => T) {
  return (value: V, ctx: z.RefinementCtx): T => {
    try {
      return parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  };
}

/** The SECRETS_KEY entry of a service's validated environment: the 32-byte key, or one clear line on why not. */
export function secretsKeyEnv() {
  return z.string().transform(keyEntry((value: string) => parseSecretsKey(value)));
}

/** The SECRETS_KEYS_PREVIOUS entry: old keys (comma-separated) that still open values sealed before a rotation. */
export function previousSecretsKeysEnv() {
  return z.string().optional().transform(keyEntry(parsePreviousSecretsKeys));
}

/** Both entries, to spread into a service's environment schema. */
export function secretsEnv() {
  return { SECRETS_KEY: secretsKeyEnv(), SECRETS_KEYS_PREVIOUS: previousSecretsKeysEnv() };
}

/** The key ring of a validated environment. */
export function secretKeysOf(config: { SECRETS_KEY: Buffer; SECRETS_KEYS_PREVIOUS: readonly Buffer[] }): SecretKeys {
  return { current: config.SECRETS_KEY, previous: config.SECRETS_KEYS_PREVIOUS };
}
