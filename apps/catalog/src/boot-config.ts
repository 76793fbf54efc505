import { bootConfig as bootServiceConfig } from '@conduit/service-kit';
import { loadCatalogConfig, type CatalogConfig } from './config.js';

/** The validated config, or one clear line on stderr and exit 1 (a wrong setting, a well-known secret outside development). */
export function bootConfig(): CatalogConfig {
  return bootServiceConfig('catalog', loadCatalogConfig);
}
