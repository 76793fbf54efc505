import { bootConfig as bootServiceConfig } from '@conduit/service-kit';
import { loadExecutorConfig, type ExecutorConfig } from './config.js';

/** The validated config, or one clear line on stderr and exit 1 (a wrong setting, a well-known secret outside development). */
export function bootConfig(): ExecutorConfig {
  return bootServiceConfig('executor', loadExecutorConfig);
}
