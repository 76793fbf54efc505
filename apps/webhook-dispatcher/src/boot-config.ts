import { bootConfig as bootServiceConfig } from '@conduit/service-kit';
import { loadDispatcherConfig, type DispatcherConfig } from './config.js';

/** The validated config, or one clear line on stderr and exit 1 (a wrong setting, a well-known secret outside development). */
export function bootConfig(): DispatcherConfig {
  return bootServiceConfig('webhook-dispatcher', loadDispatcherConfig);
}
