import { ConfigError } from '@conduit/service-kit';
import { loadDispatcherConfig, type DispatcherConfig } from './config.js';

/** The validated config, or one clear line on stderr and exit 1: a wrong setting must stop the service at once. */
export function bootConfig(): DispatcherConfig {
  try {
    return loadDispatcherConfig();
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message;
    process.stderr.write(`webhook-dispatcher: invalid configuration: ${problems}\n`);
    process.exit(1);
  }
}
