import { bootConfig as bootServiceConfig } from '@conduit/service-kit';
import { loadCatalogConfig, type CatalogConfig } from './config.js';

/** The validated config, or one clear line on stderr and exit 1 (a wrong setting, a well-known secret outside development). */
export function bootConfig(): CatalogConfig {
  const config = bootServiceConfig('catalog', loadCatalogConfig);
  // The connectors' check of the platform's own PostgreSQL and Redis reads these (platform-services.ts): a service
  // started without them works on their defaults, which connectors must not reach either.
  process.env['DATABASE_URL'] ??= config.DATABASE_URL;
  process.env['REDIS_URL'] ??= config.REDIS_URL;
  return config;
}
