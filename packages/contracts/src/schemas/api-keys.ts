import { z } from 'zod';
import { nameSchema, SCOPES } from './common.js';
import { pageQueryShape } from '../pagination.js';

export const apiKeyCreateSchema = z.strictObject({
  name: nameSchema,
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .refine((s) => new Set(s).size === s.length, { message: 'scopes must be unique' }),
  /** Overrides the default per-credential rate limit for this key. */
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
});
export type ApiKeyCreate = z.infer<typeof apiKeyCreateSchema>;

export const apiKeyListQuerySchema = z.strictObject({ ...pageQueryShape });

export interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  /** The first characters of the key, to recognise it; the key itself is shown once, at creation. */
  prefix: string;
  rate_limit_per_minute: number | null;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

export const tenantCreateSchema = z.strictObject({ name: nameSchema });
export interface Tenant {
  id: string;
  name: string;
  created_at: string;
}
