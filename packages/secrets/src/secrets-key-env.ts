import { z } from 'zod';
import { parseSecretsKey } from './secret-box.js';

/** The SECRETS_KEY entry of a service's validated environment: the 32-byte key, or one clear line on why not. */
export function secretsKeyEnv() {
  return z.string().transform((value, ctx) => {
    try {
      return parseSecretsKey(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });
}
