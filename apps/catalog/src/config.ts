import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';
import { refineAllowedNetworks } from '@conduit/connectors';
import { secretsEnv } from '@conduit/secrets';

const positiveInt = () => z.coerce.number().int().min(1);

export const catalogEnvSchema = z.object({
  ...baseEnv,
  /** HTTP port of /healthz, /readyz and /metrics; requests arrive over Redis, not here. */
  CATALOG_PORT: envPort().default(3101),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * SECRETS_KEY: AES-256-GCM key of connector secrets (64 hex characters or base64 of 32 bytes); required, secrets are
   * never stored in clear. SECRETS_KEYS_PREVIOUS: keys being rotated out, comma-separated, still opening older values.
   */
  ...secretsEnv(),
  /** The PostgreSQL schema of the catalog's tables; tests migrate a fresh one. */
  CATALOG_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('catalog'),
  CATALOG_DB_POOL_SIZE: positiveInt().max(100).default(10),
  /** Most RPC requests one replica handles at once. */
  CATALOG_RPC_CONCURRENCY: positiveInt().max(1000).default(64),
  /** Internal ranges connectors may reach (CIDRs, comma separated); a typo stops the start, not a run. */
  CONNECTOR_ALLOWED_NETWORKS: z.string().optional().superRefine(refineAllowedNetworks),
});

export type CatalogConfig = z.output<typeof catalogEnvSchema>;

/** Reads and validates the environment once; throws ConfigError listing every problem. */
export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return loadConfig(catalogEnvSchema, env);
}
